//go:build linux

package cuda_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

// evalAll runs f under Eval on every item of the spaces: each item's
// result, and the position of the first that fails (-1 when none).
func evalAll(f *fuse.Func, spaces []fuse.Space) ([]uint64, int) {
	n := spaces[0].Len()
	cols := make([][]uint64, len(spaces))
	for i, s := range spaces {
		cols[i] = make([]uint64, n)
		s.Fill(0, cols[i])
	}
	st := f.NewState(nil)
	res := make([]uint64, n)
	for i := range res {
		in := make([]uint64, len(cols))
		for j := range cols {
			in[j] = cols[j][i]
		}
		r, err := st.Eval(in)
		if err != nil {
			return res, i
		}
		res[i] = r
	}
	return res, -1
}

// TestGPUFunc compares the GPU with Eval for the constructs of the fused
// language, every method, over a range and arrays; and stops a while that
// never ends. It needs a GPU with its driver and NVRTC.
func TestGPUFunc(t *testing.T) {
	dev, err := cuda.Open()
	if err != nil {
		t.Skipf("no GPU to test on (%v); the kernel is tested as C by builtins/fuse/cgen's TestFuncCUDAKernelAsC", err)
	}
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
		k, err := dev.FuncKernel(f)
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		ins := fusescript.Inputs(5000, tc.Params, tc.Small)
		spaces := make([]fuse.Space, tc.Params)
		for j := range spaces {
			col := make(fuse.Array, len(ins))
			for i, in := range ins {
				col[i] = in[j]
			}
			spaces[j] = col
		}
		if tc.Params == 1 {
			spaces[0] = fuse.Range{Start: 0, Step: 1, N: 40}
			if !tc.Small {
				spaces[0] = fuse.Range{Start: 1, Step: 0x9e3779b97f4a7c15, N: 5000}
			}
		}
		want, bad := evalAll(f, spaces)
		for m := fuse.Map; m <= fuse.Filter; m++ {
			n := spaces[0].Len()
			opt := fuse.Options{Out: make([]uint64, n), Limit: n}
			res, err := k.Run(ctx, spaces, m, opt)
			var ie *fuse.ItemError
			first := -1
			for i, w := range want {
				if (bad < 0 || i < bad) && w != 0 {
					first = i
					break
				}
			}
			if bad >= 0 && !(m == fuse.First && first >= 0) {
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
			all := make([]uint64, n)
			spaces[0].Fill(0, all)
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
			ok := true
			switch m {
			case fuse.Map:
				for i := range want {
					ok = ok && opt.Out[i] == want[i]
				}
			case fuse.Count:
				ok = res.Count == count
			case fuse.Sum:
				ok = res.SumLo == lo && res.SumHi == hi
			case fuse.Min:
				ok = res.Value == mn
			case fuse.Max:
				ok = res.Value == mx
			case fuse.First:
				ok = res.Found == (first >= 0) && (first < 0 || res.Index == uint64(first))
			case fuse.Filter:
				ok = len(res.Items) == len(items)
				for i := range items {
					ok = ok && res.Items[i] == items[i]
				}
			}
			if !ok {
				t.Errorf("%s method %d: the GPU's result differs from Eval's: %+v", tc.Name, m, res)
			}
		}
		k.Close()
	}

	s, err := fusescript.Load("def f(x):\n    n = 0\n    while x | 1:\n        n += 1\n    return n\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	k, err := dev.FuncKernel(f)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = k.Run(cctx, []fuse.Space{fuse.Range{Step: 1, N: 1 << 20}}, fuse.Count, fuse.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an endless while: %v; want the context's deadline", err)
	}
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("an endless while stopped after %v", el)
	}
}
