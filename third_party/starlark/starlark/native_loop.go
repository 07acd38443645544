// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import (
	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/syntax"
)

// nativeLoopKey is the thread-local key under which an application may
// store a native loop hook, a function of type nativeLoopHook:
//
//	func(thread *starlark.Thread, fn *starlark.Function, pos syntax.Position, names []string) func(thread *starlark.Thread, globals []starlark.Value, rest starlark.Tuple) (done bool, wait int)
//
// A loop of a module's top-level code (compile.Funcode.Loops) whose back
// edges the interpreter has taken nativeLoopEdges times, on a thread that
// may run native forms (nativeOK) and has such a hook, is offered to it
// once, at a back edge: fn is the module's top-level function, pos the
// position of the loop's while or for keyword, names the module's
// globals, in the order of the globals slice the form gets. A for loop is
// offered only while it iterates over a range with nativeLoopRest
// elements or more left, a while loop only where a path leaves it
// (compile.Loop.Done). The hook returns nil to
// decline: the loop is not offered again. It returns a non-nil form to
// install it: the interpreter then calls it at this back edge and at the
// loop's later back edges, as wait says, with the module's globals (the
// slice itself, which the form may write) and, for a for loop, rest, the
// range's elements not yet taken, as (start, stop, step) (nil for a
// while loop), which the form must not keep.
//
// The form returns done true where it has run the rest of the loop
// itself: the interpreter continues after the loop (a while loop at its
// Done; a for loop's range iterator is exhausted, so that its ITERJMP
// ends it). It must then have written the globals the loop assigns, as
// the interpreter would have. It returns done false where it has changed
// nothing a program can observe: the interpreter runs the loop on, and
// calls the form again after wait more back edges (wait < 0: never
// again). The form runs with no check of cancellation. The state at a
// back edge is the globals only (and the iterator): re-entering a while
// loop at its condition, or a for loop at its next element, is what the
// interpreter does there.
const nativeLoopKey = string(threadkey.NativeLoop)

// nativeLoopHook is the type of the hook stored under nativeLoopKey.
type nativeLoopHook = func(thread *Thread, fn *Function, pos syntax.Position, names []string) func(thread *Thread, globals []Value, rest Tuple) (bool, int)

// nativeLoopEdges is how many back edges of a loop of top-level code the
// interpreter takes before it offers the loop.
const nativeLoopEdges = 1000

// nativeLoopRest is the fewest elements a for loop's range must have left
// for the loop to be offered, or its form called, at a back edge: the
// last few are the interpreter's (an inner loop of a few iterations,
// entered again and again, is quicker interpreted than handed over).
const nativeLoopRest = 16

// nativeLoops are a top-level function's loops' states (Function.loops).
type nativeLoops struct {
	loops []nativeLoop
}

// A nativeLoop is the state of one loop of a top-level function, indexed
// as compile.Funcode.Loops. Only the goroutine that runs the top-level
// code reads or writes it.
type nativeLoop struct {
	edges uint32 // back edges taken
	next  uint32 // the back edge at which the loop is offered, or its form called, next
	off   bool   // not offered (again), or the form said never again
	form  func(thread *Thread, globals []Value, rest Tuple) (bool, int)
	rest  [3]Value // the form's rest (a for loop's)
}

// loopOff leaves loop l to the interpreter for good, and, where every
// loop of fn is, has the interpreter skip backEdge (Function.loopsOff).
func (fn *Function) loopOff(l *nativeLoop) {
	l.off = true
	for j := range fn.loops.loops {
		if !fn.loops.loops[j].off {
			return
		}
	}
	fn.loopsOff = true
}

// backEdge is the interpreter's JMP entry w at pc0, a back edge of a loop
// of top-level code, to the head of the loop whose index plus 1 is in
// bits 16-31 (compile.Funcode.Decoded): it counts the edge and returns
// where to jump, after the loop where the rest of it ran as native code.
//
//go:noinline
func (fn *Function) backEdge(thread *Thread, fr *frame, pc0 uint32, w uint64, iterstack []Iterator) uint32 {
	arg := uint32(w >> 32)
	if fn.loopsOff {
		return arg
	}
	if ls := fn.loops; ls == nil || ls.hot(w) {
		fr.pc = pc0
		if next, ok := fn.atLoop(thread, uint32(w>>16)&0xffff-1, iterstack); ok {
			return next
		}
	}
	return arg
}

// hot reports whether the back edge w (backEdge) is one
// for atLoop: its loop is not off, and the edge is the one at which the
// loop is offered or its form called; otherwise it counts the edge.
func (ls *nativeLoops) hot(w uint64) bool {
	i := uint32(w>>16)&0xffff - 1
	if int(i) >= len(ls.loops) {
		return false
	}
	l := &ls.loops[i]
	if l.off {
		return false
	}
	if l.edges+1 < l.next {
		l.edges++
		return false
	}
	return true
}

// atLoop is the slow path of a back edge of top-level code, to the head
// of loop i (backEdge). It reports whether the rest of the loop
// ran as native code, and where the interpreter continues: for a for
// loop, its head, with its iterator (on top of iterstack) exhausted.
//
//go:noinline
func (fn *Function) atLoop(thread *Thread, i uint32, iterstack []Iterator) (uint32, bool) {
	f := fn.funcode
	if fn.loops == nil {
		fn.loops = &nativeLoops{loops: make([]nativeLoop, len(f.Loops))}
		for j := range fn.loops.loops {
			fn.loops.loops[j].next = nativeLoopEdges
		}
	}
	if int(i) >= len(f.Loops) {
		return 0, false
	}
	if thread.native == nil || thread.maxSteps != ^uint64(0) || thread.OnMaxSteps != nil {
		// The thread's for good: every loop is the interpreter's.
		for j := range fn.loops.loops {
			fn.loops.loops[j].off = true
		}
		fn.loopsOff = true
		return 0, false
	}
	l := &fn.loops.loops[i]
	if l.off {
		return 0, false
	}
	l.edges++
	if l.edges < l.next || !thread.nativeOK() {
		return 0, false
	}
	loop := &f.Loops[i]
	if !loop.For && loop.Done == ^uint32(0) {
		// No path leaves the loop (while True without a break): it ends
		// in an error or a cancellation, the interpreter's to raise.
		fn.loopOff(l)
		return 0, false
	}
	var rest Tuple
	var it *rangeIterator
	if loop.For {
		if len(iterstack) > 0 {
			it, _ = iterstack[len(iterstack)-1].(*rangeIterator)
		}
		if it == nil || it.r.len-it.i < nativeLoopRest {
			return 0, false // not a range (never offered while so), or near its end
		}
		start := it.r.start + it.i*it.r.step
		l.rest = [3]Value{MakeInt(start), MakeInt(it.r.stop), MakeInt(it.r.step)}
		rest = l.rest[:]
	}
	if l.form == nil {
		hook, _ := thread.Local(nativeLoopKey).(nativeLoopHook)
		if hook == nil {
			fn.loopOff(l)
			return 0, false
		}
		globals := fn.module.program.compiled.Globals
		names := make([]string, len(globals))
		for j, g := range globals {
			names[j] = g.Name
		}
		l.form = hook(thread, fn, loop.Pos, names)
		if l.form == nil {
			fn.loopOff(l)
			return 0, false
		}
	}
	done, wait := l.form(thread, fn.module.globals, rest)
	if !done {
		if wait < 0 {
			l.form = nil
			fn.loopOff(l)
		} else {
			l.next = l.edges + uint32(min(wait, 1<<30))
		}
		return 0, false
	}
	if it != nil {
		it.i = it.r.len
		return loop.Head, true
	}
	return loop.Done, true
}
