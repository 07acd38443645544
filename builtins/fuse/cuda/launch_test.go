//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
)

// simRun shapes a run of simStraight.
type simRun struct {
	first   uint64  // items of the first launch
	stage   uint64  // items of a launch at most where items or results are copied (0: stageItems)
	mode    simMode // when the device runs queued work
	failAt  int     // the launch that fails when queued
	faultAt int     // the launch that fails when run
}

// simStraight runs p through the launcher of fuse_run on a simulated
// device: the result, the error, and what the device saw.
func simStraight(ctx context.Context, p *fuse.Line, cfg simRun, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error, SimStats) {
	cpu := block.New(p)
	sim := newSim(len(spaces), func(ps []uint64) (uint64, int) {
		r, err := cpu.Call(ps)
		if err != nil {
			return 0, simFailed
		}
		return r, simOK
	})
	sim.failAt, sim.faultAt, sim.mode = cfg.failAt, cfg.faultAt, cfg.mode
	k := &Kernel{dev: &Device{sms: 2}, prog: p, cpu: cpu, fn: 1}
	spec := k.spec()
	spec.firstSlice, spec.minSlice, spec.stage = cfg.first, 1, cfg.stage
	res, err := runSlices(ctx, sim, spec, spaces, method, opt)
	return res, err, SimStats{Misuse: sim.check(0), Launches: sim.launches, InFlight: sim.inFlight, Widest: sim.widest}
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
// spaces, in one launch and in many (pinned buffers of a few hundred
// items, queued work run lazily, ahead or eagerly); a failing item is the
// first, with its error worded on the CPU; results come in order; the
// next launch is queued before the launcher waits for one (the copies
// overlap the kernels); memory is freed.
func TestLauncherStraight(t *testing.T) {
	b := fuse.NewBuilder(1)
	x := b.Op2(fuse.OpAnd, b.Param(0), b.Const(0x2a5a5a), 0)
	popcount := b.Finish(b.Op2(fuse.OpEq, b.Op1(fuse.OpPopcount, x, 0), b.Const(3), 0))
	b = fuse.NewBuilder(2)
	sum2 := b.Finish(b.Op2(fuse.OpXor, b.Op2(fuse.OpMul, b.Param(0), b.Param(1), 0), b.Const(7), 0))
	b = fuse.NewBuilder(1)
	b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: b.Param(0), Mask: fuse.NoMask, Msg: "bsf: x = 0 has no one bit"})
	bsf := b.Finish(b.Op1(fuse.OpBsf, b.Param(0), 0))

	b = fuse.NewBuilder(1)
	nonzero := b.Finish(b.Op2(fuse.OpAnd, b.Param(0), b.Const(^uint64(0)), 0))

	arr := make(fuse.Array, 3000)
	for i := range arr {
		arr[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	// Hits every 37 items from 95: none in a first launch of 90 items,
	// several in each half of the next.
	sparse := make(fuse.Array, 3000)
	for i := 95; i < len(sparse); i += 37 {
		sparse[i] = uint64(i)
	}
	cases := []struct {
		name   string
		p      *fuse.Line
		spaces []fuse.Space
	}{
		{"range", popcount, []fuse.Space{fuse.Range{Start: 5, Step: 3, N: 6000}}},
		{"array", popcount, []fuse.Space{arr}},
		{"two spaces", sum2, []fuse.Space{fuse.Range{Start: 1, Step: 1, N: 3000}, arr}},
		{"zero late", bsf, []fuse.Space{fuse.Range{Start: 2000, Step: ^uint64(0), N: 3000}}},
		{"sparse", nonzero, []fuse.Space{sparse}},
		{"zero in array", bsf, []fuse.Space{append(append(fuse.Array{}, arr[1:2000]...), arr[:1000]...)}},
	}
	runs := []simRun{{first: 1 << 22}, {first: 700}, {first: 700, stage: 256}, {first: 700, stage: 256, mode: simAhead},
		{first: 90, stage: 1000, mode: simAhead}, {first: 700, stage: 256, mode: simEager}, {first: 90, mode: simEager}}
	for _, c := range cases {
		for m := fuse.Map; m <= fuse.Filter; m++ {
			for _, run := range runs {
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
					gres, gerr, stats := simStraight(context.Background(), c.p, run, c.spaces, m, gopt)
					if stats.Misuse != nil {
						t.Errorf("%s, method %d, %+v: %v", c.name, m, run, stats.Misuse)
					}
					if g, w := resultOf(gres, gerr, gopt.Out), resultOf(wres, werr, wopt.Out); g != w {
						t.Errorf("%s, method %d, %+v, limit %d: launcher %.200s, CPU %.200s", c.name, m, run, limit, g, w)
					}
					for i := 1; i < len(progress); i++ {
						if progress[i] <= progress[i-1] || progress[i] > int64(n) {
							t.Errorf("%s: progress %v", c.name, progress)
							break
						}
					}
					if run.first < n && gerr == nil && m != fuse.First && len(progress) < 2 {
						t.Errorf("%s, method %d, %+v: %d launches", c.name, m, run, len(progress))
					}
					if len(progress) >= 2 && stats.InFlight < 2 {
						t.Errorf("%s, method %d, %+v: the launcher waited for each launch before queuing the next", c.name, m, run)
					}
					_, isRange := c.spaces[0].(fuse.Range)
					if copied := !isRange || len(c.spaces) > 1 || m == fuse.Map || m == fuse.Filter; copied && run.stage > 0 && stats.Widest > run.stage {
						t.Errorf("%s, method %d, %+v: a launch of %d items, more than the pinned buffers hold", c.name, m, run, stats.Widest)
					}
				}
			}
		}
	}
}

// TestLauncherErrors: a launch failing when queued or when run is the
// run's error, the work in flight waited for and the memory freed; a
// cancelled context stops the run before the next chunk.
func TestLauncherErrors(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := b.Finish(b.Op2(fuse.OpAnd, b.Param(0), b.Const(1), 0))
	arr := make(fuse.Array, 3000)
	for _, at := range []int{1, 2, 3} {
		// Failing when queued (cuLaunchKernel's status), or when run (the
		// next wait reports it): the error of the run, everything freed.
		for _, run := range []simRun{{first: 500, failAt: at}, {first: 500, faultAt: at}, {first: 500, faultAt: at, mode: simAhead}, {first: 500, faultAt: at, mode: simEager}} {
			_, err, stats := simStraight(context.Background(), p, run, []fuse.Space{arr}, fuse.Map, fuse.Options{Out: make([]uint64, 3000)})
			want := "cuLaunchKernel"
			if run.faultAt > 0 {
				want = "cuStreamSynchronize"
			}
			if err == nil || !strings.Contains(err.Error(), want) || stats.Misuse != nil {
				t.Errorf("%+v: err %v, misuse %v", run, err, stats.Misuse)
			}
		}
	}
	// Cancelled after two chunks are read, over a range and over an array
	// (copied): the context's error, at most the two chunks in flight
	// then run, everything waited for and freed.
	big := make(fuse.Array, 1<<16)
	for _, space := range []fuse.Space{fuse.Range{Step: 1, N: 1 << 20}, big} {
		for _, mode := range []simMode{simLazy, simAhead, simEager} {
			ctx, cancel := context.WithCancel(context.Background())
			n := 0
			opt := fuse.Options{Progress: func(int64, int64) {
				if n++; n == 2 {
					cancel()
				}
			}}
			_, err, stats := simStraight(ctx, p, simRun{first: 500, stage: 1000, mode: mode}, []fuse.Space{space}, fuse.Count, opt)
			if !errors.Is(err, context.Canceled) || stats.Misuse != nil || n != 2 || stats.Launches > 4 {
				t.Errorf("%T, mode %d, cancelled after 2 chunks: err %v, misuse %v, %d chunks read, %d queued", space, mode, err, stats.Misuse, n, stats.Launches)
			}
			cancel()
		}
	}
}

// TestFill: the host's part of a chunk, split between workers, writes the
// items Fill writes, for ranges, arrays and subsets, at and around the
// sizes where it splits.
func TestFill(t *testing.T) {
	arr := make(fuse.Array, 300000)
	for i := range arr {
		arr[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	subsets := fuse.Subsets{D: 0xff00ff, K: -1, N: 1 << 16, Seek: func(i uint64) uint64 { return pdepLow(i, 0xff00ff) }}
	for _, s := range []fuse.Space{fuse.Range{Start: 7, Step: 3, N: 1 << 40}, arr, subsets} {
		for _, n := range []int{0, 1, 1<<16 - 1, 1 << 16, 1<<16 + 1, 3<<16 + 5, 200000} {
			base := uint64(11)
			if uint64(n)+base > s.Len() {
				continue
			}
			want := make([]uint64, n)
			s.Fill(base, want)
			for _, workers := range []int{0, 1, 2, 3, 8} {
				got := make([]uint64, n)
				fill(s, base, got, workers)
				if !slices.Equal(got, want) {
					t.Fatalf("%T, %d items, %d workers: not Fill's items", s, n, workers)
				}
			}
		}
	}
}

// pdepLow deposits the low bits of i into the one bits of d (the i-th
// subset of d in the carry rippler's order).
func pdepLow(i, d uint64) uint64 {
	var r uint64
	for b := d; b != 0; b &= b - 1 {
		if i&1 != 0 {
			r |= b & -b
		}
		i >>= 1
	}
	return r
}
