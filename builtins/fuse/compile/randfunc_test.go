package compile_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// randomInputs returns pairs of words for f(x, y): small ones (so that
// loops and tables see in-range values), powers of two, and any words.
func randomInputs(r *rand.Rand, n int) [][]uint64 {
	word := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return r.Uint64N(20)
		case 1:
			return 1 << r.IntN(64)
		case 2:
			return r.Uint64N(1 << 16)
		}
		return r.Uint64()
	}
	out := make([][]uint64, n)
	for i := range out {
		out[i] = []uint64{word(), word()}
	}
	return out
}

// checkRandom compiles the random function of seed and compares Eval with
// the plain Starlark function on the inputs: the same word, or both fail.
// It returns how many inputs gave a word and how many failed.
func checkRandom(t testing.TB, seed uint64, inputs [][]uint64) (words, fails int) {
	t.Helper()
	return checkSource(t, seed, randfunc.Source(rand.New(rand.NewPCG(seed, 0x5eed))), inputs)
}

// checkSource compares Eval with plain Starlark for the function f of src.
func checkSource(t testing.TB, seed uint64, src string, inputs [][]uint64) (words, fails int) {
	t.Helper()
	s := load(t, src)
	f, err := s.Compile("f")
	if err != nil {
		t.Fatalf("seed %d: the random function does not compile: %v\n%s", seed, err, src)
	}
	st := f.NewState(nil)
	thread := &starlark.Thread{Name: "plain"}
	thread.SetMaxExecutionSteps(1 << 24)
	for _, in := range inputs {
		v, perr := starlark.Call(thread, s.Globals["f"], starlark.Tuple{starlark.MakeUint64(in[0]), starlark.MakeUint64(in[1])}, nil)
		if perr != nil && strings.Contains(perr.Error(), "too many steps") {
			t.Fatalf("seed %d: f%v runs too long in plain Starlark\n%s", seed, in, src)
		}
		got, ferr := st.Eval(in)
		if perr != nil {
			var fe *fuse.FlowError
			if !errors.As(ferr, &fe) {
				t.Fatalf("seed %d: f%v: plain Starlark fails (%v), fused gives %#x, %v\n%s\n%s", seed, in, perr, got, ferr, src, f)
			}
			fails++
			continue
		}
		want, ok := compile.WordOf(v)
		if !ok {
			t.Fatalf("seed %d: f%v returned %s, not a word\n%s", seed, in, v, src)
		}
		if ferr != nil || got != want {
			t.Fatalf("seed %d: f%v = %#x, %v fused; plain Starlark %#x\n%s\n%s", seed, in, got, ferr, want, src, f)
		}
		words++
	}
	return words, fails
}

// TestRandomFunctionsAgree: random functions over the whole fused subset
// (loops, tables, scratch arrays, helpers, word builtins) give the same
// words under Eval as in plain Starlark, and fail on the same inputs.
func TestRandomFunctionsAgree(t *testing.T) {
	n, m := 300, 40
	if testscale.Short() {
		n, m = 60, 20
	}
	words, fails := 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		w, f := checkRandom(t, seed, randomInputs(rand.New(rand.NewPCG(seed, 1)), m))
		words += w
		fails += f
	}
	t.Logf("%d functions: %d results equal, %d failures on both sides", n, words, fails)
	if words < fails {
		t.Errorf("most calls fail (%d words, %d failures): the generator tests little", words, fails)
	}
}

// FuzzFlow compiles the random function of a seed and compares Eval with
// plain Starlark on (x, y) and a few inputs of its own.
func FuzzFlow(f *testing.F) {
	for seed := uint64(0); seed < 8; seed++ {
		f.Add(seed, seed*0x9e3779b97f4a7c15, uint64(seed%3))
	}
	f.Fuzz(func(t *testing.T, seed, x, y uint64) {
		in := append([][]uint64{{x, y}, {x % 64, y % 64}}, randomInputs(rand.New(rand.NewPCG(x, y)), 4)...)
		checkRandom(t, seed, in)
	})
}

// TestRandomRecursiveFunctionsAgree: random functions whose helpers recurse
// (directly or mutually, with scratch arrays per frame) agree with plain
// Starlark under Eval, results and failures.
func TestRandomRecursiveFunctionsAgree(t *testing.T) {
	n := 150
	if testscale.Short() {
		n = 40
	}
	words, fails, calls := 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		src := randfunc.RecursiveSource(rand.New(rand.NewPCG(seed, 0x7ec)))
		if f, err := load(t, src).Compile("f"); err == nil && len(f.Procs) > 0 {
			calls++
		}
		w, f := checkSource(t, seed, src, randomInputs(rand.New(rand.NewPCG(seed, 1)), 20))
		words += w
		fails += f
	}
	t.Logf("%d functions (%d calling a recursive helper): %d results equal, %d failures on both sides", n, calls, words, fails)
	if words < fails || calls < n/3 {
		t.Errorf("%d words, %d failures, %d of %d with recursion: the generator tests little", words, fails, calls, n)
	}
}

// FuzzFlowRecursive is FuzzFlow for random functions whose helpers recurse.
func FuzzFlowRecursive(f *testing.F) {
	for seed := uint64(0); seed < 8; seed++ {
		f.Add(seed, seed*0x9e3779b97f4a7c15, uint64(seed%3))
	}
	f.Fuzz(func(t *testing.T, seed, x, y uint64) {
		in := append([][]uint64{{x, y}, {x % 64, y % 64}}, randomInputs(rand.New(rand.NewPCG(x, y)), 4)...)
		checkSource(t, seed, randfunc.RecursiveSource(rand.New(rand.NewPCG(seed, 0x7ec))), in)
	})
}
