//go:build linux

package cuda

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// simDevice is a devOps that runs the kernels' contract on the CPU: the
// arguments of fuse_run and fuse_run_func (docs in builtins/fuse/cgen's
// CUDASource and FuncCUDASource), items computed by item. It checks the
// launcher's use of memory: sizes, frees, leaks.
type simDevice struct {
	item      func(params []uint64) (r uint64, failed bool)
	params    int
	perItem   time.Duration // a slow card: each item takes this long
	failAt    int           // launch number (from 1) that fails; 0 none
	stateSize uint64        // fuse_run_func: the least bytes of the states

	mu       sync.Mutex
	mem      map[uint64][]uint64
	next     uint64
	launches int
	stopDev  uint64
	stopped  atomic.Bool
	errs     []string
}

func newSim(params int, item func([]uint64) (uint64, bool)) *simDevice {
	return &simDevice{item: item, params: params, mem: map[uint64][]uint64{}, next: 0x10000}
}

func (s *simDevice) fail(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func (s *simDevice) alloc(size uint64) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if size == 0 || size%8 != 0 {
		s.fail("alloc of %d bytes", size)
	}
	p := s.next
	s.next += (size + 0xfff) &^ 0xfff
	s.mem[p] = make([]uint64, size/8)
	return p, nil
}

func (s *simDevice) free(p uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.mem[p]; !ok {
		s.fail("free of %#x, not allocated", p)
	}
	delete(s.mem, p)
}

func (s *simDevice) words(p uint64, n int, what string) []uint64 {
	w, ok := s.mem[p]
	if !ok || len(w) < n {
		s.fail("%s of %d words at %#x: %d allocated", what, n, p, len(w))
		return make([]uint64, n)
	}
	return w
}

func (s *simDevice) upload(p uint64, ws []uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	copy(s.words(p, len(ws), "upload"), ws)
	return nil
}

func (s *simDevice) download(p uint64, ws []uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	copy(ws, s.words(p, len(ws), "download"))
	return nil
}

func (s *simDevice) memset0(p, size uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.words(p, int(size/8), "memset")[:size/8])
	return nil
}

func (s *simDevice) stopFlag() (uint64, func(), func(), error) {
	p, _ := s.alloc(8)
	s.mu.Lock()
	s.stopDev = p
	s.mu.Unlock()
	s.stopped.Store(false)
	return p, func() { s.stopped.Store(true) }, func() { s.free(p) }, nil
}

// launch runs the kernel: fn 1 is fuse_run (11 arguments), fn 2 is
// fuse_run_func (14: the states, the tables and the stop flag after).
func (s *simDevice) launch(fn uintptr, grid, block uint32, args []uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launches++
	if s.launches == s.failAt {
		return fmt.Errorf("gpu: cuLaunchKernel: an illegal memory access was encountered")
	}
	want := map[uintptr]int{1: 11, 2: 14}[fn]
	if len(args) != want {
		s.fail("kernel %d launched with %d arguments, want %d", fn, len(args), want)
		return nil
	}
	method, kind, start, step := fuse.Method(args[0]), args[1], args[2], args[3]
	base, n, out, acc := args[7], args[8], args[9], args[10]
	var cols [3][]uint64
	for j := 0; j < 3; j++ {
		if args[4+j] != 0 {
			cols[j] = s.words(args[4+j], int(n), "parameter array")
		}
	}
	if kind == cgen.KindArray && cols[0] == nil || kind == cgen.KindRange && cols[0] != nil {
		s.fail("kind %d with array %#x", kind, args[4])
	}
	var res []uint64
	if out != 0 {
		res = s.words(out, int(n), "results")
	}
	if (method == fuse.Map || method == fuse.Filter) != (out != 0) {
		s.fail("method %d with results at %#x", method, out)
	}
	ac := s.words(acc, cgen.AccWords, "accumulator")
	stop := false
	if fn == 2 {
		if args[11] != 0 {
			s.words(args[11], int(s.stateSize/8), "states")
			if need := uint64(grid) * uint64(block); need == 0 {
				s.fail("an empty grid")
			}
		}
		stop = args[13] == s.stopDev && args[13] != 0
		if !stop {
			s.fail("the stop flag %#x is not the one made", args[13])
		}
	}
	params := make([]uint64, s.params)
	for i := uint64(0); i < n; i++ {
		if stop && s.stopped.Load() {
			return nil // the kernel ends part way
		}
		if s.perItem > 0 {
			s.mu.Unlock()
			time.Sleep(s.perItem)
			s.mu.Lock()
		}
		pos := base + i
		if fn == 2 && method == fuse.First && pos > ac[cgen.AccFirst] {
			break
		}
		for j := range params {
			switch {
			case j == 0 && kind == cgen.KindRange:
				params[j] = start + pos*step
			case cols[j] != nil:
				params[j] = cols[j][i]
			default:
				s.fail("parameter %d has no array", j)
			}
		}
		r, failed := s.item(params)
		if failed {
			ac[cgen.AccErr] = min(ac[cgen.AccErr], pos)
			continue
		}
		switch method {
		case fuse.Map, fuse.Filter:
			res[i] = r
		case fuse.Count:
			if r != 0 {
				ac[cgen.AccLo]++
			}
		case fuse.Sum:
			lo := ac[cgen.AccLo] + r
			if lo < r {
				ac[cgen.AccHi]++
			}
			ac[cgen.AccLo] = lo
		case fuse.Min:
			ac[cgen.AccLo] = min(ac[cgen.AccLo], r)
		case fuse.Max:
			ac[cgen.AccLo] = max(ac[cgen.AccLo], r)
		case fuse.First:
			if r != 0 {
				ac[cgen.AccFirst] = min(ac[cgen.AccFirst], pos)
			}
		}
	}
	return nil
}

// check returns what the launcher did wrong, and the memory it left
// allocated beyond keep allocations.
func (s *simDevice) check(keep int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) > 0 {
		return fmt.Errorf("misuse of the device: %v", s.errs)
	}
	if len(s.mem) != keep {
		return fmt.Errorf("%d allocations left, want %d", len(s.mem), keep)
	}
	return nil
}

// SimStats says what the simulated device saw of a run.
type SimStats struct {
	Items  int   // items computed
	Misuse error // the launcher misused the device or left memory behind
}

// SimRunFunc runs f over the spaces through the launcher of fuse_run_func
// on a simulated device whose items Eval computes, each taking perItem.
func SimRunFunc(ctx context.Context, f *fuse.Func, spaces []fuse.Space, method fuse.Method, opt fuse.Options, perItem time.Duration) (res *fuse.Result, err error, stats SimStats) {
	st := f.NewState(nil)
	sim := newSim(len(spaces), func(p []uint64) (uint64, bool) {
		stats.Items++
		r, err := st.Eval(p)
		return r, err != nil
	})
	sim.perItem = perItem
	tab := cgen.TableWords(f)
	k := &FuncKernel{f: f, fn: 2}
	if len(tab) > 0 {
		if k.tab, err = newBuffer(sim, uint64(len(tab))*8); err != nil {
			return nil, err, stats
		}
		k.tab.upload(tab)
	}
	grid := uint64(3)
	sim.stateSize = grid * funcBlock * uint64(cgen.StateWords(f)) * 8
	res, err = k.run(ctx, sim, grid, spaces, method, opt)
	keep := 0
	if k.tab != nil {
		keep = 1
	}
	stats.Misuse = sim.check(keep)
	return res, err, stats
}
