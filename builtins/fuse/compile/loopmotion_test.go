package compile_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/internal/testscale"
)

// randomLoopFunc writes a random exact function f(n, a, b) of range loops
// whose bodies hold what HoistInvariants and StrengthReduce change: hashes
// of the loop's variable by wide constants (A, B of the module, and
// literals), invariant expressions with checks that fail for some
// parameters (32 - b as a shift count, a - b, // by a % 7, a list index),
// products whose check fails at some pass (the last, for some n), breaks,
// continues and returns before or after them, invariants under an if, and
// nested loops; loops over empty ranges among them. A local p holds a
// power of two or 0 (x & -x, shifts of it, masked), which the x86-64 code
// divides by with shifts; so does the parameter b after some assignments
// (b = x & -x), not before nor after others (b = a + i + 2).
func randomLoopFunc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("A = 0x9E3779B97F4A7C15\nB = 0xD1B54A32D192ED03\nT = [3, 1, 4, 1, 5, 9, 2, 6]\n\n")
	b.WriteString("def f(n, a, b):\n    s = 0\n    c = [0] * 16\n    p = 1\n")
	ranges := []string{"n % 20", "a % 5, n % 20", "0, n % 20, 3", "n % 20, 0, -1", "b % 4, n % 13, 2", "n % 20, a % 3"}
	var loop func(ind string, depth int)
	body := func(ind, v string, depth int) {
		for k := 1 + r.IntN(4); k > 0; k-- {
			switch r.IntN(22) {
			case 21:
				fmt.Fprintf(&b, "%sb = a + %s + 2\n", ind, v)
			case 19:
				fmt.Fprintf(&b, "%sb = (a ^ %s) & -(a ^ %s)\n", ind, v, v)
			case 20:
				fmt.Fprintf(&b, "%ss += (s + %s) // b + (a %% b)\n", ind, v)
			case 16:
				fmt.Fprintf(&b, "%sp = (s + %s + a) & -(s + %s + a)\n", ind, v, v)
			case 17:
				fmt.Fprintf(&b, "%sp = (p << (%s %% 3)) & b if %s > 1 else p >> 1\n", ind, v, v)
			case 18:
				fmt.Fprintf(&b, "%ss += ((a ^ %s) // p) + ((b + %s) %% p)\n", ind, v, v)
			case 0:
				fmt.Fprintf(&b, "%ss += ((A * %s + B) >> 32) & 0xFFFFFFFF\n", ind, v)
			case 1:
				fmt.Fprintf(&b, "%sh = ((0xBF58476D1CE4E5B9 * %s) >> 32) & 0xFFFFFFFF\n%sc[(h >> (32 - b)) & 15] += 1\n", ind, v, ind)
			case 2:
				fmt.Fprintf(&b, "%ss += %s >> (32 - b)\n", ind, v)
			case 3:
				fmt.Fprintf(&b, "%ss += a - b + %s\n", ind, v)
			case 4:
				fmt.Fprintf(&b, "%ss += %s // (a %% 7)\n", ind, v)
			case 5:
				fmt.Fprintf(&b, "%ss += T[a %% 11] + %s\n", ind, v)
			case 6:
				fmt.Fprintf(&b, "%ss += %s * 0x2000000000000000\n", ind, v)
			case 7:
				fmt.Fprintf(&b, "%sif %s == a %% 4:\n%s    break\n", ind, v, ind)
			case 8:
				fmt.Fprintf(&b, "%sif %s == b %% 3:\n%s    continue\n", ind, v, ind)
			case 9:
				fmt.Fprintf(&b, "%sif %s == a %% 6:\n%s    return s\n", ind, v, ind)
			case 10:
				fmt.Fprintf(&b, "%sif b > %s:\n%s    s += a - 7\n", ind, v, ind)
			case 11:
				fmt.Fprintf(&b, "%ss = (s + (A * a + %s) * 3) & 0xFFFFFFFFFFFF\n", ind, v)
			case 12:
				fmt.Fprintf(&b, "%ss ^= ((a * b) >> 64) + ((0x9E3779B97F4A7C15 * %s + 12345) & 0xFFFF)\n", ind, v)
			case 13:
				fmt.Fprintf(&b, "%ss += (%s * A) & 0xFFFFFFFF\n", ind, v)
			case 14:
				if depth < 2 {
					loop(ind, depth+1)
					continue
				}
				fmt.Fprintf(&b, "%ss += %s\n", ind, v)
			default:
				fmt.Fprintf(&b, "%ss += %s + (c[%s & 15] << 1)\n", ind, v, v)
			}
		}
	}
	loop = func(ind string, depth int) {
		v := fmt.Sprintf("i%d", depth)
		fmt.Fprintf(&b, "%sfor %s in range(%s):\n", ind, v, ranges[r.IntN(len(ranges))])
		body(ind+"    ", v, depth)
	}
	for k := 1 + r.IntN(2); k > 0; k-- {
		loop("    ", 0)
	}
	b.WriteString("    return s + c[a % 16]\n")
	return b.String()
}

// TestLoopMotionRandom: random exact functions of range loops compiled
// with the loop passes (HoistInvariants, StrengthReduce) and without
// (Options.KeepLoops) give the same word, or both fail, on every engine
// and on parameters that make the invariants' checks fail, the ranges
// empty and the products leave the words; where they give a word, it is
// plain Starlark's (exactAgrees). Most of the functions are changed by
// the passes.
func TestLoopMotionRandom(t *testing.T) {
	n := 400
	if testscale.Short() {
		n = 120
	}
	small := []uint64{0, 1, 2, 3, 5, 7, 8, 9, 12, 19, 33, 1 << 40, 1<<64 - 1}
	var inputs [][]uint64
	for _, x := range small {
		for _, y := range []uint64{0, 1, 7, 14, 31, 1 << 40, 1<<64 - 1} {
			for _, z := range []uint64{0, 3, 16, 32, 33, 1 << 63} {
				inputs = append(inputs, []uint64{x, y, z})
			}
		}
	}
	changed, words, fails, otherCheck := 0, 0, 0, 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0x4015))
		src := randomLoopFunc(r)
		s := load(t, src)
		kept, err := s.CompileWith("f", func(o *compile.Options) { o.Exact, o.KeepLoops = true, true })
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		moved, err := s.CompileWith("f", exactly)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if moved.String() != kept.String() {
			changed++
		}
		w, _ := exactAgrees(t, s, src, "f", inputs)
		words += w
		keptRuns, movedRuns := exactRuns(t, kept), exactRuns(t, moved)
		for engine, run := range movedRuns {
			for _, in := range inputs {
				want, werr := keptRuns[engine](in)
				got, gerr := run(in)
				switch {
				case (werr == nil) != (gerr == nil) || werr == nil && got != want:
					t.Fatalf("seed %d: f%v on %s = %#x, %v with the loop passes; %#x, %v without\n%s\n%s\n%s", seed, in, engine, got, gerr, want, werr, src, moved, kept)
				case werr != nil:
					fails++
					var wf, gf *fuse.FlowError
					if errors.As(werr, &wf) && errors.As(gerr, &gf) && wf.Check != gf.Check {
						// A check of the first pass that runs before the
						// hoisted one: both fail, the interpreter reruns.
						otherCheck++
					}
				}
			}
		}
	}
	t.Logf("%d functions, %d changed by the loop passes; %d words agree with Starlark; %d runs fail both ways, %d of them at another check", n, changed, words, fails, otherCheck)
	if changed < n/2 || words == 0 || fails == 0 {
		t.Errorf("%d of %d functions changed, %d words, %d failures: the test tests little", changed, n, words, fails)
	}
}

// TestPow2Divisions: divisions by a parameter that holds a power of two
// after some assignments (b = a & -a) and not after others, before a loop,
// in it and after it, agree with plain Starlark on every engine.
func TestPow2Divisions(t *testing.T) {
	src := `
def f(n, a, b):
    s = 100 // b
    b = a & -a
    s += (n + 7) // b + (n % b)
    b = a + 3
    s += (n + 7) // b + (n % b)
    for i in range(n % 9):
        s += (s + 5) // b
        b = (a ^ i) & -(a ^ i)
        s += (s + 5) // b
        if i == 2:
            b = 6
    s += 9 // b
    return s
`
	var inputs [][]uint64
	for _, n := range []uint64{0, 1, 3, 4, 8, 1 << 40} {
		for _, a := range []uint64{0, 1, 2, 5, 12, 96, 1 << 63} {
			for _, b := range []uint64{1, 3, 4, 6} {
				inputs = append(inputs, []uint64{n, a, b})
			}
		}
	}
	words, _ := exactAgrees(t, load(t, src), src, "f", inputs)
	if words == 0 {
		t.Errorf("no input gives a word")
	}
}
