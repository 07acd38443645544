//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
)

// simStraight runs p through the launcher of fuse_run on a simulated
// device, with a first slice of first items.
func simStraight(ctx context.Context, p *fuse.Program, first uint64, spaces []fuse.Space, method fuse.Method, opt fuse.Options, failAt int) (*fuse.Result, error, error) {
	cpu := block.New(p)
	sim := newSim(len(spaces), func(ps []uint64) (uint64, bool) {
		r, err := cpu.Call(ps)
		return r, err != nil
	})
	sim.failAt = failAt
	k := &Kernel{dev: &Device{sms: 2}, prog: p, cpu: cpu, fn: 1}
	spec := k.spec()
	spec.firstSlice, spec.minSlice = first, 1
	res, err := runSlices(ctx, sim, spec, spaces, method, opt)
	return res, err, sim.check(0)
}

func resultOf(res *fuse.Result, err error, out []uint64) string {
	if err != nil {
		var ie *fuse.ItemError
		if errors.As(err, &ie) {
			return fmt.Sprintf("item %d fails (%v)", ie.Index, ie.Params)
		}
		return "error: " + err.Error()
	}
	return fmt.Sprint(res.Count, res.SumHi, res.SumLo, res.Value, res.Found, res.Index, res.Items, out)
}

// TestLauncherStraight: fuse_run's launcher on a simulated device gives
// the CPU executor's answers for every method over ranges, arrays and two
// spaces, in one launch and in many; a failing item is the first, with
// its error worded on the CPU; memory is freed.
func TestLauncherStraight(t *testing.T) {
	b := fuse.NewBuilder(1)
	x := b.Op2(fuse.OpAnd, b.Param(0), b.Const(0x2a5a5a), 0)
	popcount := b.Finish(b.Op2(fuse.OpEq, b.Op1(fuse.OpPopcount, x, 0), b.Const(3), 0))
	b = fuse.NewBuilder(2)
	sum2 := b.Finish(b.Op2(fuse.OpXor, b.Op2(fuse.OpMul, b.Param(0), b.Param(1), 0), b.Const(7), 0))
	b = fuse.NewBuilder(1)
	b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: b.Param(0), Mask: fuse.NoMask, Msg: "bsf: x = 0 has no one bit"})
	bsf := b.Finish(b.Op1(fuse.OpBsf, b.Param(0), 0))

	arr := make(fuse.Array, 3000)
	for i := range arr {
		arr[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	cases := []struct {
		name   string
		p      *fuse.Program
		spaces []fuse.Space
	}{
		{"range", popcount, []fuse.Space{fuse.Range{Start: 5, Step: 3, N: 6000}}},
		{"array", popcount, []fuse.Space{arr}},
		{"two spaces", sum2, []fuse.Space{fuse.Range{Start: 1, Step: 1, N: 3000}, arr}},
		{"zero late", bsf, []fuse.Space{fuse.Range{Start: 2000, Step: ^uint64(0), N: 3000}}},
		{"zero in array", bsf, []fuse.Space{append(append(fuse.Array{}, arr[1:2000]...), arr[:1000]...)}},
	}
	for _, c := range cases {
		for m := fuse.Map; m <= fuse.Filter; m++ {
			for _, first := range []uint64{1 << 22, 700} {
				for _, limit := range []uint64{1 << 27, 100} {
					if limit != 1<<27 && m != fuse.Filter {
						continue
					}
					n := c.spaces[0].Len()
					wopt := fuse.Options{Workers: 2, Limit: limit}
					gopt := fuse.Options{Workers: 2, Limit: limit}
					if m == fuse.Map {
						wopt.Out, gopt.Out = make([]uint64, n), make([]uint64, n)
					}
					var progress []int64
					gopt.Progress = func(done, total int64) {
						if total != int64(n) {
							t.Errorf("progress total %d, want %d", total, n)
						}
						progress = append(progress, done)
					}
					wres, werr := block.New(c.p).Run(context.Background(), c.spaces, m, wopt)
					gres, gerr, misuse := simStraight(context.Background(), c.p, first, c.spaces, m, gopt, 0)
					if misuse != nil {
						t.Errorf("%s, method %d, first slice %d: %v", c.name, m, first, misuse)
					}
					if g, w := resultOf(gres, gerr, gopt.Out), resultOf(wres, werr, wopt.Out); g != w {
						t.Errorf("%s, method %d, first slice %d, limit %d: launcher %.200s, CPU %.200s", c.name, m, first, limit, g, w)
					}
					for i := 1; i < len(progress); i++ {
						if progress[i] <= progress[i-1] || progress[i] > int64(n) {
							t.Errorf("%s: progress %v", c.name, progress)
							break
						}
					}
					if first == 700 && gerr == nil && m != fuse.First && len(progress) < 2 {
						t.Errorf("%s, method %d: %d launches with a first slice of 700 items", c.name, m, len(progress))
					}
				}
			}
		}
	}
}

// TestLauncherErrors: a failing launch is the run's error, the memory
// freed; a cancelled context stops the run before the next launch.
func TestLauncherErrors(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := b.Finish(b.Op2(fuse.OpAnd, b.Param(0), b.Const(1), 0))
	arr := make(fuse.Array, 3000)
	for _, failAt := range []int{1, 3} {
		_, err, misuse := simStraight(context.Background(), p, 500, []fuse.Space{arr}, fuse.Map, fuse.Options{Out: make([]uint64, 3000)}, failAt)
		if err == nil || !strings.Contains(err.Error(), "cuLaunchKernel") || misuse != nil {
			t.Errorf("launch %d failing: err %v, misuse %v", failAt, err, misuse)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	opt := fuse.Options{Progress: func(int64, int64) {
		if n++; n == 2 {
			cancel()
		}
	}}
	_, err, misuse := simStraight(ctx, p, 500, []fuse.Space{fuse.Range{Step: 1, N: 1 << 20}}, fuse.Count, opt, 0)
	if !errors.Is(err, context.Canceled) || misuse != nil || n != 2 {
		t.Errorf("cancelled after 2 launches: err %v, misuse %v, %d launches", err, misuse, n)
	}
}
