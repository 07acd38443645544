package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// randomListFunc writes a random plain function f(p, x) of a list p of 4
// ints (words, or -1) and a word x that uses what runs as code on lists:
// a copy (list(p)), a list built by append, loops over lists and over
// values written out, a helper that changes a list it is given, one that
// returns a new list, writes into p, list literals that read the list
// they replace, a local holding a negative constant, indexing of a list
// built by append, and returns a word, a tuple or a list.
func randomListFunc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("def bump(a, k):\n    a[k % 4] += 1\n\n")
	b.WriteString("def fresh(a):\n    c = list(a)\n    c[0] = 7\n    return c\n\n")
	b.WriteString("def f(p, x):\n    q = list(p)\n    out = []\n    s = 0\n    d = -1\n    t = [x, 1, 2]\n")
	word := func(loopVar string) string {
		i := r.IntN(4)
		opts := []string{"x", "x % 7", fmt.Sprintf("q[%d]", i), "len(out)", "s", "(x + 3)", fmt.Sprintf("%d", r.IntN(50)),
			fmt.Sprintf("(q[%d] + 1)", i), fmt.Sprintf("(p[%d] ^ x)", i), "(x - 1)"}
		if loopVar != "" {
			opts = append(opts, loopVar, loopVar+" * 3")
		}
		return opts[r.IntN(len(opts))]
	}
	var stmt func(ind string, depth int, loopVar string, iterating string)
	stmt = func(ind string, depth int, loopVar string, iterating string) {
		switch k := r.IntN(16); {
		case k == 0 && iterating != "out":
			fmt.Fprintf(&b, "%sout.append(%s)\n", ind, word(loopVar))
		case k == 1 && depth < 2 && iterating == "":
			v := fmt.Sprintf("v%d", depth)
			fmt.Fprintf(&b, "%sfor %s in out:\n", ind, v)
			stmt(ind+"    ", depth+1, v, "out")
			stmt(ind+"    ", depth+1, v, "out")
		case k == 2 && depth < 2:
			v := fmt.Sprintf("w%d", depth)
			fmt.Fprintf(&b, "%sfor %s in (1, x %% 5, 3):\n", ind, v)
			stmt(ind+"    ", depth+1, v, iterating)
		case k == 3:
			i := r.IntN(4)
			fmt.Fprintf(&b, "%sif p[%d] == -1:\n%s    q[%d] = %s\n%selse:\n", ind, i, ind, i, word(loopVar), ind)
			stmt(ind+"    ", depth+1, loopVar, iterating)
		case k == 4 && iterating == "":
			fmt.Fprintf(&b, "%sbump(q, %s)\n", ind, word(loopVar))
		case k == 5 && iterating == "":
			fmt.Fprintf(&b, "%sp[%d] = %s\n", ind, r.IntN(4), word(loopVar))
		case k == 6 && iterating == "":
			fmt.Fprintf(&b, "%sq[%d] = %s\n", ind, r.IntN(4), word(loopVar))
		case k == 7:
			fmt.Fprintf(&b, "%sif %s > %s:\n", ind, word(loopVar), word(loopVar))
			stmt(ind+"    ", depth+1, loopVar, iterating)
		case k == 11:
			fmt.Fprintf(&b, "%sd = 8 if %s > %s else -8\n%ss += %s + d if %s + d >= 0 else 1\n", ind, word(loopVar), word(loopVar), ind, word(loopVar), word(loopVar))
		case k == 12:
			fmt.Fprintf(&b, "%sif len(out) > %d:\n%s    s += out[%d] * 2 + out[len(out) - 1]\n", ind, r.IntN(3), ind, r.IntN(4))
		case k == 13 && depth < 2 && iterating == "":
			fmt.Fprintf(&b, "%sfor i%d, e%d in enumerate(q):\n%s    s += i%d * 3 + (e%d & 0xff)\n", ind, depth, depth, ind, depth, depth)
		case k == 9 && iterating == "":
			fmt.Fprintf(&b, "%sout = [len(out), %s]\n", ind, word(loopVar))
		case k == 10:
			fmt.Fprintf(&b, "%st = [t[2] + 1, t[0], %s]\n%ss += t[%d]\n", ind, word(loopVar), ind, r.IntN(3))
		case k == 8 && iterating == "" && depth == 0:
			fmt.Fprintf(&b, "%sr = fresh(q)\n%ss += r[0] + r[%d]\n", ind, ind, r.IntN(4))
		default:
			fmt.Fprintf(&b, "%ss += %s\n", ind, word(loopVar))
		}
	}
	for n := 3 + r.IntN(6); n > 0; n-- {
		stmt("    ", 0, "", "")
	}
	switch r.IntN(4) {
	case 0:
		b.WriteString("    return s\n")
	case 1:
		b.WriteString("    return s, len(out)\n")
	case 2:
		b.WriteString("    return out\n")
	default:
		b.WriteString("    return q\n")
	}
	return b.String()
}

// randomModule runs src, a random program's module, interpreted under a
// step limit, and returns its function f and the thread, whose calls then
// stay interpreted unless the test compiles f itself.
func randomModule(t *testing.T, src string) (*starlark.Function, *starlark.Thread) {
	t.Helper()
	thread := &starlark.Thread{Name: "random", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"random.star": src}, Context: context.Background(), Interpreted: true})
	thread.SetMaxExecutionSteps(1 << 20)
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "random.star", src, Predeclared())
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return g["f"].(*starlark.Function), thread
}

// TestNativeRandomLists: random plain functions on lists give, as code,
// the interpreter's result and leave its lists, wherever the code gives a
// result; where the interpreter fails, the code gives the call back.
func TestNativeRandomLists(t *testing.T) {
	needAMD64(t)
	n := 150
	if testscale.Short() {
		n = 40
	}
	coded, given, refused := 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x1157))
		src := randomListFunc(r)
		fn, thread := randomModule(t, src)
		args := func(k int) starlark.Tuple {
			in := rand.New(rand.NewPCG(seed, uint64(k)))
			var elems []starlark.Value
			for range 4 {
				switch in.IntN(4) {
				case 0:
					elems = append(elems, starlark.MakeInt(-1))
				case 1:
					elems = append(elems, starlark.MakeUint64(in.Uint64()))
				default:
					elems = append(elems, starlark.MakeInt(in.IntN(100)))
				}
			}
			x := starlark.MakeUint64(in.Uint64N(1 << uint(1+in.IntN(63))))
			return starlark.Tuple{starlark.NewList(elems), x}
		}
		first := args(0)
		nf, _, err := compileNative(thread, fn, first, nil, nil, false)
		if err != nil {
			refused++
			continue
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatalf("%v\n%s", nf.pc.Err(), src)
		}
		for k := range 6 {
			codeArgs, plainArgs := args(k), args(k)
			got, ok := nf.call(thread, codeArgs)
			want, perr := starlark.Call(thread, fn, plainArgs, nil)
			if !ok {
				given++
				if codeArgs.String() != args(k).String() {
					t.Fatalf("seed %d input %d: the code gave the call back but changed its arguments to %v\n%s", seed, k, codeArgs, src)
				}
				continue
			}
			coded++
			if perr != nil {
				t.Fatalf("seed %d input %d: %v as code; the interpreter fails: %v\n%s", seed, k, got, perr, src)
			}
			if got.String() != want.String() || got.Type() != want.Type() || codeArgs.String() != plainArgs.String() {
				t.Fatalf("seed %d input %d: %v (%s) as code leaving %v; %v (%s) interpreted leaving %v\n%s",
					seed, k, got, got.Type(), codeArgs, want, want.Type(), plainArgs, src)
			}
		}
	}
	t.Logf("%d functions: %d calls as code, %d given back, %d functions refused", n, coded, given, refused)
	if coded < 2*n {
		t.Errorf("%d calls as code, %d given back, %d refused: the test tests little", coded, given, refused)
	}
}
