//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// devOps are the driver calls a run makes: the CUDA driver's (Device,
// stream.go) on a card, a simulation in the tests, which check the
// launcher on machines without a GPU. A run's items and results cross the
// bus through pinned host memory and streams, so that the copies run at
// the bus's bandwidth and overlap the kernels; the synchronous copies serve
// the set-up (tables, the accumulator's first value) and the final read.
type devOps interface {
	alloc(size uint64) (uint64, error)
	free(p uint64)
	// upload and download copy between device memory and any host
	// memory, and wait.
	upload(p uint64, ws []uint64) error
	download(p uint64, ws []uint64) error
	memset0(p, size uint64) error
	// hostAlloc returns words of pinned (page-locked) host memory, which
	// the card copies at the bus's bandwidth while the host goes on;
	// hostFree gives it back.
	hostAlloc(words uint64) ([]uint64, error)
	hostFree(ws []uint64)
	// newStream makes an in-order queue of copies and launches.
	newStream() (stream, error)
	// stopFlag is an int in host memory that the card reads while a
	// kernel runs: dev is its address on the device, set raises it.
	stopFlag() (dev uint64, set func(), release func(), err error)
}

// stream is an in-order queue of work on the device (a CUDA stream):
// queuing returns at once, sync waits. The host memory of uploadAsync and
// downloadAsync is pinned (hostAlloc), and is neither written (upload) nor
// read (download) until sync has returned.
type stream interface {
	uploadAsync(p uint64, ws []uint64) error
	downloadAsync(p uint64, ws []uint64) error
	// launchAsync queues fn on a grid of blocks of block threads with the
	// words of args as its arguments (copied now), to start once the
	// last launch queued on after so far has ended (after nil: no wait).
	launchAsync(fn uintptr, grid, block uint32, args []uint64, after stream) error
	// sync waits for the work queued and returns its first error.
	sync() error
	// close frees the stream, synced.
	close()
}

// launchSpec is what differs between the kernels of straight lines
// (fuse_run) and of searches (fuse_run_func).
type launchSpec struct {
	fn         uintptr
	grid       uint32
	block      uint32
	extra      func() []uint64 // the arguments after the accumulator (none for fuse_run)
	firstSlice uint64          // items of the first launch; then sized to ~20 ms
	minSlice   uint64
	stage      uint64 // items of a launch at most where items or results are copied; 0: stageItems
	stoppable  bool   // the kernel polls a stop flag (its argument after extra), raised when ctx ends
	itemError  func(spaces []fuse.Space, pos uint64) error
	// deepArg: the kernel's last argument is the record of the items it
	// leaves to the CPU (cgen.DeepWords words a launch; fuse_run_func).
	// handBack, where not nil, runs such items on the CPU (over arrays
	// of their parameters, with Map or First, as fuse.RunFunc does); nil:
	// the kernel leaves none, and the argument is 0.
	deepArg  bool
	handBack func(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)
}

// stageItems bounds the items of a launch whose items or results are
// copied: each of its pinned buffers (one per array and one for the
// results, in each of two sets) holds 2^20 words, 8 MiB, about 0.2 ms of
// a PCIe 5 bus: small enough that the first chunk, which nothing hides,
// costs little, large enough that a chunk's fixed costs (a wait, a launch,
// the goroutines that fill it) stay a few percent.
const stageItems = 1 << 20

// sliceTime is the time a launch aims at, well inside the 100 ms that
// cancellation allows (two launches are in flight at most).
const sliceTime = 20 * time.Millisecond

// runSlices computes method over the spaces on the device, with the
// answers of the CPU executor: launches of spec's kernel over consecutive
// chunks of the space, sized to take ~20 ms each, in a pipeline of two
// streams so that the host's work and the copies of one chunk overlap the
// kernel of the one before (pipeline). Ranges are generated on the card;
// other spaces are generated on the host into pinned buffers and copied.
// ctx is polled between chunks, and during a launch where the kernel
// watches a stop flag.
func runSlices(ctx context.Context, ops devOps, spec launchSpec, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (res *fuse.Result, err error) {
	if spec.stage == 0 {
		spec.stage = stageItems
	}
	p := &pipeline{ops: ops, spec: spec, spaces: spaces, method: method, opt: opt, res: &fuse.Result{}}
	defer func() {
		if cerr := p.close(); err == nil && cerr != nil {
			res, err = nil, cerr
		}
	}()
	if err := p.open(ctx); err != nil {
		return nil, err
	}
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	return p.res, nil
}

// pipeline is a run on the device. Chunks of the space alternate between
// two sets of buffers, each with its own stream: while the card runs the
// kernel of chunk i, the host fills chunk i+1's pinned buffers and the
// card copies them in. A chunk's stream waits for the other's last kernel
// before its own, so that the kernels run one after the other and in
// order (a search's per-thread states are shared). After its kernel, a
// chunk's stream copies back its results and the accumulator. Chunk i is
// read (absorbed) when its set is wanted for chunk i+2, so chunks are
// absorbed in order. The accumulator copied after kernel i holds every
// chunk up to i and maybe part of chunk i+1: a failing item or a hit at
// or past chunk i's end is left for the chunk it belongs to, and one
// before it is the first of the space, every item before it having run.
type pipeline struct {
	ops    devOps
	spec   launchSpec
	spaces []fuse.Space
	method fuse.Method
	opt    fuse.Options
	res    *fuse.Result

	n       uint64
	rng     fuse.Range // spaces[0], where it is a range (generated on the card)
	isRange bool
	needOut bool   // map and filter copy each result back
	cap     uint64 // items of a launch at most
	acc     *buffer
	extra   []uint64
	stop    func() // raises the stop flag; nil where the kernel has none
	release func() // frees the stop flag
	watched chan struct{}
	sets    [2]chunkSet
	cpu     fuse.Result // what the items handed back to the CPU add to Count, Sum, Min and Max
	handed  bool        // some were
}

// chunkSet is one of the two sets of buffers of a pipeline, with the
// chunk queued on it.
type chunkSet struct {
	st       stream
	in       [3]*buffer // each copied space's items on the device; nil for a range
	out      *buffer    // the results (map, filter)
	deep     *buffer    // the items the kernel left to the CPU (spec.handBack)
	host     []uint64   // pinned: hostIn, hostOut, hostAcc and hostDeep
	hostIn   [3][]uint64
	hostOut  []uint64
	hostAcc  []uint64
	hostDeep []uint64 // the count of deep's items
	busy     bool     // a chunk is queued and not absorbed
	launched bool     // a kernel was queued on st: the other set's next waits for it
	base, m  uint64
	queued   time.Time
}

// open allocates the accumulator and starts the stop flag's watch.
func (p *pipeline) open(ctx context.Context) error {
	p.n = p.spaces[0].Len()
	p.rng, p.isRange = p.spaces[0].(fuse.Range)
	p.needOut = p.method == fuse.Map || p.method == fuse.Filter
	p.cap = ^uint64(0)
	if !p.isRange || len(p.spaces) > 1 || p.needOut || p.spec.handBack != nil {
		// Copied items or results, or a record of the items left to the
		// CPU: buffers for a launch's items.
		p.cap = max(1, min(p.n, p.spec.stage))
	}
	var err error
	if p.acc, err = newBuffer(p.ops, cgen.AccWords*8); err != nil {
		return err
	}
	init := [cgen.AccWords]uint64{cgen.AccFirst: ^uint64(0), cgen.AccErr: ^uint64(0)}
	if p.method == fuse.Min {
		init[cgen.AccLo] = ^uint64(0)
	}
	if err := p.acc.upload(init[:]); err != nil {
		return err
	}
	if p.spec.extra != nil {
		p.extra = p.spec.extra()
	}
	if p.spec.stoppable {
		// The stop flag: raised when ctx ends, read by the kernel.
		flag, set, release, err := p.ops.stopFlag()
		if err != nil {
			return err
		}
		p.stop, p.release = set, release
		p.extra = append(p.extra, flag)
		p.watched = make(chan struct{})
		go func(done <-chan struct{}) {
			select {
			case <-ctx.Done():
				set()
			case <-done:
			}
		}(p.watched)
	}
	return nil
}

// setUp makes set s's stream and buffers, when first wanted (a run of one
// chunk makes one set).
func (p *pipeline) setUp(s *chunkSet) error {
	var err error
	if s.st, err = p.ops.newStream(); err != nil {
		return err
	}
	words := uint64(cgen.AccWords)
	for i := range p.spaces {
		if i > 0 || !p.isRange {
			words += p.cap
		}
	}
	if p.needOut {
		words += p.cap
	}
	if p.spec.handBack != nil {
		words++
		if s.deep, err = newBuffer(p.ops, cgen.DeepWords(p.cap)*8); err != nil {
			return err
		}
		if err := p.ops.memset0(s.deep.p, s.deep.size); err != nil {
			return err
		}
	}
	if s.host, err = p.ops.hostAlloc(words); err != nil {
		return err
	}
	h := s.host
	for i := range p.spaces {
		if i == 0 && p.isRange {
			continue
		}
		s.hostIn[i], h = h[:p.cap:p.cap], h[p.cap:]
		if s.in[i], err = newBuffer(p.ops, p.cap*8); err != nil {
			return err
		}
	}
	if p.needOut {
		s.hostOut, h = h[:p.cap:p.cap], h[p.cap:]
		if s.out, err = newBuffer(p.ops, p.cap*8); err != nil {
			return err
		}
	}
	s.hostAcc, h = h[:cgen.AccWords:cgen.AccWords], h[cgen.AccWords:]
	if s.deep != nil {
		s.hostDeep = h[:1:1]
	}
	return nil
}

// run queues the chunks and absorbs them in order, then reads the
// accumulator.
func (p *pipeline) run(ctx context.Context) error {
	slice := p.spec.firstSlice
	var next uint64 // the first item not queued
	var lastDone time.Time
	for i := 0; ; i = 1 - i {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := &p.sets[i]
		if s.busy {
			if err := s.st.sync(); err != nil {
				return err
			}
			now := time.Now()
			if p.spec.stoppable {
				if err := ctx.Err(); err != nil {
					return err // the kernel may have stopped part way
				}
			}
			s.busy = false
			done, err := p.absorb(ctx, s)
			if err != nil || done {
				return err
			}
			if p.opt.Progress != nil {
				p.opt.Progress(int64(s.base+s.m), int64(p.n))
			}
			// The card's time for the chunk: from when it could start
			// (queued, or the chunk before done) to its end as seen here.
			start := s.queued
			if lastDone.After(start) {
				start = lastDone
			}
			lastDone = now
			if el := now.Sub(start); el > 0 {
				m := uint64(float64(s.m) * float64(sliceTime) / float64(el))
				slice = max(p.spec.minSlice, min(m, 2*slice))
			}
		}
		if next == p.n {
			if !p.sets[0].busy && !p.sets[1].busy {
				if err := finish(p.acc, p.method, p.n, p.res); err != nil {
					return err
				}
				p.addCPU()
				return nil
			}
			continue
		}
		m := min(slice, p.n-next, p.cap)
		if err := p.queue(s, &p.sets[1-i], next, m); err != nil {
			return err
		}
		next += m
	}
}

// queue fills s's pinned buffers with items [base, base+m) and queues on
// its stream their copies, the kernel (after other's) and the copies back.
func (p *pipeline) queue(s, other *chunkSet, base, m uint64) error {
	if s.st == nil {
		if err := p.setUp(s); err != nil {
			return err
		}
	}
	s.busy, s.base, s.m, s.queued = true, base, m, time.Now()
	args := append([]uint64{uint64(p.method), cgen.KindRange, p.rng.Start, p.rng.Step, 0, 0, 0, base, m, 0, p.acc.p}, p.extra...)
	for i, sp := range p.spaces {
		if s.in[i] == nil {
			continue
		}
		h := s.hostIn[i][:m]
		fill(sp, base, h, p.opt.Workers)
		if err := s.st.uploadAsync(s.in[i].p, h); err != nil {
			return err
		}
		args[4+i] = s.in[i].p
		if i == 0 {
			args[1] = cgen.KindArray
		}
	}
	if s.out != nil {
		args[9] = s.out.p
	}
	if p.spec.deepArg {
		var d uint64
		if s.deep != nil {
			d = s.deep.p
		}
		args = append(args, d)
	}
	var after stream
	if other.launched {
		after = other.st
	}
	if err := s.st.launchAsync(p.spec.fn, p.spec.grid, p.spec.block, args, after); err != nil {
		return err
	}
	s.launched = true
	if s.out != nil {
		if err := s.st.downloadAsync(s.out.p, s.hostOut[:m]); err != nil {
			return err
		}
	}
	if s.deep != nil {
		if err := s.st.downloadAsync(s.deep.p, s.hostDeep); err != nil {
			return err
		}
	}
	return s.st.downloadAsync(p.acc.p, s.hostAcc)
}

// absorb takes the chunk of s into res. done is true when First found its
// item; an item that failed is worded by itemError, unless filter's limit
// was passed before it. The items the kernel left to the CPU run there
// first (handBack): their results join the chunk's, and one that fails
// there, or First's hit there, counts where the item lies in the space.
func (p *pipeline) absorb(ctx context.Context, s *chunkSet) (done bool, err error) {
	end := s.base + s.m
	bad, first := s.hostAcc[cgen.AccErr], s.hostAcc[cgen.AccFirst]
	if bad >= end {
		bad = ^uint64(0) // none, or a later chunk's
	}
	if first >= end {
		first = ^uint64(0)
	}
	var cpuErr error // the error of the first item handed back that fails, at bad
	if s.deep != nil && s.hostDeep[0] > 0 {
		if bad, first, cpuErr, err = p.handBack(ctx, s, bad, first); err != nil {
			return false, err
		}
	}
	failed := bad != ^uint64(0) && (p.method != fuse.First || first > bad)
	if p.method == fuse.Filter {
		// The items before the failing one, in order: more than the
		// limit there is the error that comes first.
		upto := s.m
		if failed {
			upto = bad - s.base
		}
		items := make([]uint64, upto)
		p.spaces[0].Fill(s.base, items)
		for i, v := range s.hostOut[:upto] {
			if v != 0 {
				if uint64(len(p.res.Items)) >= p.opt.Limit {
					return false, &fuse.LimitError{Limit: p.opt.Limit}
				}
				p.res.Items = append(p.res.Items, items[i])
			}
		}
	}
	if failed {
		if cpuErr != nil {
			return false, cpuErr
		}
		return false, p.spec.itemError(p.spaces, bad)
	}
	if p.method == fuse.Map {
		fill(fuse.Array(s.hostOut[:s.m]), 0, p.opt.Out[s.base:end], p.opt.Workers)
	}
	if p.method == fuse.First && first != ^uint64(0) {
		p.res.Found, p.res.Index = true, first
		return true, nil
	}
	return false, nil
}

// handBack runs on the CPU the items of s's chunk that its kernel left
// (their positions read from s.deep, which is then cleared for the set's
// next chunk) before bad (the kernel's first failing item) and, under
// First, before first (the kernel's hit): Map's and Filter's results go
// to s's results, Count's, Sum's, Min's and Max's to p.cpu. It returns bad
// and first moved to a handed-back item that fails, with its error
// (cpuErr), or that is First's hit; err is an error of the device or the
// CPU's other than an item's.
func (p *pipeline) handBack(ctx context.Context, s *chunkSet, bad, first uint64) (bad2, first2 uint64, cpuErr, err error) {
	bits := make([]uint64, cgen.DeepWords(s.m))
	if err := s.deep.download(bits); err != nil {
		return bad, first, nil, err
	}
	if err := p.ops.memset0(s.deep.p, s.deep.size); err != nil {
		return bad, first, nil, err
	}
	var pos []uint64
	for i := uint64(0); i < s.m; i++ {
		if at := s.base + i; bits[1+i/64]>>(i%64)&1 != 0 && at < bad && at < first {
			pos = append(pos, at)
		}
	}
	if len(pos) == 0 {
		return bad, first, nil, nil
	}
	p.handed = true
	spaces := make([]fuse.Space, len(p.spaces))
	for j, sp := range p.spaces {
		col := make(fuse.Array, len(pos))
		one := make([]uint64, 1)
		for i, at := range pos {
			sp.Fill(at, one)
			col[i] = one[0]
		}
		spaces[j] = col
	}
	// itemAt moves an item error of the items handed back to the item's
	// position in the space.
	itemAt := func(err error) (uint64, bool) {
		var ie *fuse.ItemError
		if !errors.As(err, &ie) || ie.Index >= uint64(len(pos)) {
			return 0, false
		}
		ie.Index = pos[ie.Index]
		return ie.Index, true
	}
	if p.method == fuse.First {
		r, err := p.spec.handBack(ctx, spaces, fuse.First, fuse.Options{Workers: p.opt.Workers})
		if err != nil {
			if at, ok := itemAt(err); ok {
				return at, first, err, nil
			}
			return bad, first, nil, err
		}
		if r.Found {
			first = pos[r.Index]
		}
		return bad, first, nil, nil
	}
	vals := make([]uint64, len(pos))
	_, err = p.spec.handBack(ctx, spaces, fuse.Map, fuse.Options{Workers: p.opt.Workers, Out: vals})
	if err != nil {
		at, ok := itemAt(err)
		if !ok {
			return bad, first, nil, err
		}
		var ie *fuse.ItemError
		errors.As(err, &ie)
		k := 0
		for k < len(pos) && pos[k] < at {
			k++
		}
		if p.method == fuse.Filter && k > 0 {
			// Filter keeps the items before the failing one: their results.
			for j := range spaces {
				spaces[j] = spaces[j].(fuse.Array)[:k]
			}
			if _, err := p.spec.handBack(ctx, spaces, fuse.Map, fuse.Options{Workers: p.opt.Workers, Out: vals[:k]}); err != nil {
				return bad, first, nil, err
			}
		}
		pos, vals, bad, cpuErr = pos[:k], vals[:k], at, ie
	}
	for i, at := range pos {
		v := vals[i]
		switch p.method {
		case fuse.Map, fuse.Filter:
			s.hostOut[at-s.base] = v
		case fuse.Count:
			p.cpu.Count += fuse.Bit(v != 0)
		case fuse.Sum:
			lo := p.cpu.SumLo + v
			p.cpu.SumHi += fuse.Bit(lo < v)
			p.cpu.SumLo = lo
		case fuse.Min:
			if !p.cpu.Found || v < p.cpu.Value {
				p.cpu.Value = v
			}
			p.cpu.Found = true
		case fuse.Max:
			if !p.cpu.Found || v > p.cpu.Value {
				p.cpu.Value = v
			}
			p.cpu.Found = true
		}
	}
	return bad, first, cpuErr, nil
}

// close waits for the work still queued (raising the stop flag first, so
// that a search in flight ends soon), then frees everything; the first
// error of the waits is close's.
func (p *pipeline) close() error {
	if p.stop != nil {
		p.stop()
	}
	var first error
	for i := range p.sets {
		s := &p.sets[i]
		if s.st == nil {
			continue
		}
		if err := s.st.sync(); err != nil && first == nil {
			first = err
		}
		s.st.close()
		for _, b := range s.in {
			b.free()
		}
		s.out.free()
		s.deep.free()
		if s.host != nil {
			p.ops.hostFree(s.host)
		}
	}
	if p.watched != nil {
		close(p.watched)
	}
	if p.release != nil {
		p.release()
	}
	p.acc.free()
	return first
}

// addCPU adds what the items handed back to the CPU gave to the result.
func (p *pipeline) addCPU() {
	if !p.handed {
		return
	}
	c, r := &p.cpu, p.res
	switch p.method {
	case fuse.Count:
		r.Count += c.Count
	case fuse.Sum:
		lo := r.SumLo + c.SumLo
		r.SumHi += c.SumHi + fuse.Bit(lo < c.SumLo)
		r.SumLo = lo
	case fuse.Min:
		if c.Found {
			r.Value = min(r.Value, c.Value)
		}
	case fuse.Max:
		if c.Found {
			r.Value = max(r.Value, c.Value)
		}
	}
}

// fill writes items [base, base+len(dst)) of s into dst, split between up
// to workers goroutines where dst is large: it is the host's part of a
// chunk, which the card waits for, and one core copies memory at a
// fraction of what the bus carries.
func fill(s fuse.Space, base uint64, dst []uint64, workers int) {
	const part = 1 << 16
	k := min(max(workers, 1), (len(dst)+part-1)/part)
	if k <= 1 {
		s.Fill(base, dst)
		return
	}
	per := (len(dst) + k - 1) / k
	var wg sync.WaitGroup
	for lo := 0; lo < len(dst); lo += per {
		hi := min(lo+per, len(dst))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Fill(base+uint64(lo), dst[lo:hi])
		}()
	}
	wg.Wait()
}

// buffer is device memory.
type buffer struct {
	ops  devOps
	p    uint64
	size uint64
}

func newBuffer(ops devOps, size uint64) (*buffer, error) {
	b := &buffer{ops: ops, size: size}
	if size == 0 {
		return b, nil
	}
	p, err := ops.alloc(size)
	if err != nil {
		return nil, err
	}
	b.p = p
	return b, nil
}

func (b *buffer) free() {
	if b != nil && b.p != 0 {
		b.ops.free(b.p)
		b.p = 0
	}
}

func (b *buffer) upload(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.ops.upload(b.p, ws)
}

func (b *buffer) download(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.ops.download(b.p, ws)
}

// itemParams are the parameters of item pos of the spaces.
func itemParams(spaces []fuse.Space, pos uint64) []uint64 {
	params := make([]uint64, len(spaces))
	one := make([]uint64, 1)
	for i, s := range spaces {
		s.Fill(pos, one)
		params[i] = one[0]
	}
	return params
}

// errNotOnCPU: an item failed on the GPU but not when recomputed.
func errNotOnCPU(pos uint64) error {
	return fmt.Errorf("gpu: item %d failed on the GPU but not on the CPU", pos)
}
