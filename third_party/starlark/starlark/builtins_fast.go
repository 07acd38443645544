// bitsh fork: len, max, min and range called from the interpreter's loop
// without a call (README.bitsh.md, changes 30 and 32).

package starlark

import "github.com/bitsh/bitsh/builtins/threadkey"

// Universe's len, max, min and range, recognized by the loop (callFast).
var (
	lenBuiltin   = NewBuiltin("len", len_)
	maxBuiltin   = NewBuiltin("max", minmax)
	minBuiltin   = NewBuiltin("min", minmax)
	rangeBuiltin = NewBuiltin("range", range_)
)

// lenKey is the thread-local key under which an application that
// predeclares its own len (bitsh's counts its lazy values) may store that
// *Builtin, named "len", promising that for a list, tuple, string, dict or
// set it returns what Universe's does; callFast then computes it too.
const lenKey = string(threadkey.Len)

// callFast returns the result of a call of fn with the positional
// arguments args, without the call, where fn is Universe's len (or the
// builtin under lenKey) of a list, tuple, string, dict or set,
// Universe's max or min of two ints in int32 range, or Universe's range of
// one to three such ints (rangeFast); it returns nil
// otherwise, and the call runs as written. Those calls cannot fail, call
// back into Starlark or count steps, so the loop's result, steps and
// backtraces are the call's.
func callFast(thread *Thread, fn Value, args []Value) Value {
	b, ok := fn.(*Builtin)
	if !ok {
		return nil
	}
	if b == rangeBuiltin {
		return rangeFast(args)
	}
	switch len(args) {
	case 1:
		if b != lenBuiltin && (b != thread.lenFn || b.name != "len" || b.recv != nil) {
			return nil
		}
		var n int
		switch x := args[0].(type) {
		case *List:
			n = len(x.elems)
		case Tuple:
			n = len(x)
		case String:
			n = len(x)
		case *Dict:
			n = int(x.ht.len)
		case *Set:
			n = int(x.ht.len)
		default:
			return nil
		}
		return MakeInt(n)
	case 2:
		if b != maxBuiltin && b != minBuiltin {
			return nil
		}
		x, y, ok := smallPair(args[0], args[1])
		if !ok {
			return nil
		}
		// max keeps the first of equal values, as min does.
		if b == maxBuiltin && y > x || b == minBuiltin && y < x {
			return args[1]
		}
		return args[0]
	}
	return nil
}

// rangeFast returns range(*args) where args are one to three ints in
// int32 range and the step is not zero, as range_ makes it (no such range
// has more than MaxInt items), without the call and the copy of its
// arguments; nil otherwise.
func rangeFast(args []Value) Value {
	if len(args) == 0 || len(args) > 3 {
		return nil
	}
	var v [3]int
	for i, a := range args {
		x, ok := a.(Int)
		if !ok {
			return nil
		}
		n, ok := x.small()
		if !ok {
			return nil
		}
		v[i] = int(n)
	}
	start, stop, step := v[0], v[1], 1
	switch len(args) {
	case 1:
		start, stop = 0, v[0]
	case 3:
		step = v[2]
	}
	if step == 0 {
		return nil
	}
	return rangeValue{start: start, stop: stop, step: step, len: rangeLen(start, stop, step)}
}
