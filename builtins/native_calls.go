package builtins

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
)

// Plain functions as machine code (docs/performance.md, "Plain functions
// as machine code"). bitsh's fork of go.starlark.net offers each Starlark
// function to the hook under nativeKey once it is worth it (at its first
// call where it loops, else at its 1000th); where the fuse compiler
// translates the function exactly (compile.Options.Exact: Starlark's ints
// while they stay in [0, 2^64), anything else a failure), its calls with
// word arguments (and lists of words, where the first call passed a list)
// run as x86-64 code, and a call whose code fails (an int leaving the
// words, an error, a recursion too deep, a cancelled run) is run by the
// interpreter, from the start: the code changes nothing a program sees
// before it succeeds (a list it writes is written back at its end), so
// the interpreter gives exactly its own result or error.
const nativeKey = "go.starlark.net/native"

// nativeHook is what SetEnv installs under nativeKey. args are those of
// the call that offers fn: a list among them makes that parameter a list
// of its length, a word array, for every call.
func nativeHook(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
	env := EnvOf(thread)
	report := env.NativeReport
	strict := env.NativeStrict && !strings.HasPrefix(fn.Position().Filename(), dialect.StdlibPrefix)
	tally := env.NativeStats.offered(fn)
	lists, bias := listsOf(args)
	nf, pending, err := compileNativeBools(thread, fn, lists, bias, boolsOf(args), report, tally, strict)
	if report != nil && !pending {
		report(fn, err)
	}
	if err != nil {
		tally.refuse(fn, err)
		if strict {
			thread.Cancel(StrictError(fn, "not compiled: "+withFile(fn, err.Error())))
		}
		if tally != nil {
			// The report counts the calls of a function that stays
			// interpreted: a form that always declines.
			return func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
				tally.why[fbRefused].Add(1)
				return nil, false
			}
		}
		return nil
	}
	return nf.call
}

// boolsOf gives, for each argument, whether it is a bool; nil where none
// is.
func boolsOf(args starlark.Tuple) []bool {
	var bools []bool
	for i, a := range args {
		if _, ok := a.(starlark.Bool); ok {
			if bools == nil {
				bools = make([]bool, len(args))
			}
			bools[i] = true
		}
	}
	return bools
}

// listsOf gives, for each argument, the length of a list, or -1, and the
// list's bias: its least int negated, where it holds negative ints in
// [-2^63, 0) (a sentinel -1), else 0; nil where there is no list.
func listsOf(args starlark.Tuple) (lists []int, bias []uint64) {
	for i, a := range args {
		l, ok := a.(*starlark.List)
		if !ok {
			continue
		}
		if lists == nil {
			lists, bias = make([]int, len(args)), make([]uint64, len(args))
			for j := range lists {
				lists[j] = -1
			}
		}
		lists[i] = l.Len()
		for j := 0; j < l.Len(); j++ {
			if x, ok := l.Index(j).(starlark.Int); ok && x.Sign() < 0 {
				if v, ok := x.Int64(); ok && v != math.MinInt64 {
					bias[i] = max(bias[i], uint64(-v))
				}
			}
		}
	}
	return lists, bias
}

// encode returns the word of x in an array biased by k (x + k), or false
// where x is not an int in [-k, 2^64 - k).
func encode(x starlark.Value, k uint64) (uint64, bool) {
	i, ok := x.(starlark.Int)
	if !ok {
		return 0, false
	}
	if w, ok := i.Uint64(); ok {
		return w + k, w+k >= k
	}
	v, ok := i.Int64()
	if !ok || v < 0 && uint64(-v) > k || v == math.MinInt64 {
		return 0, false
	}
	return k - uint64(-v), true
}

// decode returns the int whose word in an array biased by k is w.
func decode(w, k uint64) starlark.Value {
	if w >= k {
		return starlark.MakeUint64(w - k)
	}
	return starlark.MakeInt64(-int64(k - w))
}

// nativeWait is how long a call waits for its function's machine code
// before it runs in the interpreter: the code is generated on another
// goroutine, and a function whose code takes longer (a perft with its
// helpers: a few ms) is interpreted until it is ready, so that a short run
// does not pay for it.
const nativeWait = 2 * time.Millisecond

// nativeFunc is a plain function compiled to machine code.
type nativeFunc struct {
	f      *fuse.Func
	lists  []int    // the length of each parameter that is a list, or -1 (nil: none)
	bools  []bool   // the parameters that take bools (nil: none)
	nlists int      // the parameters that are lists: the array parameters before globals'
	bias   []uint64 // each array parameter's bias (encode)
	// globals are the module's lists the code writes (compile.Global):
	// array parameters nlists on, passed and written back as lists
	// given, or, where appended to only, appended to after the run.
	globals []compile.Global
	// written says which array parameters the code may write: their lists
	// must be mutable, and are written back.
	written []bool
	tables  []listTable // global lists the code reads as tables
	words   int         // the words of the lists each call converts or compares
	// wasted and paid count the timed calls whose conversions took more,
	// and less, than wasteRatio times the code's run.
	wasted, paid atomic.Int64
	p            atomic.Pointer[native.Program] // nil until generated
	ready        chan struct{}                  // closed when p is set or off
	spare        atomic.Pointer[nativeRun]      // an idle worker, taken without the lock
	mu           sync.Mutex
	idle         []*nativeRun // workers between calls
	// runs and fails count the calls run as code and those the code
	// gave back to the interpreter; off stops using the code where most
	// calls fail (or giveUp says so).
	runs, fails atomic.Int64
	giveUp      giveUp
	off         atomic.Bool
	err         error       // why the code generation failed (set before ready is closed)
	handoff     atomic.Bool // set by the first of compileNative's wait and the generation to end
	// fn is the function compiled, tally its counts (nil: no report),
	// strict whether a call the interpreter runs is an error, offWhy why
	// off was set.
	fn     *starlark.Function
	tally  *nativeTally
	strict bool
	offWhy atomic.Pointer[string]
}

// switchOff leaves the function to the interpreter from now on, for why.
func (nf *nativeFunc) switchOff(why string) {
	nf.offWhy.CompareAndSwap(nil, &why)
	nf.off.Store(true)
}

// compileNative compiles fn with compile.Options.Exact for the x86-64
// engine, or says why it cannot. pending: the machine code is still being
// generated, and report, if not nil, hears how that ends. tally (nil:
// none) counts the calls; strict waits for the code (no call is
// interpreted while it is generated).
func compileNative(thread *starlark.Thread, fn *starlark.Function, lists []int, bias []uint64, report func(*starlark.Function, error), tally *nativeTally, strict bool) (nf *nativeFunc, pending bool, err error) {
	return compileNativeBools(thread, fn, lists, bias, nil, report, tally, strict)
}

// compileNativeBools is compileNative where bools (nil: none) says which
// parameters take bools (boolsOf the call that offers fn): those take
// True and False at every call, as the words 1 and 0.
func compileNativeBools(thread *starlark.Thread, fn *starlark.Function, lists []int, bias []uint64, bools []bool, report func(*starlark.Function, error), tally *nativeTally, strict bool) (nf *nativeFunc, pending bool, err error) {
	if err := exactShape(fn); err != nil {
		return nil, false, err
	}
	if n := fn.NumParams(); n > compile.MaxExactParams {
		return nil, false, fmt.Errorf("it takes %d parameters (0 to %d run as machine code)", n, compile.MaxExactParams)
	}
	srcs := EnvOf(thread).Sources
	if srcs == nil {
		return nil, false, errors.New("its source text was not kept")
	}
	// Snippets may share a file name (an embedder's, all "<stdin>"): where
	// two kept texts hold a def at fn's place, which one is fn is not
	// known without running it.
	cands := sourcesOf(srcs, fn)
	if len(cands) != 1 {
		return nil, false, fmt.Errorf("%d kept texts hold a def of it at its place (snippets run under one name)", len(cands))
	}
	hide := sessionNames(thread)
	src := cands[0].Source
	var tables []listTable
	var globals []compile.Global
	src.Free, src.Builtin = exactFree(thread, src.Free, fn, hide, &tables, &globals), exactBuiltin(src.Builtin, hide)
	opts := compileOptions(srcs)
	opts.Exact = true
	if len(lists) == fn.NumParams() {
		opts.Lists, opts.ListBias = lists, bias
	}
	if len(bools) == fn.NumParams() {
		opts.Bools = bools
	}
	opts.Stop, opts.Reserve = compileStop(thread), compileReserve(thread)
	helper := opts.Helper
	opts.Helper = func(h *starlark.Function) (*compile.Source, error) {
		if err := exactShape(h); err != nil {
			return nil, fmt.Errorf("%s: %w", h.Name(), err)
		}
		s, err := helper(h)
		if err != nil {
			return nil, err
		}
		c := *s
		c.Free, c.Builtin = exactFree(thread, c.Free, h, hide, &tables, &globals), exactBuiltin(c.Builtin, hide)
		return &c, nil
	}
	// A module's list the function writes is compiled again as an array
	// of its own (writtenGlobal), until none is left or one cannot be.
	var f *fuse.Func
	for {
		tables = nil
		opts.Globals = globals
		f, err = compile.Func(&src, opts)
		var gw *compile.GlobalArray
		if !errors.As(err, &gw) {
			break
		}
		g, gerr := writtenGlobal(gw, globals)
		if gerr != nil {
			err = gerr
			break
		}
		globals = append(globals, g)
	}
	if err != nil {
		return nil, false, err
	}
	if w := tableWords(tables); w > maxCheckedWords && !f.Loops() {
		return nil, false, fmt.Errorf("it reads lists of %d words as tables, which each call would compare (%d without a loop or a recursion)", w, maxCheckedWords)
	}
	written := f.WrittenArrays()
	if f.Results > 0 || f.ReturnsList {
		written = written[:len(written)-1] // the returned tuple's, not a list's
	}
	var biases []uint64 // of the array parameters
	for i, n := range opts.Lists {
		if n >= 0 {
			biases = append(biases, opts.ListBias[i])
		}
	}
	nlists := len(biases)
	words := tableWords(tables)
	for _, n := range opts.Lists {
		words += max(n, 0)
	}
	for _, g := range globals {
		biases = append(biases, g.Bias)
		if !g.Log {
			words += g.Len
		}
	}
	n := &nativeFunc{f: f, lists: opts.Lists, bools: opts.Bools, nlists: nlists, bias: biases, written: written, tables: tables, globals: globals, words: words, ready: make(chan struct{}),
		fn: fn, tally: tally, strict: strict}
	tally.compiled(n)
	go n.generate(fn, report)
	if strict {
		<-n.ready // (handoff left unset: the generation reports nothing)
		if n.err != nil {
			return nil, false, n.err
		}
		return n, false, nil
	}
	t := time.NewTimer(nativeWait)
	defer t.Stop()
	select {
	case <-n.ready:
	case <-t.C:
		if !n.handoff.Swap(true) {
			return n, true, nil // still generating
		}
		<-n.ready // done meanwhile
	}
	if n.err != nil {
		return nil, false, n.err
	}
	return n, false, nil
}

// generate makes nf's machine code, then closes nf.ready; where
// compileNative returned before it ended, it tells report how it ended.
// The Func holds words only: nothing here reads Starlark values.
func (nf *nativeFunc) generate(fn *starlark.Function, report func(*starlark.Function, error)) {
	defer func() {
		if r := recover(); r != nil {
			// A generator's panic is its own bug: the function stays
			// interpreted, and the process lives.
			nf.err = fmt.Errorf("generating its machine code failed: %v", r)
		}
		if nf.err != nil {
			nf.switchOff(nf.err.Error())
		}
		close(nf.ready)
		if nf.handoff.Swap(true) {
			// compileNative returned before: it is ours to say.
			if nf.err != nil {
				nf.tally.refuse(fn, nf.err)
			}
			if report != nil {
				report(fn, nf.err)
			}
		}
	}()
	p, err := native.CompileWith(nf.f, native.AMD64)
	if err != nil {
		nf.err = err
		return
	}
	nf.p.Store(p)
}

// exactShape says why fn may not run as code, or nil: its parameters must
// be positional, without defaults, and it may close over no variable (a
// cell may change between calls; its globals are the fork's to watch).
func exactShape(fn *starlark.Function) error {
	if fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0 {
		return errors.New("it takes *args, **kwargs or keyword-only parameters")
	}
	if fn.NumFreeVars() > 0 {
		b, _ := fn.FreeVar(0)
		return fmt.Errorf("it reads %s, a variable of the function that defines it", b.Name)
	}
	for i := 0; i < fn.NumParams(); i++ {
		if fn.ParamDefault(i) != nil {
			name, _ := fn.Param(i)
			return fmt.Errorf("its parameter %s has a default value", name)
		}
	}
	return nil
}

// exactFree hides from the compiler the free values whose meaning as words
// is not their meaning in Starlark: negative ints, tuples holding anything but ints (or tuples of them: tableTuple).
// What it hides, the compiler refuses; ints in [0, 2^64), such tuples
// (which the compiler reads as tables, biased where they hold negative
// ints), bools (which the compiler reads as True and False),
// word arrays (which never change), functions, builtins and modules pass,
// and so do lists, which it records in tables: a list may change between
// calls, so each call first compares it with the words the code holds.
func exactFree(thread *starlark.Thread, free func(string) (starlark.Value, bool), fn *starlark.Function, hide map[string]bool, tables *[]listTable, globals *[]compile.Global) func(string) (starlark.Value, bool) {
	return func(name string) (starlark.Value, bool) {
		if hide[name] {
			if _, global := fn.Globals()[name]; !global {
				return compile.Refused{Reason: "is a name of an earlier input, which a later one may rebind"}, true
			}
		}
		v, ok := free(name)
		if !ok {
			return nil, false
		}
		switch v := v.(type) {
		case *starlark.List:
			for _, g := range *globals {
				if g.List == v {
					return v, true // an array of the code's (compile.Global)
				}
			}
			t, why := snapshot(thread, v)
			if why == otherValues {
				// Rows holding negative ints or tuples: a table still
				// (native_tables.go).
				if dt, dwhy, nested := deepSnapshot(thread, v); nested {
					t, why = dt, dwhy
				}
			}
			if why == otherValues {
				// An array may hold it (compile.GlobalArray).
				return compile.Refused{Reason: why, Value: v}, true
			}
			if why != "" {
				return compile.Refused{Reason: why}, true
			}
			*tables = append(*tables, t)
		case starlark.Int:
			if v.Sign() < 0 {
				return compile.Refused{Reason: "is a negative int, not a word"}, true
			}
		case starlark.Tuple:
			if !tableTuple(v, 1) {
				return compile.Refused{Reason: "is a tuple of other values than ints in [-2^63, 2^64) (or tuples of them, three deep)"}, true
			}
		}
		return v, true
	}
}

// sessionNames returns the names a REPL or notebook session has bound in
// its earlier inputs (Env.Scope), or nil outside one. A function of one
// input reads them as predeclared names, whose values a later input may
// rebind without the fork seeing it (it watches the module's globals):
// exactFree and exactBuiltin hide them, and the function stays
// interpreted, unless the name is a global of its own module.
func sessionNames(thread *starlark.Thread) map[string]bool {
	scope := EnvOf(thread).Scope
	if scope == nil {
		return nil
	}
	hide := map[string]bool{}
	for _, name := range scope(nil) {
		hide[name] = true
	}
	return hide
}

// exactBuiltin is builtin, false for the names hide holds (a session's
// own binding of a builtin's name).
func exactBuiltin(builtin func(string) bool, hide map[string]bool) func(string) bool {
	return func(name string) bool { return !hide[name] && builtin(name) }
}

// timedWords is the words of lists above which a call is timed (weigh).
const timedWords = 1024

// wasteRatio is how many times longer than the code's run a call's
// conversions may take: the interpreter takes about 20 times the code's
// time, and converts nothing.
const wasteRatio = 16

// weigh counts a timed call: converted from start to ran, run from ran to
// end. After 8 calls that wasted their time, and 4 times as many as those
// that did not, the function is left to the interpreter.
func (nf *nativeFunc) weigh(start, ran, end time.Time) {
	if ran.Sub(start) > wasteRatio*end.Sub(ran) {
		if w := nf.wasted.Add(1); w > 8 && w > 4*nf.paid.Load() {
			nf.switchOff(fmt.Sprintf("its calls spent more than %d times as long converting lists as running", wasteRatio))
		}
		return
	}
	nf.paid.Add(1)
}

// maxCheckedWords bounds the words of the lists a function that neither
// loops nor recurses may read as tables: each call compares them.
const maxCheckedWords = 256

// A listTable is a list the code reads as a table, and the words it held
// when the function was compiled: a flat list of words, or a list of rows
// (lists or tuples of words).
type listTable struct {
	l     *starlark.List
	flat  []uint64
	rows  [][]uint64
	lists []*starlark.List // l and the rows that are lists
	// deep, where not nil, is the walk of a list snapshot does not take
	// (deepSnapshot), which holds compares instead of flat and rows.
	deep []tableToken
}

// holdsList reports whether l is t's list or one of its rows.
func (t *listTable) holdsList(l *starlark.List) bool { return slices.Contains(t.lists, l) }

// otherValues is why a list is no table of words: it holds other values
// (which an array of the code's may hold: negative ints).
const otherValues = "is a list of other values than ints in [0, 2^64) (or lists or tuples of them)"

// snapshot records l's words, or says why it does not (a reason for
// compile.Refused): l holds something else, the memory budget of thread's
// Env has no room for the copies (this one, and the compiler's table), or
// the run was cancelled meanwhile (it polls every few thousand elements).
func snapshot(thread *starlark.Thread, l *starlark.List) (listTable, string) {
	const other = otherValues
	t := listTable{l: l, lists: []*starlark.List{l}}
	ctx := Context(thread)
	n := l.Len()
	words := n
	if n > 0 {
		if _, ok := l.Index(0).(starlark.Int); !ok {
			for i := 0; i < n; i++ {
				if i%snapshotPoll == snapshotPoll-1 && ctx.Err() != nil {
					return t, "is a list being read when the run was cancelled"
				}
				if r, ok := l.Index(i).(starlark.Indexable); ok {
					words += r.Len()
				}
			}
		}
	}
	if err := CheckAlloc(thread, "a table copied from a list", memory.AllocSize(int64(words), 16)); err != nil {
		return t, fmt.Sprintf("is a list of %d words, which the memory budget has no room to copy (%v)", words, err)
	}
	for i := 0; i < n; i++ {
		if i%snapshotPoll == snapshotPoll-1 && ctx.Err() != nil {
			return t, "is a list being read when the run was cancelled"
		}
		switch x := l.Index(i).(type) {
		case starlark.Int:
			w, ok := x.Uint64()
			if !ok || t.rows != nil {
				return t, other
			}
			if t.flat == nil {
				t.flat = make([]uint64, 0, n)
			}
			t.flat = append(t.flat, w)
		case *starlark.List, starlark.Tuple:
			row, ok := rowWords(x)
			if !ok || t.flat != nil {
				return t, other
			}
			t.rows = append(t.rows, row)
			if r, ok := x.(*starlark.List); ok {
				t.lists = append(t.lists, r)
			}
		default:
			return t, other
		}
	}
	return t, ""
}

// snapshotPoll is how many elements snapshot reads between two polls of
// the run's context.
const snapshotPoll = 4096

// rowWords returns the words of a list or tuple of words.
func rowWords(v starlark.Value) ([]uint64, bool) {
	s, ok := v.(starlark.Indexable)
	if !ok {
		return nil, false
	}
	row := make([]uint64, s.Len())
	for i := range row {
		x, ok := s.Index(i).(starlark.Int)
		if !ok {
			return nil, false
		}
		if row[i], ok = x.Uint64(); !ok {
			return nil, false
		}
	}
	return row, true
}

// holds reports whether t's list still holds the words recorded.
func (t *listTable) holds() bool {
	if t.deep != nil {
		return t.holdsDeep()
	}
	l := t.l
	if t.rows == nil {
		if l.Len() != len(t.flat) {
			return false
		}
		for i, w := range t.flat {
			if x, ok := l.Index(i).(starlark.Int); !ok || !isWord(x, w) {
				return false
			}
		}
		return true
	}
	if l.Len() != len(t.rows) {
		return false
	}
	for i, row := range t.rows {
		r, ok := l.Index(i).(starlark.Indexable)
		if !ok || r.Len() != len(row) {
			return false
		}
		if _, isString := r.(starlark.String); isString {
			return false
		}
		for j, w := range row {
			if x, ok := r.Index(j).(starlark.Int); !ok || !isWord(x, w) {
				return false
			}
		}
	}
	return true
}

// isWord reports whether x is the int w.
func isWord(x starlark.Int, w uint64) bool {
	u, ok := x.Uint64()
	return ok && u == w
}

// tableWords returns the words of tables.
func tableWords(tables []listTable) int {
	n := len(tables)
	for _, t := range tables {
		n += len(t.flat) + len(t.deep)
		for _, r := range t.rows {
			n += len(r)
		}
	}
	return n
}

// nativeRun is a worker, the context its runs poll (the poll function is
// bound once, so that a call allocates nothing), and room for the words
// of the lists a call passes.
type nativeRun struct {
	w      *native.Worker
	thread *starlark.Thread // the run's, whose context poll reads
	ctx    context.Context
	buf    []uint64
}

func (r *nativeRun) poll() bool {
	if r.ctx == nil && r.thread != nil {
		r.ctx = Context(r.thread) // once a run, where it polls
	}
	return r.ctx != nil && r.ctx.Err() != nil
}

// get returns an idle worker, or a new one. A new worker's memory lies
// outside Go's heap: the memory budget of thread's Env refuses it where
// the heap and what is held outside it (every worker and every function's
// code of the process, memory.InUse) leave no room for it.
func (nf *nativeFunc) get(p *native.Program, thread *starlark.Thread) (*nativeRun, error) {
	if r := nf.spare.Swap(nil); r != nil {
		return r, nil
	}
	nf.mu.Lock()
	if n := len(nf.idle); n > 0 {
		r := nf.idle[n-1]
		nf.idle = nf.idle[:n-1]
		nf.mu.Unlock()
		return r, nil
	}
	nf.mu.Unlock()
	if err := CheckAlloc(thread, "a function run as machine code", int64(p.MemoryBytes())); err != nil {
		return nil, err
	}
	r := &nativeRun{}
	w, err := p.NewWorker(r.poll)
	if err != nil {
		return nil, err
	}
	r.w = w
	return r, nil
}

// call runs fn's code on args, all words or lists of words as compiled;
// ok false: the interpreter runs the call (an argument is not what the
// code takes, a list it reads as a table has changed, the code failed, or
// the code is off). Once the code is off, v is None: the fork then drops
// the function's native form for good, and its calls cost nothing more
// than interpreted ones.
func (nf *nativeFunc) call(thread *starlark.Thread, args starlark.Tuple) (v starlark.Value, ok bool) {
	defer func() {
		// A bug of this binding (not of the script) leaves the function
		// to the interpreter instead of ending the process.
		if r := recover(); r != nil {
			nf.switchOff(fmt.Sprintf("a fault in bitsh's native calls: %v", r))
			v, ok = nf.miss(thread, fbOff)
		}
		if !ok && nf.off.Load() {
			v = starlark.None // given up
		}
	}()
	switch {
	case nf.off.Load():
		return nf.miss(thread, fbOff)
	case len(args) != nf.f.Params+nf.nlists:
		return nf.miss(thread, fbArity) // (too few or too many arguments: the interpreter's error)
	}
	var ws [compile.MaxExactParams]uint64
	var ls [compile.MaxExactParams + maxGlobals]*starlark.List
	nw, nl := 0, 0
	// A call with many words to convert or compare is timed: where the
	// conversions take much longer than the code, the interpreter would
	// have been quicker (the function reads a few elements of a long
	// list), and such a function is left to it.
	var start, ran time.Time
	if nf.words > timedWords {
		start = time.Now()
	}
	for i, a := range args {
		if nf.lists != nil && nf.lists[i] >= 0 {
			l, ok := a.(*starlark.List)
			switch {
			case !ok:
				return nf.missArg(thread, i, argNotList)
			case l.Len() != nf.lists[i]:
				return nf.missArg(thread, i, argLength)
			case slices.Contains(ls[:nl], l):
				return nf.missArg(thread, i, argTwice) // (the code would not see one write in the other)
			}
			ls[nl] = l
			nl++
			continue
		}
		if nf.bools != nil && nf.bools[i] {
			b, ok := a.(starlark.Bool)
			if !ok {
				return nf.missArg(thread, i, argNotBool)
			}
			ws[nw] = 0
			if b {
				ws[nw] = 1
			}
			nw++
			continue
		}
		x, ok := a.(starlark.Int)
		if !ok {
			return nf.missArg(thread, i, argNotInt)
		}
		if ws[nw], ok = x.Uint64(); !ok {
			return nf.missArg(thread, i, argNotWord)
		}
		nw++
	}
	for _, g := range nf.globals {
		// A module's list the code writes: of its length still (else
		// changed as a table is), and not passed as well.
		if !g.Log && g.List.Len() != g.Len {
			if nf.giveUp.changed(nf.runs.Load()) {
				nf.switchOff("a list of its module that it writes or loops over had another length before many of its calls")
			}
			return nf.miss(thread, fbGlobalLength)
		}
		if slices.Contains(ls[:nl], g.List) {
			return nf.miss(thread, fbGlobalShared)
		}
		ls[nl] = g.List
		nl++
	}
	for i := range nf.tables {
		t := &nf.tables[i]
		if !t.holds() {
			if nf.giveUp.changed(nf.runs.Load()) {
				nf.switchOff("a global list it reads as a table had changed before many of its calls")
			}
			return nf.miss(thread, fbTable)
		}
		for a, l := range ls[:nl] {
			if t.holdsList(l) {
				if a >= nf.nlists {
					return nf.miss(thread, fbGlobalShared)
				}
				return nf.missArg(thread, nf.param(a), argInTable) // (the code would not see its writes in the table)
			}
		}
	}
	for a, l := range ls[:nl] {
		// A list the code may write must be one Starlark lets it write
		// (not frozen, not being iterated).
		if nf.written[a] && !mutable(l) {
			return nf.miss(thread, fbFrozen)
		}
	}
	// The code is generated on another goroutine: a call that comes
	// before it is ready (and that it would take) is interpreted.
	p := nf.p.Load()
	if p == nil {
		return nf.miss(thread, fbNotReady)
	}
	depth, ok := nf.depth(thread)
	if !ok {
		return nf.miss(thread, fbStack) // (the interpreter's stack overflow, at the call or in it)
	}
	r, err := nf.get(p, thread)
	if err != nil {
		nf.switchOff(err.Error()) // no room for a worker: the interpreter runs it
		return nf.miss(thread, fbOff)
	}
	defer nf.put(r)
	for a, l := range ls[:nl] {
		if nf.isLog(a) {
			r.w.SetElem(a, 0, 0) // nothing appended yet
			continue
		}
		buf := r.words(l.Len())
		for j := range buf {
			var ok bool
			if buf[j], ok = encode(l.Index(j), nf.bias[a]); !ok {
				if a >= nf.nlists {
					return nf.miss(thread, fbGlobalElem)
				}
				return nf.missArg(thread, nf.param(a), argElem)
			}
		}
		r.w.SetArray(a, buf)
	}
	if !r.w.SetDepth(depth) && depth < nf.f.MaxCalls() {
		return nf.miss(thread, fbStack) // (an engine that allows its MaxCalls only: not here)
	}
	r.thread = thread
	for i := range nw {
		r.w.Params(i)[0] = ws[i]
	}
	if nf.words > timedWords {
		ran = time.Now()
	}
	_, res, err := r.w.Run(1, false)
	if nf.words > timedWords {
		nf.weigh(start, ran, time.Now())
	}
	r.ctx, r.thread = nil, nil
	work, weighed := r.w.Work()
	if err != nil {
		// The interpreter runs it: an int left the words, or Starlark
		// fails there too (with its own message), or the run was
		// cancelled (the interpreter stops at its next step).
		f := nf.fails.Add(1)
		if f > 64 && f > 2*nf.runs.Load() {
			nf.switchOff("most of its calls failed in the code")
		} else if weighed && nf.giveUp.failed(f, work) {
			nf.switchOff("its calls that failed in the code wasted more work there than the others did")
		}
		var fe *fuse.FlowError
		switch {
		case errors.As(err, &fe):
			return nf.missCheck(thread, fe.Check)
		case errors.Is(err, fuse.ErrStopped):
			return nf.miss(thread, fbStopped)
		}
		return nf.miss(thread, fbFailed)
	}
	if weighed {
		nf.giveUp.useful.Add(int64(work) + 1)
	}
	word := res[0]
	// The lists the code wrote, element by element where it changed them.
	for a, l := range ls[:nl] {
		if !nf.written[a] {
			continue
		}
		if nf.isLog(a) {
			nf.appendLog(r, a, l)
			continue
		}
		buf := r.words(l.Len())
		r.w.Array(a, buf)
		for j, w := range buf {
			if old, _ := encode(l.Index(j), nf.bias[a]); old != w {
				if err := l.SetIndex(j, decode(w, nf.bias[a])); err != nil {
					panic(err) // checked mutable above
				}
			}
		}
	}
	nf.runs.Add(1)
	if t := nf.tally; t != nil {
		t.code.Add(1)
	}
	switch {
	case nf.f.ReturnsParam > 0:
		return ls[nf.f.ReturnsParam-1], true // the list given, written back above
	case nf.f.ReturnsNone:
		return starlark.None, true
	case nf.f.Results > 0 || nf.f.ReturnsList: // (a list of 0 words: return [])
		buf := r.words(nf.f.Results)
		r.w.Array(nf.f.Arrays-1, buf)
		if nf.f.ReturnsList {
			buf = buf[:word] // the list's length
		}
		bias := nf.f.Scratch[nf.f.Arrays-1].Bias
		t := make(starlark.Tuple, len(buf))
		for i, w := range buf {
			t[i] = decode(w, bias)
		}
		if nf.f.ReturnsList {
			return starlark.NewList(t), true
		}
		return t, true
	case nf.f.ReturnsBool:
		return starlark.Bool(word != 0), true
	}
	return starlark.MakeUint64(word), true
}

// giveUp counts what leaves a function to the interpreter beside the
// share of its calls that fail (nativeFunc.fails and runs): the work its
// code wastes, and the calls a changed table sends back.
type giveUp struct {
	// useful and wasted are the work (native.Worker.Work, and 1 for
	// the call) of the runs that succeeded and of those that failed,
	// where the code has calls: a call that fails is run again by the
	// interpreter, whose calls of the function try its code again, so a
	// recursion whose calls mostly fail deep inside runs the same code
	// again and again.
	useful, wasted atomic.Int64
	// tableChanged counts the calls given back because a list the code
	// reads as a table had changed, each after a comparison of up to the
	// whole list.
	tableChanged atomic.Int64
}

// failed counts the work of a run that failed, the fails-th, and reports
// whether the code should no longer be tried: after 64 failures, where
// the failed runs have wasted more work than the successful ones did.
func (g *giveUp) failed(fails int64, work uint64) bool {
	w := g.wasted.Add(int64(work) + 1)
	return fails > 64 && w > g.useful.Load()
}

// changed counts a call given back for a changed table and reports
// whether the code should no longer be tried: after 8 such calls, where
// they are more than a quarter of the calls that ran (a table changed
// before every call, compared in full each time for nothing).
func (g *giveUp) changed(runs int64) bool {
	c := g.tableChanged.Add(1)
	return c > 8 && 4*c > runs
}

// starlarkDepth is the deepest go.starlark.net lets a thread's stack of
// calls grow where recursion is allowed: a call that would push a frame
// past it fails with "Starlark stack overflow".
const starlarkDepth = 100_000

// depth returns the chain of calls of its Procs the code may make on
// thread, so that the frames the interpreter would push for the same calls
// stay within starlarkDepth: none where the call itself, or the inlined
// helpers it runs, would pass it (false). The frames in use are those on
// thread's stack, and the call's own; a call of the code's Procs (or a
// call in tail position made as a jump, which the code counts as a call:
// fuse.Func.LeafTailCalls) stands for one Starlark call and those of the
// inlined helpers around it, f.Inlined at most, and inlined helpers may
// take that many more where no further call is made. Called through
// starlark.Call, the function's frame is on the stack already and counted
// twice: one frame short of the limit, the interpreter runs the call.
func (nf *nativeFunc) depth(thread *starlark.Thread) (int, bool) {
	room := starlarkDepth - thread.CallStackDepth() - 1 - nf.f.Inlined
	if room < 0 {
		return 0, false
	}
	return min(room/(1+nf.f.Inlined), nf.f.MaxCalls()), true
}

// param returns the parameter of array parameter a (the a-th list).
func (nf *nativeFunc) param(a int) int {
	for i, n := range nf.lists {
		if n >= 0 {
			if a == 0 {
				return i
			}
			a--
		}
	}
	return 0
}

// put gives r back to nf's idle workers.
func (nf *nativeFunc) put(r *nativeRun) {
	if nf.spare.CompareAndSwap(nil, r) {
		return
	}
	nf.mu.Lock()
	nf.idle = append(nf.idle, r)
	nf.mu.Unlock()
}

// words returns r's room for n words.
func (r *nativeRun) words(n int) []uint64 {
	if cap(r.buf) < n {
		r.buf = make([]uint64, n)
	}
	return r.buf[:n]
}

// maxGlobals bounds the module's lists a function run as code may write.
const maxGlobals = 8

// writtenGlobal returns the compile.Global of the list gw names, or the
// error that leaves the function interpreted: a list of more than
// compile.MaxScratch elements, or of other values than ints in [-2^63,
// 2^64) where it is not appended to only, one that Starlark does not let
// the function change (frozen: a loaded module's), one compiled already
// (a list appended to and read or written by index, or a list of two
// names), or one too many.
func writtenGlobal(gw *compile.GlobalArray, globals []compile.Global) (compile.Global, error) {
	l := gw.List
	refuse := func(format string, args ...any) (compile.Global, error) {
		return compile.Global{}, &compile.Error{Pos: gw.Err.Pos, Msg: fmt.Sprintf(format, args...)}
	}
	if len(globals) >= maxGlobals {
		return refuse("%s is one of more than %d lists of its module that the function writes or loops over", gw.Name, maxGlobals)
	}
	for _, g := range globals {
		if g.List == l {
			return refuse("%s is a list of its module that the function both appends to and reads (or that it names twice)", gw.Name)
		}
	}
	g := compile.Global{Name: gw.Name, List: l, Log: gw.Append}
	if !gw.Read && !mutable(l) {
		return refuse("%s is a list Starlark does not let the function change (frozen: a loaded module's)", gw.Name)
	}
	if g.Log {
		return g, nil
	}
	if l.Len() > compile.MaxScratch {
		return refuse("%s is a list of %d elements; a list of its module that a function run as machine code writes or loops over has at most %d", gw.Name, l.Len(), compile.MaxScratch)
	}
	g.Len = l.Len()
	_, bias := listsOf(starlark.Tuple{l})
	for i := 0; i < l.Len(); i++ {
		if _, ok := encode(l.Index(i), bias[0]); !ok {
			return refuse("%s is a list of other values than ints in [-2^63, 2^64)", gw.Name)
		}
	}
	g.Bias = bias[0]
	return g, nil
}

// mutable reports whether Starlark lets l be changed now (it is not
// frozen, nor being iterated), changing nothing: one of its elements set
// to itself, or, empty, cleared.
func mutable(l *starlark.List) bool {
	if l.Len() == 0 {
		return l.Clear() == nil
	}
	return l.SetIndex(0, l.Index(0)) == nil
}

// isLog reports whether the array parameter a is the append log of a
// module's list (compile.Global.Log).
func (nf *nativeFunc) isLog(a int) bool {
	return a >= nf.nlists && nf.globals[a-nf.nlists].Log
}

// appendLog appends to l the values the run appended, which the append
// log a holds (compile.Global.Log).
func (nf *nativeFunc) appendLog(r *nativeRun, a int, l *starlark.List) {
	buf := r.words(compile.LogLen)
	r.w.Array(a, buf[:1])
	n := buf[0]
	if n == 0 {
		return
	}
	buf = buf[:1+n]
	r.w.Array(a, buf)
	for _, w := range buf[1:] {
		if err := l.Append(starlark.MakeUint64(w)); err != nil {
			panic(err) // checked mutable above
		}
	}
}
