package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// randomDenseFunc writes a random plain function f(n, x) on lists long
// enough to keep no epochs as x86-64 code (builtins/fuse/native,
// amd64_dense.go): lists [V] * m of words, of bools and of a negative V,
// lists built by append, each made again inside loops, written at
// scattered and at crossing-off indices, read back and summed. Calls
// with a long list then a short one read what the short one's code must
// have made fresh.
func randomDenseFunc(r *rand.Rand) string {
	var b strings.Builder
	inits := []string{"0", "5", "-1"}
	init := inits[r.IntN(len(inits))]
	fmt.Fprintf(&b, "def f(n, x):\n    s = 0\n    a = [%s] * (n + 1)\n    ok = [True] * (n + 1)\n    out = []\n", init)
	word := func(v string) string {
		opts := []string{"x", "(x % 13)", "s & 1023", "len(out)", fmt.Sprintf("%d", r.IntN(90))}
		if v != "" {
			opts = append(opts, v, "("+v+" * 7)")
		}
		return opts[r.IntN(len(opts))]
	}
	var stmt func(ind string, depth int, v string)
	stmt = func(ind string, depth int, v string) {
		idx := func() string {
			k := r.IntN(1000)
			if v != "" {
				return fmt.Sprintf("(%s * %d + x) %% (n + 1)", v, 1+r.IntN(9))
			}
			return fmt.Sprintf("(x + %d) %% (n + 1)", k)
		}
		switch k := r.IntN(14); {
		case k == 0 && depth < 2:
			lv := fmt.Sprintf("i%d", depth)
			bound := "n"
			if depth > 0 {
				bound = "n % 11" // the inner loop short
			}
			fmt.Fprintf(&b, "%sfor %s in range(%s + %d):\n", ind, lv, bound, r.IntN(3))
			stmt(ind+"    ", depth+1, lv)
			stmt(ind+"    ", depth+1, lv)
		case k == 1:
			fmt.Fprintf(&b, "%sa[%s] = %s\n", ind, idx(), word(v))
		case k == 2:
			fmt.Fprintf(&b, "%ss += a[%s] + 1\n", ind, idx())
		case k == 3:
			fmt.Fprintf(&b, "%sout.append(%s)\n", ind, word(v))
		case k == 4:
			fmt.Fprintf(&b, "%sif len(out) > 0:\n%s    s += out[(x + %d) %% len(out)]\n", ind, ind, r.IntN(50))
		case k == 5:
			fmt.Fprintf(&b, "%sa = [%s] * (n + 1)\n", ind, init)
		case k == 6:
			fmt.Fprintf(&b, "%sout = []\n", ind)
		case k == 7:
			fmt.Fprintf(&b, "%sif ok[%s]:\n%s    s += 3\n", ind, idx(), ind)
		case k == 8:
			fmt.Fprintf(&b, "%sok[%s] = False\n", ind, idx())
		case k == 9 && depth < 2:
			st := 2 + r.IntN(5)
			fmt.Fprintf(&b, "%sfor j%d in range(%d, n + 1, %d):\n%s    ok[j%d] = False\n", ind, depth, st, st, ind, depth)
		case k == 10:
			fmt.Fprintf(&b, "%sok = [True] * (n + 1)\n", ind)
		case k == 12 && r.IntN(3) == 0:
			// May be past the end: the interpreter fails, and the code
			// must give the call back.
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "%ss += out[x %% %d]\n", ind, 2+r.IntN(5))
			} else {
				fmt.Fprintf(&b, "%sa[(x + s) %% (n + %d)] = %s\n", ind, 2+r.IntN(3), word(v))
			}
		case k == 11:
			fmt.Fprintf(&b, "%sif a[%s] == %s:\n%s    s += 1\n", ind, idx(), inits[r.IntN(len(inits))], ind)
		default:
			fmt.Fprintf(&b, "%ss += %s\n", ind, word(v))
		}
	}
	for n := 4 + r.IntN(6); n > 0; n-- {
		stmt("    ", 0, "")
	}
	b.WriteString("    c = 0\n    for i in range(n + 1):\n        if ok[i]:\n            c += 1\n")
	switch r.IntN(3) {
	case 0:
		b.WriteString("    return s, c, len(out)\n")
	case 1:
		b.WriteString("    return a\n")
	default:
		b.WriteString("    return s + c + sum(out) + sum(a)\n")
	}
	return b.String()
}

// TestNativeRandomDenseLists: random plain functions on long lists give,
// as code, the interpreter's results, call after call, with the lists
// of one call longer or shorter than the last's.
func TestNativeRandomDenseLists(t *testing.T) {
	needAMD64(t)
	n := 120
	if testscale.Short() {
		n = 40
	}
	sizes := []int{300, 5, 200, 70, 0, 150, 64, 299, 1}
	coded, given, refused := 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xde25e))
		src := randomDenseFunc(r)
		fn, thread := randomModule(t, src)
		thread.SetMaxExecutionSteps(1 << 24)
		args := func(k int) starlark.Tuple {
			in := rand.New(rand.NewPCG(seed, uint64(k)))
			return starlark.Tuple{starlark.MakeInt(sizes[k]), starlark.MakeUint64(in.Uint64N(1 << 20))}
		}
		nf, _, err := compileNative(thread, fn, args(0), nil, nil, false)
		if err != nil {
			refused++
			continue
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatalf("%v\n%s", nf.pc.Err(), src)
		}
		for k := range sizes {
			got, ok := nf.call(thread, args(k))
			want, perr := starlark.Call(thread, fn, args(k), nil)
			if !ok {
				given++
				continue
			}
			coded++
			if perr != nil {
				t.Fatalf("seed %d input %d: %v as code; the interpreter fails: %v\n%s", seed, k, got, perr, src)
			}
			if got.String() != want.String() || got.Type() != want.Type() {
				t.Fatalf("seed %d input %d (n = %d): %v as code; %v interpreted\n%s", seed, k, sizes[k], got, want, src)
			}
		}
	}
	t.Logf("%d functions: %d calls as code, %d given back, %d functions refused", n, coded, given, refused)
	if coded < 4*n {
		t.Errorf("%d calls as code, %d given back, %d refused: the test tests little", coded, given, refused)
	}
}
