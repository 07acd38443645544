//go:build linux

package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
)

// recursiveFuncs are functions whose helpers recurse, with inputs: the
// shared cases, random ones (package randfunc), and copies allowed few
// calls, so that the CPU too fails on the depth for some items.
func recursiveFuncs(t *testing.T, n int) (names []string, fs []*fuse.Func, spaces [][]fuse.Space) {
	t.Helper()
	add := func(name, src string, params int, small bool, depth int) {
		s, err := fusescript.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Compile("f")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.Depth = depth
		ins := fusescript.Inputs(n, params, small)
		sp := make([]fuse.Space, params)
		for j := range sp {
			col := make(fuse.Array, len(ins))
			for i, in := range ins {
				col[i] = in[j]
			}
			sp[j] = col
		}
		if params == 1 && !small {
			// A range: generated on the card.
			sp[0] = fuse.Range{Start: 5, Step: 7, N: uint64(n)}
		}
		names, fs, spaces = append(names, name), append(fs, f), append(spaces, sp)
	}
	for _, tc := range fusescript.Recursive {
		add(tc.Name, tc.Src, tc.Params, tc.Small, 0)
	}
	add("mutual, 40 calls at most", fusescript.Recursive[1].Src, 1, false, 40)
	add("deep_failure, 9 calls at most", fusescript.Recursive[len(fusescript.Recursive)-1].Src, 1, true, 9)
	for seed := uint64(0); seed < 4; seed++ {
		add(fmt.Sprintf("random %d", seed), randfunc.RecursiveSource(rand.New(rand.NewPCG(seed, 0xdeeb))), 2, false, 0)
	}
	return names, fs, spaces
}

// cpuAnswer is the CPU's answer for method over the spaces, worded for
// comparison: the result, or the failing item's position, check and value.
func cpuAnswer(t *testing.T, f *fuse.Func, spaces []fuse.Space, m fuse.Method) string {
	t.Helper()
	p, err := native.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	n := spaces[0].Len()
	opt := fuse.Options{Workers: 3, Out: make([]uint64, n), Limit: n}
	res, err := fuse.RunFunc(context.Background(), f, spaces, m, opt, native.Batch, workers(p))
	return answer(res, err, m, opt)
}

func workers(p *native.Executable) func(func() bool) (fuse.FlowWorker, error) {
	return func(poll func() bool) (fuse.FlowWorker, error) { return p.NewWorker(poll) }
}

func answer(res *fuse.Result, err error, m fuse.Method, opt fuse.Options) string {
	var ie *fuse.ItemError
	switch {
	case errors.As(err, &ie):
		return fmt.Sprintf("item %d %v fails: %s, value %#x", ie.Index, ie.Params, ie.Check.Msg, ie.Value)
	case err != nil:
		return "error " + err.Error()
	}
	switch m {
	case fuse.Map:
		return fmt.Sprint(opt.Out)
	case fuse.Filter:
		return fmt.Sprint(res.Items)
	case fuse.First:
		if !res.Found {
			return "none"
		}
		return fmt.Sprint("at ", res.Index)
	}
	return fmt.Sprintf("%+v", *res)
}

// TestLauncherRecursion: a function whose helpers recurse, on a simulated
// card whose threads may nest 1 to 5 calls, gives the CPU's answers for
// every method: the items whose calls go deeper are handed back to the
// CPU, their results joining the card's in the space's order (first's hit
// and filter's items), and an error is the first failing item's, whether
// it failed on the card or on the CPU (on the depth, with the CPU's own
// limit). Each run is one launch or many small ones, with the queued work
// run lazily, ahead or eagerly; the items handed back run on the
// evaluator or on the CPU's engine through fuse.RunFunc.
func TestLauncherRecursion(t *testing.T) {
	ctx := context.Background()
	names, fs, spaces := recursiveFuncs(t, 600)
	handed := 0
	for k, f := range fs {
		for m := fuse.Map; m <= fuse.Filter; m++ {
			want := cpuAnswer(t, f, spaces[k], m)
			for ci, depth := range []int{1, 2, 3, 5} {
				cfg := cuda.SimConfig{Depth: depth}
				if ci%2 == 1 {
					cfg.Stage, cfg.FirstSlice, cfg.Mode = 128, 50, (ci+int(m))%3
				}
				if ci >= 2 {
					// The CPU's engine, as the binding hands it over.
					p, err := native.Compile(f)
					if err != nil {
						t.Fatal(err)
					}
					defer p.Close()
					cfg.CPU = func(ctx context.Context, sp []fuse.Space, m fuse.Method, opt fuse.Options) (*fuse.Result, error) {
						return fuse.RunFunc(ctx, f, sp, m, opt, native.Batch, workers(p))
					}
				}
				n := spaces[k][0].Len()
				opt := fuse.Options{Workers: 2, Out: make([]uint64, n), Limit: n}
				res, err, stats := cuda.SimRunFunc(ctx, f, spaces[k], m, opt, cfg)
				if stats.Misuse != nil {
					t.Errorf("%s method %d depth %d: %v", names[k], m, depth, stats.Misuse)
				}
				if got := answer(res, err, m, opt); got != want {
					t.Errorf("%s method %d, the card's depth %d: %.200s\nthe CPU: %.200s", names[k], m, depth, got, want)
				}
				handed += stats.Handed
			}
		}
	}
	if handed == 0 {
		t.Fatal("no item was handed back to the CPU")
	}
	t.Logf("%d items handed back", handed)
}

// TestLauncherRecursionFullDepth: where the card's threads may nest as
// many calls as the function allows, nothing is handed back, and the
// depth error comes from the card (recomputed on the CPU to word it).
func TestLauncherRecursionFullDepth(t *testing.T) {
	s, err := fusescript.Load("def g(x, d):\n    return d if x == 0 else g(x - 1, d + 1)\ndef f(x):\n    return g(x % 50, 0)\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	f.Depth = 30
	sp := []fuse.Space{fuse.Range{Step: 1, N: 1000}}
	want := cpuAnswer(t, f, sp, fuse.Sum)
	res, err, stats := cuda.SimRunFunc(context.Background(), f, sp, fuse.Sum, fuse.Options{Workers: 2}, cuda.SimConfig{})
	if got := answer(res, err, fuse.Sum, fuse.Options{}); got != want || stats.Handed != 0 || stats.Misuse != nil {
		t.Fatalf("%s, %d handed back, misuse %v; the CPU: %s", got, stats.Handed, stats.Misuse, want)
	}
}

// TestLauncherRecursionFirstOrder: under first, the items the card left to
// the CPU count only before the card's hit. A card may run the later items
// of a launch first (the simulation's "ahead" mode runs the second half of
// the next launch early): item 151 is left to the CPU and is a hit there,
// 152 a hit on the card, before the earlier half finds 101 (left to the
// CPU, no hit) and 102. The answer is 102, the CPU's, not 151.
func TestLauncherRecursionFirstOrder(t *testing.T) {
	s, err := fusescript.Load(`
def g(x, d):
    return (x % 4 == 3) if d == 0 else g(x, d - 1)
def f(x):
    if x < 101:
        return 0
    if x % 2 == 0:
        return 1
    return g(x, 3)
`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	sp := []fuse.Space{fuse.Range{Step: 1, N: 202}}
	want := cpuAnswer(t, f, sp, fuse.First)
	cfg := cuda.SimConfig{Depth: 2, Stage: 101, FirstSlice: 101, Mode: 1}
	res, err, stats := cuda.SimRunFunc(context.Background(), f, sp, fuse.First, fuse.Options{Workers: 2}, cfg)
	if got := answer(res, err, fuse.First, fuse.Options{}); got != want || want != "at 102" || stats.Misuse != nil {
		t.Fatalf("first: %s (misuse %v); the CPU: %s", got, stats.Misuse, want)
	}
	if stats.Handed == 0 {
		t.Fatal("no item was handed back")
	}
}

// TestGPURecursion (on a card): functions whose helpers recurse give the
// CPU's answers for every method; a chain of calls of up to 3000 frames,
// each with an array of 64 words, runs on the card up to its depth cap
// (the stack sized for it: a frame larger than its bound would fault the
// card) and on the CPU past it; and the De Bruijn search counts its
// subtrees as the CPU does.
func TestGPURecursion(t *testing.T) {
	dev, err := cuda.Open()
	if err != nil {
		t.Skipf("no GPU to test on (%v); the kernel is tested as C by builtins/fuse/cgen's TestFuncCUDAKernelAsC, the hand-back by TestLauncherRecursion", err)
	}
	ctx := context.Background()
	names, fs, spaces := recursiveFuncs(t, 5000)
	chain, err := fusescript.Load(`
def walk(x, d):
    a = [0] * 64
    a[d % 64] = x
    if d == 0:
        return x & 255
    return (walk(x * 3 + 1, d - 1) + a[d % 64] + a[(d + 1) % 64]) & U64
def f(x):
    return walk(x, x % 3000)
`)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := chain.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	names, fs = append(names, "a chain of up to 3000 calls"), append(fs, cf)
	spaces = append(spaces, []fuse.Space{fuse.Range{Start: 0, Step: 1, N: 1 << 16}})
	db, err := fusescript.Load(fusescript.DeBruijnFind + "\ndef f(i):\n    return find(0, 58, 0, 6, 1 << 32, i, 16)\n")
	if err != nil {
		t.Fatal(err)
	}
	df, err := db.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	names, fs = append(names, "De Bruijn, 2^16 subtrees"), append(fs, df)
	spaces = append(spaces, []fuse.Space{fuse.Range{Start: 0, Step: 1, N: 1 << 16}})
	for k, f := range fs {
		kern, err := dev.FuncKernel(f)
		if err != nil {
			t.Fatalf("%s: %v", names[k], err)
		}
		// The items past the card's depth go to the CPU's engine, as the
		// binding hands them over.
		p, err := native.Compile(f)
		if err != nil {
			t.Fatal(err)
		}
		kern.HandBackTo(func(ctx context.Context, sp []fuse.Space, m fuse.Method, opt fuse.Options) (*fuse.Result, error) {
			return fuse.RunFunc(ctx, f, sp, m, opt, native.Batch, workers(p))
		})
		t.Logf("%s: the card's threads nest %d calls at most", names[k], kern.Depth())
		methods := []fuse.Method{fuse.Map, fuse.Count, fuse.Sum, fuse.Min, fuse.Max, fuse.First, fuse.Filter}
		if k >= len(fs)-2 {
			methods = []fuse.Method{fuse.Sum, fuse.Map}
		}
		for _, m := range methods {
			want := cpuAnswer(t, f, spaces[k], m)
			n := spaces[k][0].Len()
			opt := fuse.Options{Workers: 4, Out: make([]uint64, n), Limit: n}
			res, err := kern.Run(ctx, spaces[k], m, opt)
			if got := answer(res, err, m, opt); got != want {
				t.Errorf("%s method %d on the GPU: %.200s\nthe CPU: %.200s", names[k], m, got, want)
			}
		}
		kern.Close()
		p.Close()
	}
}
