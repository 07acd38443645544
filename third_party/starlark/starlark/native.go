// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import (
	"sync/atomic"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/internal/compile"
)

// nativeKey is the thread-local key under which an application may store
// a native hook, a function of type nativeHook:
//
//	func(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) func(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, bool)
//
// The interpreter offers each Starlark function to the hook at most once
// (not a module's top-level code, nor the functions of a program compiled
// without FileOptions.Recursion, whose calls check that the function is
// not on the stack already): at its first call if its code contains
// a loop (compile.Funcode.HasLoop), at its nativeCalls-th call otherwise.
// Calls with keyword arguments neither count nor use a native form. The
// hook gets the positional arguments of the call that offers fn (a view
// it must neither keep nor modify), from which it may learn what kinds of
// values the function takes; that call then runs as the others. The
// hook returns nil to decline: the function is not offered again. It
// returns a non-nil call to install it as the function's native form,
// shared by every thread that calls the function. A thread with no hook
// (or a value of another type under the key) when a function reaches its
// threshold marks it as never offered.
//
// Then each call of the function with positional arguments only, from
// the interpreter's loop or from Go (CallInternal), on a thread that has
// a hook, no step limit (SetMaxExecutionSteps), no OnMaxSteps, is not
// cancelled and takes no profile, runs call(thread, args) first. If it
// returns (v, true) with v non-nil, v is the call's result and the
// function's body does not run: no frame is pushed for it, and its steps
// are not counted. If it returns false, the function runs as usual, so
// call must have done nothing a program can observe, and it must return
// false wherever the plain run would fail; with a non-nil v, call gives
// the function up: its native form is dropped and it is not offered
// again, so its later calls cost what they cost without a hook (a form
// whose calls keep going back to the interpreter). args may be a view of the
// caller's operand stack: call must neither keep nor modify it. call runs
// with no check of cancellation. If the hook panics, the function is not
// offered again.
//
// The native form depends on the globals of the function's module that
// its code reads (GLOBAL instructions, in functions it defines too) and,
// transitively, that the functions of the same module among those values
// read. Their values are recorded when the form is installed (before the
// hook is called) and compared by identity before each native call; on
// any difference (a top-level `f = g` with FileOptions.GlobalReassign)
// the form is dropped and the function is counted and offered again as if
// it had never been; after nativeDrops such drops it is not offered
// again (a global rebound before every call would have it compiled at
// every call). A function that reads a global not assigned yet is not
// offered (its plain call fails where it reads it): it is counted again
// from zero.
const nativeKey = string(threadkey.Native)

// nativeMissKey is the thread-local key under which an application may
// store a function of type nativeMiss,
//
//	func(thread *starlark.Thread, fn *starlark.Function, why string)
//
// which hears of each call of fn, on that thread, that the interpreter
// runs although fn has (or had) a native form, for a reason the hook's
// form does not see: the call has keyword arguments, the thread may not
// run native forms (a step limit, OnMaxSteps, a profile, a
// cancellation), a global fn depends on was rebound and fn is being
// counted towards its next offer, or fn was given up (by its form, or
// after nativeDrops rebindings), which a thread with a nativeMiss leaves
// to it to hear rather than to nativeNever. why says which, in words
// ("keyword arguments"; "the global K it reads was rebound"; nativeGaveUp;
// nativeRebound). It is called on the calling goroutine, before the call
// runs; it must not call Starlark code.
const nativeMissKey = string(threadkey.NativeMiss)

// nativeMiss is the type of the function stored under nativeMissKey.
type nativeMiss = func(thread *Thread, fn *Function, why string)

// missNative tells the thread's nativeMiss, if any, that the interpreter
// runs a call of fn, for why.
func (fn *Function) missNative(thread *Thread, why string) {
	if m, ok := thread.Local(nativeMissKey).(nativeMiss); ok {
		m(thread, fn, why)
	}
}

// The reasons nativeMiss hears for a function given up: its calls all run
// in the interpreter from then on.
const (
	nativeGaveUp  = "its native form gave it up"
	nativeRebound = "the globals it reads were rebound too often: not offered again"
)

// giveUpNative leaves fn to the interpreter for good. Its state becomes
// nativeNever, and its calls cost what they cost without a hook; where
// thread has a nativeMiss, it stays installed with a form with no call,
// so that nativeMiss hears of each later call, for why.
func (fn *Function) giveUpNative(thread *Thread, why string) {
	if _, ok := thread.Local(nativeMissKey).(nativeMiss); ok {
		fn.native.form.Store(&nativeForm{lost: why})
		fn.native.state.Store(nativeInstalled)
		return
	}
	fn.native.form.Store(nil)
	fn.native.state.Store(nativeNever)
}

// nativeHook is the type of the hook stored under nativeKey.
type nativeHook = func(thread *Thread, fn *Function, args Tuple) func(thread *Thread, args Tuple) (Value, bool)

// nativeCalls is the call at which a function without a loop is offered.
const nativeCalls = 1000

// nativeDrops is how many times a function's native form may be dropped
// because a global it depends on changed before it is not offered again.
const nativeDrops = 4

// The states of nativeSlot.state other than a call count.
const (
	nativeNever     = ^uint32(0)     // not offered (again): the calls' fast path
	nativeInstalled = ^uint32(0) - 1 // nativeSlot.form holds the native form
	nativeOffering  = ^uint32(0) - 2 // being offered to a hook
)

// A nativeSlot is a Function's state with respect to the native hook.
// state counts the function's calls until it is offered, then holds one
// of the states nativeNever, nativeInstalled or nativeOffering; drops
// counts the forms dropped for a changed global. A call costs one atomic
// load and a comparison with nativeNever once the function is not to be
// offered again.
type nativeSlot struct {
	state atomic.Uint32
	drops atomic.Uint32
	form  atomic.Pointer[nativeForm]
}

// A nativeForm is a function's native form and the values of the globals
// it depends on when it was installed. A form with no call marks a
// function whose form was dropped, while it is counted towards its next
// offer: lost says why.
type nativeForm struct {
	call func(thread *Thread, args Tuple) (Value, bool)
	deps []nativeDep
	lost string
}

type nativeDep struct {
	index uint32 // in Module.globals
	v     Value
}

// callNative is the slow path of a call of fn with positional arguments
// args, taken when fn's state is not nativeNever: it counts the call,
// offers fn to the thread's hook at the threshold, and runs the native
// form if there is one and the thread may use it. It reports whether the
// call is done, with its result.
//
//go:noinline
func (fn *Function) callNative(thread *Thread, args Tuple) (Value, bool) {
	slot := &fn.native
	for {
		s := slot.state.Load()
		switch s {
		case nativeNever, nativeOffering:
			return nil, false
		case nativeInstalled:
			nf := slot.form.Load()
			if nf == nil {
				return nil, false
			}
			if nf.call == nil {
				// Given up, or dropped an instant ago.
				fn.missNative(thread, nf.lost)
				return nil, false
			}
			if !thread.nativeOK() {
				fn.missNative(thread, "the thread runs no native code (a step limit, OnMaxSteps, a profile or a cancellation)")
				return nil, false
			}
			if i := nf.changed(fn.module.globals); i >= 0 {
				// A global it depends on has changed: drop the form and
				// count this call as the first of a new round, or, after
				// nativeDrops rounds, never offer the function again.
				lost := &nativeForm{lost: "the global " + fn.module.program.compiled.Globals[nf.deps[i].index].Name + " it reads was rebound"}
				if slot.form.CompareAndSwap(nf, lost) {
					if slot.drops.Add(1) >= nativeDrops {
						fn.giveUpNative(thread, nativeRebound)
					} else {
						slot.state.Store(0)
					}
				}
				continue
			}
			v, ok := nf.call(thread, args)
			if !ok && v != nil {
				// The form gives the function up.
				if slot.form.CompareAndSwap(nf, nil) {
					fn.giveUpNative(thread, nativeGaveUp)
				}
				return nil, false
			}
			return v, ok && v != nil
		}
		threshold := uint32(nativeCalls)
		if fn.funcode.HasLoop() {
			threshold = 1
		}
		if s+1 < threshold {
			if slot.state.CompareAndSwap(s, s+1) {
				if lost := slot.form.Load(); lost != nil && lost.call == nil {
					fn.missNative(thread, lost.lost)
				}
				return nil, false
			}
			continue
		}
		if slot.state.CompareAndSwap(s, nativeOffering) {
			next := fn.offerNative(thread, args)
			slot.state.Store(next)
			if next == 0 {
				// Not offered (a global it reads is not assigned yet):
				// the interpreter runs this call, which fails where it
				// reads the global. Looping would offer it again at
				// once, forever, where the threshold is 1.
				return nil, false
			}
		}
	}
}

// callNativeKw is callNative for CallInternal, whose calls may have
// keyword arguments: those neither count nor use a native form.
//
//go:noinline
func (fn *Function) callNativeKw(thread *Thread, args Tuple, kwargs []Tuple) (Value, bool) {
	if len(kwargs) != 0 {
		if fn.native.state.Load() == nativeInstalled {
			fn.missNative(thread, "keyword arguments")
		}
		return nil, false
	}
	return fn.callNative(thread, args)
}

// offerNative offers fn to the thread's hook and returns fn's new state.
func (fn *Function) offerNative(thread *Thread, args Tuple) uint32 {
	hook := thread.native
	if f := fn.funcode; hook == nil || f == f.Prog.Toplevel || !f.Prog.Recursion {
		return nativeNever
	}
	deps := nativeDeps(fn)
	for _, d := range deps {
		if d.v == nil {
			// A global it reads is not assigned yet: the plain call fails
			// where it reads it. Counted again from the start.
			return 0
		}
	}
	call := hook(thread, fn, args)
	if call == nil {
		return nativeNever
	}
	fn.native.form.Store(&nativeForm{call: call, deps: deps})
	return nativeInstalled
}

// nativeOK reports whether thread may run native forms: it has a hook, no
// step limit, no OnMaxSteps, is not cancelled, and no profile is taken.
func (thread *Thread) nativeOK() bool {
	return thread.native != nil && thread.maxSteps == ^uint64(0) && thread.OnMaxSteps == nil &&
		profiler.events == nil && thread.cancelReason.Load() == nil
}

// nativeDeps returns the current values of the globals fn's native form
// depends on: those its code reads, and, for each function of the same
// module among them, those its code reads, transitively.
func nativeDeps(fn *Function) []nativeDep {
	globals := fn.module.globals
	seen := make(map[*compile.Funcode]bool)
	read := make(map[uint32]bool)
	var deps []nativeDep
	var walk func(f *compile.Funcode)
	global := func(i uint32) {
		if read[i] {
			return
		}
		read[i] = true
		v := globals[i]
		deps = append(deps, nativeDep{index: i, v: v})
		if h, ok := v.(*Function); ok && h.module == fn.module {
			walk(h.funcode)
		}
	}
	walk = func(f *compile.Funcode) {
		if !seen[f] {
			seen[f] = true
			f.Reads(global, walk)
		}
	}
	walk(fn.funcode)
	return deps
}

// changed returns the index in nf.deps of the first global the form
// depends on whose value is not the one it had when the form was
// installed, or -1 where none changed.
func (nf *nativeForm) changed(globals []Value) int {
	for i, d := range nf.deps {
		if !sameValue(globals[d.index], d.v) {
			return i
		}
	}
	return -1
}

// sameValue reports whether x and y are the same interface value: the
// same dynamic type and the same data word. Unlike ==, it never panics
// (a Tuple is not comparable); equal values in different boxes (two
// equal strings) are different.
func sameValue(x, y Value) bool {
	return *(*[2]uintptr)(unsafe.Pointer(&x)) == *(*[2]uintptr)(unsafe.Pointer(&y))
}
