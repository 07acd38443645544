package fuse

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/subset"
)

// A Space is an indexed sequence of items that can be generated from any
// index, so that workers generate their parts straight into their blocks.
type Space interface {
	Len() uint64
	// Fill writes items start, start+1, ... into dst.
	Fill(start uint64, dst []uint64)
}

// Array is a space of words in memory.
type Array []uint64

// Len returns the number of words.
func (a Array) Len() uint64 { return uint64(len(a)) }

// Fill copies words.
func (a Array) Fill(start uint64, dst []uint64) { copy(dst, a[start:]) }

// Range is the space start, start+step, ... (N items, wrapping mod 2^64).
type Range struct{ Start, Step, N uint64 }

// Len returns N.
func (r Range) Len() uint64 { return r.N }

// Fill generates the items.
func (r Range) Fill(start uint64, dst []uint64) {
	x := r.Start + start*r.Step
	if r.Step == 1 {
		for i := range dst {
			dst[i] = x + uint64(i)
		}
		return
	}
	for i := range dst {
		dst[i] = x + uint64(i)*r.Step
	}
}

// Subsets is the space of the subsets of D in ascending order, by the carry
// rippler; Seek(i) is item i (the i-th subset), N the number of items.
// With K >= 0 it is the subsets of K bits, in the snoob order.
type Subsets struct {
	D    uint64
	K    int
	N    uint64
	Seek func(i uint64) uint64
}

// Len returns N.
func (s Subsets) Len() uint64 { return s.N }

// Fill generates the items from Seek(start).
func (s Subsets) Fill(start uint64, dst []uint64) {
	x := s.Seek(start)
	d := s.D
	if s.K < 0 {
		for i := range dst {
			dst[i] = x
			x = (x - d) & d
		}
		return
	}
	for i := range dst {
		dst[i] = x
		if i+1 < len(dst) {
			x, _ = subset.Snoob(x, d)
		}
	}
}

// Method is what a run computes.
type Method int

// The methods of a fused value over a space.
const (
	Map    Method = iota // every result, into Options.Out
	Count                // how many results are non-zero
	Sum                  // the exact sum of the results
	Min                  // the least result
	Max                  // the greatest result
	First                // the first item (in order) with a non-zero result
	Filter               // every such item, in order
)

// Options tune a run.
type Options struct {
	Workers  int
	Progress func(done, total int64) // called now and then; may be nil
	Out      []uint64                // Map: the results, len == space length
	Limit    uint64                  // Filter: more items than this is an error
}

// Result is what a run found.
type Result struct {
	Count        uint64 // Count
	SumHi, SumLo uint64 // Sum: the 128-bit total
	Value        uint64 // Min, Max
	Found        bool   // First: whether an item was found; Min, Max: whether the space is non-empty
	Index        uint64 // First: the item's index
	Items        []uint64
}

// ItemError is a check that failed on an item.
type ItemError struct {
	Index  uint64   // the item's position in the space
	Params []uint64 // its parameter values
	Check  *Check
	Value  uint64 // of a Func: the offending word (an index out of range, ...)
	Valued bool   // Value is known (a Func's failure)
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("%d:%d: %s (item %d of the space, %#x)", e.Check.Line, e.Check.Col, e.Check.Msg, e.Index, e.Params[0])
}

// LimitError says a filter found more than Limit items.
type LimitError struct{ Limit uint64 }

func (e *LimitError) Error() string { return fmt.Sprintf("more than limit = %d items", e.Limit) }

type taskOut struct {
	count        uint64
	sumHi, sumLo uint64
	val          uint64
	any          bool
	hit          int64 // first: lowest hit index, or -1
}

// A SpaceWorker computes blocks of items on one goroutine for RunSpaces:
// the block executor's machine for a Line (package builtins/fuse/block),
// or a FlowWorker for a Func.
type SpaceWorker interface {
	// Size is the most items a block holds.
	Size() int
	// Run computes items [b, b+k) of the spaces. res holds their results
	// up to the first that fails (fail >= 0, with err an *ItemError whose
	// Index and Params the caller fills), or with First up to the first
	// non-zero one inclusive. When counted, count is the Count of those
	// results, which res then need not hold.
	Run(spaces []Space, b uint64, k int, method Method, opt *Options) (res []uint64, count uint64, counted bool, fail int, err error)
	// Param returns parameter i of the items of the last block.
	Param(i int) []uint64
	Close()
}

// A FlowWorker runs a Func on blocks of items in its own buffers (package
// native makes them).
type FlowWorker interface {
	// Params returns the buffer of parameter i, to fill.
	Params(i int) []uint64
	// Run computes the first n items of the buffers; with first, it stops
	// after the first non-zero result. It returns how many it computed and
	// their results; err is a *FlowError for item done, or ErrStopped.
	Run(n int, first bool) (done int, res []uint64, err error)
	Close()
}

// A RangeWorker is a FlowWorker that can compute a parameter that is a
// Range itself, sparing the parameter block: Affine makes parameter i of
// item j of the next runs base + j*step (on), or read from its block again
// (!on), and reports whether it does.
type RangeWorker interface {
	Affine(i int, on bool, base, step uint64) bool
}

// A CountWorker is a FlowWorker that can count results itself: Count runs
// the first n items as Run does and returns how many it computed and how
// many of their results are not 0.
type CountWorker interface {
	Count(n int) (done int, count uint64, err error)
}

type flowWorker struct {
	f      *Func
	w      FlowWorker
	n      int
	bufs   [][]uint64
	affine []bool   // parameter i is computed by the worker: base[i] + j*step[i]
	base   []uint64 // of the current block
	step   []uint64
}

func (w *flowWorker) Size() int            { return w.n }
func (w *flowWorker) Param(i int) []uint64 { return w.bufs[i] }
func (w *flowWorker) Close()               { w.w.Close() }

func (w *flowWorker) Run(spaces []Space, b uint64, k int, method Method, _ *Options) ([]uint64, uint64, bool, int, error) {
	rw, _ := w.w.(RangeWorker)
	for i, s := range spaces {
		// Filter reads the items of parameter 0 back from its block.
		if r, ok := s.(Range); ok && rw != nil && !(method == Filter && i == 0) {
			w.base[i], w.step[i] = r.Start+b*r.Step, r.Step
			if w.affine[i] = rw.Affine(i, true, w.base[i], r.Step); w.affine[i] {
				continue
			}
		} else if w.affine[i] {
			w.affine[i] = !rw.Affine(i, false, 0, 0)
		}
		s.Fill(b, w.bufs[i][:k])
	}
	var (
		done    int
		res     []uint64
		cnt     uint64
		counted bool
		err     error
	)
	if cw, ok := w.w.(CountWorker); ok && method == Count {
		done, cnt, err = cw.Count(k)
		counted = true
	} else {
		done, res, err = w.w.Run(k, method == First)
	}
	var fe *FlowError
	if errors.As(err, &fe) {
		// The error names the item's parameters: write those the worker
		// computed.
		for i, on := range w.affine {
			if on {
				w.bufs[i][done] = w.base[i] + uint64(done)*w.step[i]
			}
		}
		if !counted {
			res = res[:done]
		}
		return res, cnt, counted, done, &ItemError{Check: &w.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	if err != nil {
		return nil, 0, false, -1, err
	}
	return res, cnt, counted, -1, nil
}

// RunFunc applies f to every item of the spaces as RunSpaces does, with
// workers that newWorker makes (poll, called now and then inside long
// items, returns true when the worker's run must stop) holding blocks of
// size items.
func RunFunc(ctx context.Context, f *Func, spaces []Space, method Method, opt Options, size int,
	newWorker func(poll func() bool) (FlowWorker, error)) (*Result, error) {
	// An item of a function that recurses may be a whole subtree, and
	// subtrees differ wildly in size: hand out small tasks, down to one
	// item, so that every worker stays busy to the end.
	minTask := TaskGrain
	if len(f.Procs) > 0 {
		minTask = 1
	}
	return RunSpaces(ctx, spaces, method, opt, 4*size, minTask, func(poll func() bool) (SpaceWorker, error) {
		w, err := newWorker(poll)
		if err != nil {
			return nil, err
		}
		fw := &flowWorker{f: f, w: w, n: size, affine: make([]bool, f.Params), base: make([]uint64, f.Params),
			step: make([]uint64, f.Params)}
		for i := 0; i < f.Params; i++ {
			fw.bufs = append(fw.bufs, w.Params(i))
		}
		return fw, nil
	})
}

// TaskGrain is the fewest items a task of RunSpaces holds, unless its
// minTask is smaller (the items of a function that recurses).
const TaskGrain = 256

// RunSpaces applies a function to every item of the spaces (one per
// parameter, all of the same length; spaces[0] is the space, the others
// feed the further parameters) with method, on opt.Workers goroutines, each
// with a SpaceWorker that newWorker makes (poll, called now and then inside
// long items, returns true when the worker's run must stop). It hands out
// tasks of at most maxTask items at a time (and at least minTask, where
// there are fewer than 64 tasks a worker, smaller ones), and polls ctx
// between blocks. The answer does not depend on the number of workers:
// First, Filter and errors follow the space's order.
func RunSpaces(ctx context.Context, spaces []Space, method Method, opt Options, maxTask, minTask int,
	newWorker func(poll func() bool) (SpaceWorker, error)) (*Result, error) {
	n := spaces[0].Len()
	for _, s := range spaces[1:] {
		if s.Len() != n {
			return nil, fmt.Errorf("spaces of different lengths (%d and %d)", n, s.Len())
		}
	}
	workers := max(opt.Workers, 1)
	task := uint64(maxTask)
	per := n / uint64(workers*8)
	if minTask < TaskGrain {
		per = n / uint64(workers*64)
	}
	if min := uint64(minTask); per < task {
		task = max(min, (per+min-1)/min*min)
	}
	ntasks := (n + task - 1) / task
	if uint64(workers) > ntasks {
		workers = int(max(ntasks, 1))
	}

	var (
		next    atomic.Uint64
		cutoff  atomic.Uint64 // tasks above it need not run (first hit or error)
		stop    atomic.Bool
		done    atomic.Int64
		found   atomic.Uint64 // filter: items so far
		mu      sync.Mutex
		errIdx  = ^uint64(0)
		errOut  *ItemError
		runErr  error
		outs    []taskOut // per worker
		filters = map[uint64][]uint64{}
		passed  = map[uint64][]uint64{} // filter: the indices of each task's items
	)
	cutoff.Store(^uint64(0))
	lowerCutoff := func(t uint64) {
		for {
			c := cutoff.Load()
			if t >= c || cutoff.CompareAndSwap(c, t) {
				return
			}
		}
	}
	ctxDone := make(chan struct{})
	defer close(ctxDone)
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-ctxDone:
		}
	}()

	outs = make([]taskOut, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var t uint64
			// A long item polls: it stops when the run stops or a first
			// hit or an error before its task ends the run.
			wk, err := newWorker(func() bool { return stop.Load() || t > cutoff.Load() })
			if err != nil {
				mu.Lock()
				runErr = err
				mu.Unlock()
				stop.Store(true)
				return
			}
			defer wk.Close()
			bs := uint64(wk.Size())
			o := &outs[w]
			o.hit = -1
			if method == Min {
				o.val = ^uint64(0)
			}
			for !stop.Load() {
				t = next.Add(1) - 1
				if t >= ntasks || t > cutoff.Load() {
					return
				}
				lo, hi := t*task, min((t+1)*task, n)
				var items, idxs []uint64
				for b := lo; b < hi && !stop.Load() && t <= cutoff.Load(); b += bs {
					k := min(bs, hi-b)
					res, cnt, counted, fail, err := wk.Run(spaces, b, int(k), method, &opt)
					if err != nil && fail < 0 {
						if !errors.Is(err, ErrStopped) {
							mu.Lock()
							runErr = err
							mu.Unlock()
							stop.Store(true)
						}
						break
					}
					hitLane := -1
					switch method {
					case Map:
						if len(res) > 0 && &res[0] != &opt.Out[b] {
							copy(opt.Out[b:], res)
						}
					case Count:
						if !counted {
							for _, r := range res {
								cnt += (r | -r) >> 63
							}
						}
						o.count += cnt
					case Sum:
						lo, hi := o.sumLo, o.sumHi
						for _, r := range res {
							var cy uint64
							lo, cy = bits.Add64(lo, r, 0)
							hi += cy
						}
						o.sumLo, o.sumHi = lo, hi
					case Min:
						v := o.val
						for _, r := range res {
							v = min(v, r)
						}
						o.val = v
						o.any = o.any || len(res) > 0
					case Max:
						v := o.val
						for _, r := range res {
							v = max(v, r)
						}
						o.val = v
						o.any = o.any || len(res) > 0
					case First:
						if len(res) > 0 && res[len(res)-1] != 0 {
							hitLane = len(res) - 1
						}
					case Filter:
						p0 := wk.Param(0)
						before := len(items)
						for i, r := range res {
							if r != 0 {
								items = append(items, p0[i])
								idxs = append(idxs, b+uint64(i))
							}
						}
						// More than Limit items so far: the item that
						// passes the limit (in the spaces' order) is in a
						// task handed out by now, so no later task runs.
						if added := uint64(len(items) - before); added > 0 && found.Add(added) > opt.Limit {
							lowerCutoff(next.Load() - 1)
						}
					}
					if hitLane >= 0 {
						o.hit = int64(b) + int64(hitLane)
						lowerCutoff(t)
						break
					}
					if fail >= 0 {
						idx := b + uint64(fail)
						ie := err.(*ItemError)
						ie.Index = idx
						for i := range spaces {
							ie.Params = append(ie.Params, wk.Param(i)[fail])
						}
						mu.Lock()
						if idx < errIdx {
							errIdx = idx
							errOut = ie
						}
						mu.Unlock()
						lowerCutoff(t)
						break
					}
				}
				if method == Filter && len(items) > 0 {
					mu.Lock()
					filters[t], passed[t] = items, idxs
					mu.Unlock()
				}
				if o.hit >= 0 && method == First {
					return
				}
				if opt.Progress != nil {
					opt.Progress(done.Add(int64(hi-lo)), int64(n))
				}
			}
		}(w)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, runErr
	}
	res := &Result{}
	bestHit := int64(-1)
	for _, o := range outs {
		if o.hit >= 0 && (bestHit < 0 || o.hit < bestHit) {
			bestHit = o.hit
		}
	}
	// A filter's limit and an item's error: whichever comes first in the
	// spaces' order, as one worker going through them would find. Every
	// task up to the one holding the item past the limit ran whole.
	limitAt := ^uint64(0)
	if method == Filter && found.Load() > opt.Limit {
		k := uint64(0)
	tasks:
		for t := uint64(0); t < ntasks && t <= cutoff.Load(); t++ {
			for _, i := range passed[t] {
				if k++; k > opt.Limit {
					limitAt = i
					break tasks
				}
			}
		}
	}
	if errOut != nil && (bestHit < 0 || uint64(bestHit) > errOut.Index) && errOut.Index < limitAt {
		return nil, errOut
	}
	if limitAt != ^uint64(0) {
		return nil, &LimitError{Limit: opt.Limit}
	}
	switch method {
	case Count:
		for _, o := range outs {
			res.Count += o.count
		}
	case Sum:
		for _, o := range outs {
			var cy uint64
			res.SumLo, cy = bits.Add64(res.SumLo, o.sumLo, 0)
			res.SumHi += o.sumHi + cy
		}
	case Min, Max:
		res.Value = outs[0].val
		for _, o := range outs {
			if !o.any {
				continue
			}
			if !res.Found || (method == Min && o.val < res.Value) || (method == Max && o.val > res.Value) {
				res.Value = o.val
			}
			res.Found = true
		}
	case First:
		if bestHit >= 0 {
			res.Found, res.Index = true, uint64(bestHit)
		}
	case Filter:
		keys := make([]uint64, 0, len(filters))
		total := 0
		for k, v := range filters {
			keys = append(keys, k)
			total += len(v)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		res.Items = make([]uint64, 0, total)
		for _, k := range keys {
			res.Items = append(res.Items, filters[k]...)
		}
	}
	return res, nil
}
