//go:build linux

package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

// TestLauncherFunc: fuse_run_func's launcher (the one of straight lines,
// with states, tables and a stop flag) on a simulated device gives Eval's
// answers for the constructs of the fused language and every method; the
// stop flag ends a launch that would not end; memory is freed.
func TestLauncherFunc(t *testing.T) {
	ctx := context.Background()
	for _, tc := range fusescript.Constructs {
		s, err := fusescript.Load(tc.Src)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Compile("f")
		if err != nil {
			t.Fatal(err)
		}
		ins := fusescript.Inputs(3000, tc.Params, tc.Small)
		spaces := make([]fuse.Space, tc.Params)
		for j := range spaces {
			col := make(fuse.Array, len(ins))
			for i, in := range ins {
				col[i] = in[j]
			}
			spaces[j] = col
		}
		if tc.Params == 1 && !tc.Small {
			spaces[0] = fuse.Range{Start: 1, Step: 0x9e3779b97f4a7c15, N: 3000}
		}
		want, bad := evalAll(f, spaces)
		n := spaces[0].Len()
		all := make([]uint64, n)
		spaces[0].Fill(0, all)
		for ci, m := 0, fuse.Map; m <= fuse.Filter; ci, m = ci+1, m+1 {
			// One launch; or many, of 100 to 256 items where items or
			// results are copied, queued work run lazily, ahead or eagerly.
			cfg := cuda.SimConfig{}
			if ci%2 == 1 || n < 100 {
				cfg = cuda.SimConfig{Stage: 256, FirstSlice: 100, Mode: ci % 3}
			}
			opt := fuse.Options{Out: make([]uint64, n), Limit: n, Workers: 2}
			res, err, stats := cuda.SimRunFunc(ctx, f, spaces, m, opt, cfg)
			if stats.Misuse != nil {
				t.Errorf("%s method %d: %v", tc.Name, m, stats.Misuse)
			}
			first := -1
			for i, w := range want {
				if (bad < 0 || i < bad) && w != 0 {
					first = i
					break
				}
			}
			if bad >= 0 && !(m == fuse.First && first >= 0) {
				var ie *fuse.ItemError
				if !errors.As(err, &ie) || ie.Index != uint64(bad) {
					t.Errorf("%s method %d: %v; want the error of item %d", tc.Name, m, err, bad)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s method %d: %v", tc.Name, m, err)
			}
			var count, lo, hi, mn, mx uint64 = 0, 0, 0, ^uint64(0), 0
			var items []uint64
			for i, w := range want {
				if w != 0 {
					count++
					items = append(items, all[i])
				}
				s := lo + w
				if s < lo {
					hi++
				}
				lo = s
				mn, mx = min(mn, w), max(mx, w)
			}
			var got, exp string
			switch m {
			case fuse.Map:
				got, exp = fmt.Sprint(opt.Out), fmt.Sprint(want)
			case fuse.Count:
				got, exp = fmt.Sprint(res.Count), fmt.Sprint(count)
			case fuse.Sum:
				got, exp = fmt.Sprint(res.SumHi, res.SumLo), fmt.Sprint(hi, lo)
			case fuse.Min:
				got, exp = fmt.Sprint(res.Value), fmt.Sprint(mn)
			case fuse.Max:
				got, exp = fmt.Sprint(res.Value), fmt.Sprint(mx)
			case fuse.First:
				got, exp = fmt.Sprint(res.Found, res.Index), fmt.Sprint(first >= 0, max(first, 0))
				if first < 0 {
					got = fmt.Sprint(res.Found, 0)
				}
			case fuse.Filter:
				got, exp = fmt.Sprint(res.Items), fmt.Sprint(items)
				if len(items) == 0 {
					exp = "[]"
				}
			}
			if got != exp {
				t.Errorf("%s method %d: launcher %.100s, Eval %.100s", tc.Name, m, got, exp)
			}
		}
	}

	// A slow card: the stop flag ends the launch part way when the
	// context ends.
	s, err := fusescript.Load("def f(x):\n    return x & 1\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err, stats := cuda.SimRunFunc(cctx, f, []fuse.Space{fuse.Range{Step: 1, N: 1 << 20}}, fuse.Count, fuse.Options{}, cuda.SimConfig{PerItem: time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || stats.Misuse != nil {
		t.Errorf("a slow card: %v, misuse %v; want the context's deadline", err, stats.Misuse)
	}
	if stats.Items >= 1<<16 {
		t.Errorf("the stop flag did not end the first launch: %d items computed", stats.Items)
	}
}
