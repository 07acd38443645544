package builtins

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/machine"
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
// nativeHook is what SetEnv installs under nativeKey. args are those of
// the call that offers fn: a list among them makes that parameter a list
// of its length, a word array, for every call.
func nativeHook(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
	env := EnvOf(thread)
	report := env.NativeReport
	strict := env.NativeStrict && !strings.HasPrefix(fn.Position().Filename(), dialect.StdlibPrefix) && !inCallout(thread)
	tally := env.NativeStats.offered(fn)
	nf, pending, err := compileNative(thread, fn, args, report, tally, strict)
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

// nativeFunc is a plain function compiled to machine code, and what the
// hook keeps of its calls.
type nativeFunc struct {
	f  *fuse.Func
	pc *machine.PlainCode
	// wasted and paid count the timed calls whose conversions took more,
	// and less, than wasteRatio times the code's run.
	wasted, paid atomic.Int64
	pool         machine.Pool[nativeRun] // workers between calls
	// runs and fails count the calls run as code and those the code
	// gave back to the interpreter; off stops using the code where most
	// calls fail (or giveUp says so).
	runs, fails atomic.Int64
	giveUp      giveUp
	off         atomic.Bool
	// fn is the function compiled, tally its counts (nil: no report),
	// strict whether a call the interpreter runs is an error, offWhy why
	// off was set.
	fn     *starlark.Function
	tally  *nativeTally
	strict bool
	offWhy atomic.Pointer[string]
	// calloutBound: its code does little but call helpers that stay
	// interpreted; callouts and calloutCalls count those calls and the
	// calls of it that made them (native_giveup.go).
	calloutBound           bool
	callouts, calloutCalls atomic.Int64
	// calloutSave is the share of the interpreter's time its code saves
	// (-1: it makes no callout in a loop), calloutFails the calls that
	// made callouts and failed (native_giveup.go).
	calloutSave  float64
	calloutFails atomic.Int64
}

// switchOff leaves the function to the interpreter from now on, for why.
func (nf *nativeFunc) switchOff(why string) {
	nf.offWhy.CompareAndSwap(nil, &why)
	nf.off.Store(true)
}

// machineEnv is what the compiler reads of the run on thread.
func machineEnv(thread *starlark.Thread) machine.Env {
	env := EnvOf(thread)
	menv := machine.Env{
		Context:   Context(thread),
		Sources:   env.Sources,
		Reserve:   func(what string, bytes int64) error { return CheckAlloc(thread, what, bytes) },
		MaxMemory: MaxMemory(thread),
		Workers:   Workers(thread),
		Builtin:   builtinValue,
		Words:     wordsOf,
		Thread:    thread,
	}
	if scope := env.Scope; scope != nil {
		menv.Scope = func() []string { return scope(nil) }
	}
	return menv
}

// builtinValue looks up bitsh's builtin of a name for the compiler.
func builtinValue(name string) (starlark.Value, bool) {
	b, ok := Lookup(name)
	return b.Value, ok
}

// wordsOf gives the words of a word array.
func wordsOf(v starlark.Value) ([]uint64, bool) {
	if a, ok := v.(*Words); ok {
		return a.Uint64s(), true
	}
	return nil, false
}

// compileNative compiles fn as a plain function run as machine code
// (machine.Plain), for calls shaped as args, or says why it cannot.
// pending: the machine code is still being generated, and report, if not
// nil, hears how that ends. tally (nil: none) counts the calls; strict
// waits for the code (no call is interpreted while it is generated).
func compileNative(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple, report func(*starlark.Function, error), tally *nativeTally, strict bool) (nf *nativeFunc, pending bool, err error) {
	code, err := machine.Compile(fn, machine.Plain(args), machineEnv(thread))
	if err != nil {
		return nil, false, err
	}
	nf = &nativeFunc{f: code.Func, pc: code.Plain, fn: fn, tally: tally, strict: strict, calloutBound: calloutBound(code.Func), calloutSave: calloutSaving(code.Func)}
	tally.compiled(nf)
	ready := nf.pc.Ready()
	if !strict && !EnvOf(thread).waitForCode {
		if !waitCode(thread, ready) { // (native_wait.go)
			// Still generating: the interpreter runs the calls until the
			// code is ready, and report hears how it ends.
			go func() {
				<-ready
				nf.generated()
				if err := nf.pc.Err(); err != nil {
					nf.tally.refuse(fn, err)
				}
				if report != nil {
					report(fn, nf.pc.Err())
				}
			}()
			return nf, true, nil
		}
	}
	<-ready
	nf.generated()
	if err := nf.pc.Err(); err != nil {
		return nil, false, err
	}
	return nf, false, nil
}

// generated switches nf off where its code could not be generated.
func (nf *nativeFunc) generated() {
	if err := nf.pc.Err(); err != nil {
		nf.switchOff(err.Error())
	}
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

// nativeRun is a worker, the context its runs poll (the poll function is
// bound once, so that a call allocates nothing), and room for the words
// of the lists a call passes.
type nativeRun struct {
	w      *native.Worker
	thread *starlark.Thread // the run's, whose context poll reads
	ctx    context.Context
	buf    []uint64
	hashes []hashRun // the module's sets and dicts (native_hashes.go)
	// env is the thread's environment, args room for a helper's
	// arguments, for the calls of helpers that stay interpreted
	// (native_callouts.go).
	env   *threadEnv
	args  starlark.Tuple
	calls uint64           // the helpers called in the run
	kept  []starlark.Value // the results kept for a print, by callout
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
func (nf *nativeFunc) get(p *native.Executable, thread *starlark.Thread) (*nativeRun, error) {
	if r := nf.pool.Get(); r != nil {
		return r, nil
	}
	if err := CheckAlloc(thread, "a function run as machine code", int64(p.MemoryBytes())); err != nil {
		return nil, err
	}
	r := &nativeRun{}
	w, err := p.NewWorker(r.poll)
	if err != nil {
		return nil, err
	}
	r.w = w
	if hasCallouts(nf.f) {
		w.SetCallout(nf.calloutOf(r)) // (native_print.go)
	}
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
	case len(args) != nf.f.Params+nf.pc.NLists+nf.pc.NHashes:
		return nf.miss(thread, fbArity) // (too few or too many arguments: the interpreter's error)
	}
	var ws [compile.MaxExactParams]uint64
	var ls [compile.MaxExactParams + machine.MaxGlobals]*starlark.List
	var hs [compile.MaxExactParams]starlark.Value // the sets and dicts passed (native_hashes.go)
	nw, nl, nh := 0, 0, 0
	// A call with many words to convert or compare is timed: where the
	// conversions take much longer than the code, the interpreter would
	// have been quicker (the function reads a few elements of a long
	// list), and such a function is left to it.
	var start, ran time.Time
	timed := nf.pc.Words > timedWords || nf.hashWords(args) > timedWords
	if timed {
		start = time.Now()
	}
	for i, a := range args {
		if nf.pc.HashParams != nil && nf.pc.HashParams[i] != 0 {
			if !hashArg(a, nf.pc.HashParams[i]) {
				return nf.missArg(thread, i, argNotHash)
			}
			hs[nh] = a
			nh++
			continue
		}
		if nf.pc.Lists != nil && nf.pc.Lists[i] >= 0 {
			l, ok := a.(*starlark.List)
			switch {
			case !ok:
				return nf.missArg(thread, i, argNotList)
			case l.Len() != nf.pc.Lists[i]:
				return nf.missArg(thread, i, argLength)
			case slices.Contains(ls[:nl], l):
				return nf.missArg(thread, i, argTwice) // (the code would not see one write in the other)
			}
			ls[nl] = l
			nl++
			continue
		}
		if nf.pc.Bools != nil && nf.pc.Bools[i] {
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
	for _, g := range nf.pc.Globals {
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
	for i := range nf.pc.Tables {
		t := &nf.pc.Tables[i]
		if !t.Holds() {
			if nf.giveUp.changed(nf.runs.Load()) {
				nf.switchOff("a global list it reads as a table had changed before many of its calls")
			}
			return nf.miss(thread, fbTable)
		}
		for a, l := range ls[:nl] {
			if t.HoldsList(l) {
				if a >= nf.pc.NLists {
					return nf.miss(thread, fbGlobalShared)
				}
				return nf.missArg(thread, nf.param(a), argInTable) // (the code would not see its writes in the table)
			}
		}
	}
	for a, l := range ls[:nl] {
		// A list the code may write must be one Starlark lets it write
		// (not frozen, not being iterated).
		if nf.pc.Written[a] && !machine.Mutable(l) {
			return nf.miss(thread, fbFrozen)
		}
	}
	// The code is generated on another goroutine: a call that comes
	// before it is ready (and that it would take) is interpreted.
	p := nf.pc.Executable()
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
	defer nf.pool.Put(r)
	for a, l := range ls[:nl] {
		if nf.isLog(a) {
			r.w.SetElem(a, 0, 0) // nothing appended yet
			continue
		}
		buf := r.words(l.Len())
		for j := range buf {
			var ok bool
			if buf[j], ok = machine.Encode(l.Index(j), nf.pc.Bias[a]); !ok {
				if a >= nf.pc.NLists {
					return nf.miss(thread, fbGlobalElem)
				}
				return nf.missArg(thread, nf.param(a), argElem)
			}
		}
		r.w.SetArray(a, buf)
	}
	if !nf.fillHashes(r, hs[:nh]) {
		if nf.giveUp.changed(nf.runs.Load()) {
			nf.switchOff("a set or dict of its module held what its code cannot take, or was frozen, before many of its calls")
		}
		return nf.miss(thread, fbGlobalHash)
	}
	if !r.w.SetDepth(depth) && depth < nf.f.MaxCalls() {
		return nf.miss(thread, fbStack) // (an engine that allows its MaxCalls only: not here)
	}
	r.thread, r.env, r.calls = thread, nil, 0
	for i := range nw {
		r.w.Params(i)[0] = ws[i]
	}
	if timed {
		ran = time.Now()
	}
	var res []uint64
	if hasCallouts(nf.f) {
		res, err = nf.runPrinting(r, thread)
	} else {
		_, res, err = r.w.Run(1, false)
	}
	if timed {
		nf.weigh(start, ran, time.Now())
	}
	r.ctx, r.thread, r.env = nil, nil, nil
	work, weighed := r.w.Work()
	madeCallouts := r.calls > 0
	if r.calls > 0 {
		// Its calls of helpers in the interpreter, which a failed run
		// wastes too (native_callouts.go).
		work, weighed = work+calloutWork*r.calls, true
		nf.countCallouts(r.calls) // (native_giveup.go)
		r.calls = 0
	}
	if err != nil {
		// The interpreter runs it: an int left the words, or Starlark
		// fails there too (with its own message), or the run was
		// cancelled (the interpreter stops at its next step).
		f := nf.fails.Add(1)
		if f > 64 && f > 2*nf.runs.Load() {
			nf.switchOff("most of its calls failed in the code")
		} else if weighed && nf.giveUp.failed(f, work) {
			nf.switchOff("its calls that failed in the code wasted more work there than the others did")
		} else if madeCallouts {
			nf.calloutFailed(f) // (native_giveup.go)
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
		if !nf.pc.Written[a] {
			continue
		}
		if nf.isLog(a) {
			nf.appendLog(r, a, l)
			continue
		}
		buf := r.words(l.Len())
		r.w.Array(a, buf)
		for j, w := range buf {
			if old, _ := machine.Encode(l.Index(j), nf.pc.Bias[a]); old != w {
				if err := l.SetIndex(j, machine.Decode(w, nf.pc.Bias[a])); err != nil {
					panic(err) // checked mutable above
				}
			}
		}
	}
	nf.writeHashes(thread, r, hs[:nh])
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
			t[i] = machine.Decode(w, bias)
		}
		if nf.f.ReturnsList {
			return starlark.NewList(t), true
		}
		return t, true
	case nf.f.ReturnsBool:
		return starlark.Bool(word != 0), true
	}
	return machine.Decode(word, nf.f.ResultBias), true
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
	for i, n := range nf.pc.Lists {
		if n >= 0 {
			if a == 0 {
				return i
			}
			a--
		}
	}
	return 0
}

// words returns r's room for n words.
func (r *nativeRun) words(n int) []uint64 {
	if cap(r.buf) < n {
		r.buf = make([]uint64, n)
	}
	return r.buf[:n]
}

// isLog reports whether the array parameter a is the append log of a
// module's list (compile.Global.Log).
func (nf *nativeFunc) isLog(a int) bool {
	return a >= nf.pc.NLists && nf.pc.Globals[a-nf.pc.NLists].Log
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
