//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// simDevice is a devOps that runs the kernels' contract on the CPU: the
// arguments of fuse_run and fuse_run_func (docs in builtins/fuse's
// CUDASource and FuncCUDASource), items computed by item. Its streams are
// as lazy as a device may be: queued work runs only when a sync waits for
// it (and then only what that sync needs), so a launcher that reads a
// download or rewrites an upload's host memory before its sync sees wrong
// answers; a download's host memory is poisoned when queued, an upload's
// is checked unchanged when it runs. Other modes (simMode) run some work
// sooner: a kernel part way before another stream's copy back, or a
// launch as soon as it is queued while earlier work waits, as a card may.
// It
// checks the launcher's use of memory and streams: sizes, pinned host
// memory for every asynchronous copy, kernels run in the order queued,
// nothing freed while queued work uses it, frees, leaks.
type simDevice struct {
	item      func(params []uint64) (r uint64, status int) // simOK, simFailed or simDeep
	params    int
	perItem   time.Duration // a slow card: each item takes this long
	failAt    int           // launch number (from 1) that fails when queued; 0 none
	faultAt   int           // launch number (from 1) that fails when run, reported by sync; 0 none
	stateSize uint64        // fuse_run_func: the least bytes of the states
	mode      simMode

	mu       sync.Mutex
	mem      map[uint64][]uint64
	next     uint64
	pinned   map[*uint64][]uint64 // pinned host allocations by their first word
	streams  map[*simStream]bool
	made     int    // streams made
	launches int    // launches queued
	ran      int    // kernels run
	inFlight int    // the most launches queued from the one a sync waits for on
	widest   uint64 // the most items of a launch
	stopDev  uint64
	stopped  atomic.Bool
	errs     []string
}

// The statuses of a simulated item.
const (
	simOK     = iota
	simFailed // a check failed
	simDeep   // its calls passed the depth cap: fuse_run_func leaves it to the CPU
)

func newSim(params int, item func([]uint64) (uint64, int)) *simDevice {
	return &simDevice{item: item, params: params, mem: map[uint64][]uint64{}, next: 0x10000,
		pinned: map[*uint64][]uint64{}, streams: map[*simStream]bool{}}
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
	for st := range s.streams {
		for _, op := range st.ops {
			if op.dev == p || op.kind == "launch" && containsWord(op.args, p) {
				s.fail("free of %#x while a queued %s uses it", p, op.kind)
			}
		}
	}
	delete(s.mem, p)
}

func containsWord(ws []uint64, w uint64) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
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

func (s *simDevice) hostAlloc(words uint64) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if words == 0 {
		s.fail("hostAlloc of no words")
		return nil, nil
	}
	ws := make([]uint64, words)
	s.pinned[&ws[0]] = ws
	return ws, nil
}

func (s *simDevice) hostFree(ws []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(ws) == 0 || s.pinned[&ws[0]] == nil {
		s.fail("hostFree of memory hostAlloc did not return")
		return
	}
	for st := range s.streams {
		for _, op := range st.ops {
			if op.host != nil && s.isPinned(op.host) && overlaps(op.host, ws[:cap(ws)]) {
				s.fail("hostFree while a queued %s uses the memory", op.kind)
			}
		}
	}
	delete(s.pinned, &ws[0])
}

// isPinned says whether ws lies in pinned host memory.
func (s *simDevice) isPinned(ws []uint64) bool {
	for _, p := range s.pinned {
		if overlaps(ws, p) && within(ws, p) {
			return true
		}
	}
	return false
}

func span(ws []uint64) (lo, hi uintptr) {
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(ws)))
	return lo, lo + uintptr(len(ws))*8
}

func overlaps(a, b []uint64) bool {
	alo, ahi := span(a)
	blo, bhi := span(b)
	return alo < bhi && blo < ahi
}

func within(a, b []uint64) bool {
	alo, ahi := span(a)
	blo, bhi := span(b)
	return blo <= alo && ahi <= bhi
}

func (s *simDevice) stopFlag() (uint64, func(), func(), error) {
	p, _ := s.alloc(8)
	s.mu.Lock()
	s.stopDev = p
	s.mu.Unlock()
	s.stopped.Store(false)
	return p, func() { s.stopped.Store(true) }, func() { s.free(p) }, nil
}

// simMode is when a simDevice runs queued work.
type simMode int

const (
	simLazy  simMode = iota // when a sync waits for it
	simAhead                // also: before a stream's download, the other streams' next kernel, part way
	simEager                // also: a launch on every second stream made (with what it waits for) when queued
)

// simOp is work queued on a simulated stream.
type simOp struct {
	kind     string // "upload", "download" or "launch"
	dev      uint64
	host     []uint64
	sum      uint64 // upload: a checksum of host when queued
	fn       uintptr
	grid     uint32
	block    uint32
	args     []uint64
	seq      int        // launch: its number
	begun    bool       // launch: started, its items from rest on run
	rest     uint64     // launch: the items [0, rest) not run yet
	after    *simStream // launch: the stream whose ops run first, up to afterPos
	afterPos int
}

// simStream is a stream of a simDevice.
type simStream struct {
	s          *simDevice
	id         int     // streams made before it
	ops        []simOp // queued, not run
	done       int     // ops run
	queued     int     // ops queued
	lastLaunch int     // queued count just after its last launch; 0 none
	lastSeq    int     // the number of its last launch; 0 none
	err        error   // the first error of the work run, reported by sync
	closed     bool
}

func (s *simDevice) newStream() (stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &simStream{s: s, id: s.made}
	s.made++
	s.streams[st] = true
	return st, nil
}

func wordSum(ws []uint64) uint64 {
	h := uint64(len(ws))
	for _, w := range ws {
		h = (h ^ w) * 0x100000001b3
	}
	return h
}

// enqueue checks and queues op; the caller holds s.mu.
func (st *simStream) enqueue(op simOp) {
	s := st.s
	if st.closed {
		s.fail("%s queued on a closed stream", op.kind)
	}
	if op.host != nil && !s.isPinned(op.host) {
		s.fail("asynchronous %s of %d words from host memory that is not pinned", op.kind, len(op.host))
	}
	st.ops = append(st.ops, op)
	st.queued++
}

func (st *simStream) uploadAsync(p uint64, ws []uint64) error {
	st.s.mu.Lock()
	defer st.s.mu.Unlock()
	st.s.words(p, len(ws), "upload")
	st.enqueue(simOp{kind: "upload", dev: p, host: ws, sum: wordSum(ws)})
	return nil
}

func (st *simStream) downloadAsync(p uint64, ws []uint64) error {
	st.s.mu.Lock()
	defer st.s.mu.Unlock()
	st.s.words(p, len(ws), "download")
	for i := range ws {
		ws[i] = 0x5eed_dead_beef_0000 + uint64(i) // undefined until the sync
	}
	st.enqueue(simOp{kind: "download", dev: p, host: ws})
	return nil
}

func (st *simStream) launchAsync(fn uintptr, grid, block uint32, args []uint64, after stream) error {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launches++
	if s.launches == s.failAt {
		return fmt.Errorf("gpu: cuLaunchKernel: an illegal memory access was encountered")
	}
	op := simOp{kind: "launch", fn: fn, grid: grid, block: block, args: append([]uint64(nil), args...), seq: s.launches, rest: args[8]}
	if a, ok := after.(*simStream); ok && a != nil {
		op.after, op.afterPos = a, a.lastLaunch
	}
	st.enqueue(op)
	st.lastLaunch, st.lastSeq = st.queued, op.seq
	if s.mode == simEager && st.id%2 == 1 {
		s.runTo(st, st.queued)
	}
	return nil
}

func (st *simStream) sync() error {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.lastSeq > 0 {
		s.inFlight = max(s.inFlight, s.launches-st.lastSeq+1)
	}
	s.runTo(st, st.queued)
	return st.err
}

func (st *simStream) close() {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(st.ops) > 0 {
		s.fail("a stream closed with %d operations queued", len(st.ops))
	}
	st.closed = true
	delete(s.streams, st)
}

// runTo runs st's queued work until pos operations have run, with the
// work each waits for; the caller holds s.mu.
func (s *simDevice) runTo(st *simStream, pos int) {
	for st.done < pos && len(st.ops) > 0 {
		op := st.ops[0]
		st.ops = st.ops[1:]
		st.done++
		if op.after != nil {
			s.runTo(op.after, op.afterPos)
		}
		if s.mode == simAhead && op.kind == "download" {
			for o := range s.streams {
				if o != st {
					s.runAhead(o)
				}
			}
		}
		s.exec(st, &op)
	}
}

// runAhead runs o's uploads up to its next launch, and the later half of
// that launch's items: a kernel part way through; the caller holds s.mu.
func (s *simDevice) runAhead(o *simStream) {
	for len(o.ops) > 0 && o.ops[0].kind == "upload" {
		s.runTo(o, o.done+1)
	}
	if len(o.ops) == 0 || o.ops[0].kind != "launch" || o.ops[0].begun || o.err != nil {
		return
	}
	op := &o.ops[0]
	if op.after != nil {
		s.runTo(op.after, op.afterPos)
	}
	s.begin(op)
	if op.seq == s.faultAt {
		return
	}
	n := op.args[8]
	op.rest = n / 2
	s.kernel(op.fn, op.grid, op.block, op.args, n/2, n)
}

// exec runs one operation; the caller holds s.mu.
func (s *simDevice) exec(st *simStream, op *simOp) {
	if st.err != nil {
		return // a stream's work after a fault does not run
	}
	switch op.kind {
	case "upload":
		if wordSum(op.host) != op.sum {
			s.fail("the host rewrote pinned memory while its upload was queued")
		}
		copy(s.words(op.dev, len(op.host), "upload"), op.host)
	case "download":
		copy(op.host, s.words(op.dev, len(op.host), "download"))
	case "launch":
		if !op.begun {
			s.begin(op)
		}
		if op.seq == s.faultAt {
			st.err = fmt.Errorf("gpu: cuStreamSynchronize: an illegal memory access was encountered")
			return
		}
		s.kernel(op.fn, op.grid, op.block, op.args, 0, op.rest)
	}
}

// begin counts a kernel as started, checking the order; the caller holds
// s.mu.
func (s *simDevice) begin(op *simOp) {
	op.begun = true
	s.ran++
	if op.seq != s.ran {
		s.fail("kernel %d started as the %dth: kernels not in the order queued", op.seq, s.ran)
	}
}

// kernel runs items [lo, hi) of a kernel: fn 1 is fuse_run (11
// arguments), fn 2 is fuse_run_func (15: the states, the tables, the stop
// flag and the record of the items left to the CPU after). The caller
// holds s.mu.
func (s *simDevice) kernel(fn uintptr, grid, block uint32, args []uint64, lo, hi uint64) {
	want := map[uintptr]int{1: 11, 2: 15}[fn]
	if len(args) != want {
		s.fail("kernel %d launched with %d arguments, want %d", fn, len(args), want)
		return
	}
	method, kind, start, step := fuse.Method(args[0]), args[1], args[2], args[3]
	base, n, out, acc := args[7], args[8], args[9], args[10]
	s.widest = max(s.widest, n)
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
	if hi > n {
		hi = n
	}
	for i := lo; i < hi; i++ {
		if stop && s.stopped.Load() {
			return // the kernel ends part way
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
		r, status := s.item(params)
		if status == simDeep {
			if fn != 2 || args[14] == 0 {
				s.fail("item %d passed the depth cap with no record for the CPU", pos)
				continue
			}
			d := s.words(args[14], int(cgen.DeepWords(n)), "the record of the items left to the CPU")
			d[0]++
			d[1+i/64] |= 1 << (i % 64)
			continue
		}
		if status == simFailed {
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
	if len(s.pinned) != 0 || len(s.streams) != 0 {
		return fmt.Errorf("%d pinned buffers and %d streams left", len(s.pinned), len(s.streams))
	}
	return nil
}

// SimStats says what the simulated device saw of a run.
type SimStats struct {
	Items    int    // items computed
	Launches int    // kernels launched
	InFlight int    // the most launches queued when the launcher waited for the first of them
	Widest   uint64 // the most items of a launch
	Handed   int    // items handed back to the CPU
	Misuse   error  // the launcher misused the device or left memory behind
}

// SimConfig shapes a simulated run: each item takes PerItem; Mode is when
// queued work runs (0 lazy, 1 ahead, 2 eager: simMode); a launch covers Stage
// items at most where items or results are copied, and the first launch
// FirstSlice (0: the launcher's own). Depth is the calls a thread of the
// simulated card may nest, for a function whose helpers recurse (0: the
// function's own limit); an item that goes deeper is left to the CPU, and
// CPU, where not nil, runs those (else the evaluator).
type SimConfig struct {
	PerItem    time.Duration
	Mode       int
	Stage      uint64
	FirstSlice uint64
	Depth      int
	CPU        CPURun
}

// SimRunFunc runs f over the spaces through the launcher of fuse_run_func
// on a simulated device whose items Eval computes.
func SimRunFunc(ctx context.Context, f *fuse.Func, spaces []fuse.Space, method fuse.Method, opt fuse.Options, cfg SimConfig) (res *fuse.Result, err error, stats SimStats) {
	// The card's items: Eval allowed the card's depth, an item failing on
	// the depth there (below f's own limit) left to the CPU.
	ref := f
	k := &FuncKernel{f: f, fn: 2}
	tab := cgen.TableWords(f)
	if len(f.Procs) > 0 {
		k.depth = f.MaxCalls()
		if cfg.Depth > 0 && cfg.Depth < f.MaxCalls() {
			g := *f
			g.Depth, k.depth, ref = cfg.Depth, cfg.Depth, &g
		}
		tab[cgen.DepthCapAt(f)] = uint64(k.depth)
	}
	st := ref.NewState(nil)
	sim := newSim(len(spaces), func(p []uint64) (uint64, int) {
		stats.Items++
		r, err := st.Eval(p)
		var fe *fuse.FlowError
		switch {
		case err == nil:
			return r, simOK
		case ref != f && errors.As(err, &fe) && fe.Check >= 0 && f.Checks[fe.Check].Kind == fuse.CheckDepth:
			return 0, simDeep
		}
		return 0, simFailed
	})
	sim.perItem, sim.mode = cfg.PerItem, simMode(cfg.Mode)
	cpu := cfg.CPU
	if cpu == nil {
		cpu = k.evalRun
	}
	k.HandBackTo(func(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
		stats.Handed += int(spaces[0].Len())
		return cpu(ctx, spaces, method, opt)
	})
	if len(tab) > 0 {
		if k.tab, err = newBuffer(sim, uint64(len(tab))*8); err != nil {
			return nil, err, stats
		}
		k.tab.upload(tab)
	}
	grid := uint64(3)
	sim.stateSize = grid * funcThreads * uint64(cgen.StateWords(f)) * 8
	res, err = k.run(ctx, sim, grid, spaces, method, opt, func(spec *launchSpec) {
		spec.stage = cfg.Stage
		if cfg.FirstSlice > 0 {
			spec.firstSlice, spec.minSlice = cfg.FirstSlice, 1
		}
	})
	keep := 0
	if k.tab != nil {
		keep = 1
	}
	stats.Misuse = sim.check(keep)
	stats.Launches, stats.InFlight, stats.Widest = sim.launches, sim.inFlight, sim.widest
	return res, err, stats
}
