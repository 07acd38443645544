// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import (
	"fmt"
	"math"
	"math/bits"

	"go.starlark.net/internal/compile"
)

// intBinary computes x op y for the interpreter when x and y are both
// ints, calling the same Int method as Binary would, without Binary's
// switches on the operator and on both operands' types. It reports false
// when x or y is not an int, or when the operation can fail (a division by
// zero, a shift count that is not small), so that Binary computes it and
// reports the error as before.
func intBinary(op compile.Opcode, x, y Value) (Value, bool) {
	op = arithOf(op)
	xi, ok := x.(Int)
	if !ok {
		return nil, false
	}
	yi, ok := y.(Int)
	if !ok {
		return nil, false
	}
	if a, ok := xi.small(); ok {
		if b, ok := yi.small(); ok {
			// Both in int32 range: as Int's methods compute them.
			switch op {
			case compile.PLUS:
				return MakeInt64(a + b), true
			case compile.MINUS:
				return MakeInt64(a - b), true
			case compile.STAR:
				return MakeInt64(a * b), true
			case compile.AMP:
				return makeSmallInt(a & b), true
			case compile.PIPE:
				return makeSmallInt(a | b), true
			case compile.CIRCUMFLEX:
				return makeSmallInt(a ^ b), true
			case compile.LTLT:
				if 0 <= b && b < 32 {
					return MakeInt64(a << b), true
				}
			case compile.GTGT:
				if 0 <= b {
					return makeSmallInt(a >> min(b, 63)), true
				}
			}
		}
	}
	a, ok := xi.wordFast()
	if !ok {
		a, ok = xi.word()
	}
	if ok {
		b, ok := yi.wordFast()
		if !ok {
			b, ok = yi.word()
		}
		if ok {
			// Both in [0, 2^64): as addBig, subBig, ... compute them.
			// A result r in [0, 2^64) is made inline where it is an int32
			// value or a word (wordInt), by makeWord otherwise.
			var r uint64
			switch op {
			case compile.PLUS:
				lo, carry := bits.Add64(a, b, 0)
				if carry != 0 {
					return makeUint128(carry, lo), true
				}
				r = lo
			case compile.MINUS:
				if a < b {
					goto general
				}
				r = a - b
			case compile.STAR:
				hi, lo := bits.Mul64(a, b)
				if hi != 0 {
					return makeUint128(hi, lo), true
				}
				r = lo
			case compile.AMP:
				r = a & b
			case compile.PIPE:
				r = a | b
			case compile.CIRCUMFLEX:
				r = a ^ b
			case compile.LTLT:
				if b >= 64 {
					goto general
				}
				if hi := a >> (64 - b); hi != 0 { // a>>64 is 0
					return makeUint128(hi, a<<b), true
				}
				r = a << b
			case compile.GTGT:
				if b >= 64 {
					goto general
				}
				r = a >> b
			default:
				goto general
			}
			if r <= math.MaxInt32 {
				return makeSmallInt(int64(r)), true
			}
			if z, ok := wordInt(r); ok {
				return z, true
			}
			return makeWord(r), true
		}
	}
general:
	switch op {
	case compile.PLUS:
		return xi.Add(yi), true
	case compile.MINUS:
		return xi.Sub(yi), true
	case compile.STAR:
		return xi.Mul(yi), true
	case compile.AMP:
		return xi.And(yi), true
	case compile.PIPE:
		return xi.Or(yi), true
	case compile.CIRCUMFLEX:
		return xi.Xor(yi), true
	case compile.LTLT, compile.GTGT:
		n, nBig := yi.get()
		if nBig != nil || n < 0 || n >= 512 {
			return nil, false // Binary reports the error
		}
		if op == compile.LTLT {
			return xi.Lsh(uint(n)), true
		}
		return xi.Rsh(uint(n)), true
	case compile.SLASHSLASH, compile.PERCENT:
		if yi.Sign() == 0 {
			return nil, false // Binary reports the error
		}
		if op == compile.SLASHSLASH {
			return xi.Div(yi), true
		}
		return xi.Mod(yi), true
	}
	return nil, false
}

// intCompare computes x op y for a comparison op (EQL to GE) when x and y
// are both ints, as Compare would; it reports false otherwise.
func intCompare(op compile.Opcode, x, y Value) (bool, bool) {
	xi, ok := x.(Int)
	if !ok {
		return false, false
	}
	yi, ok := y.(Int)
	if !ok {
		return false, false
	}
	var c int
	a, aSmall := xi.small()
	b, bSmall := yi.small()
	if aSmall && bSmall {
		c = signum64(a - b) // safe: int32 operands
	} else if a, b, ok := bothWords(xi, yi); ok {
		c = cmpWords(a, b)
	} else {
		c, _ = xi.Cmp(yi, 0) // Int.Cmp never fails
	}
	switch op {
	case compile.EQL:
		return c == 0, true
	case compile.NEQ:
		return c != 0, true
	case compile.GT:
		return c > 0, true
	case compile.LT:
		return c < 0, true
	case compile.LE:
		return c <= 0, true
	case compile.GE:
		return c >= 0, true
	}
	return false, false
}

// callFunction is Call for the interpreter's calls of a Starlark function
// without keyword arguments: the same frame, profile spans and errors,
// without Call's interface checks and defer. If a panic passes through,
// the nearest enclosing Call pops the frames it leaves.
func callFunction(thread *Thread, fn *Function, args Tuple) (Value, error) {
	// profiler.events is tested here as beginProfSpan and endProfSpan test
	// it, which Go does not inline.
	if profiler.events != nil {
		thread.endProfSpan()
	}
	fr := thread.pushFrame(fn)
	if profiler.events != nil {
		thread.beginProfSpan()
	}

	result, err := fn.CallInternal(thread, args, nil)

	if result == nil && err == nil {
		err = fmt.Errorf("internal error: nil (not None) returned from %s", fn)
	}
	if err != nil && !is[*EvalError](err) {
		err = thread.evalError(err)
	}
	if profiler.events != nil {
		thread.endProfSpan()
	}
	*fr = frame{}
	thread.stack = thread.stack[:len(thread.stack)-1] // pop
	if profiler.events != nil {
		thread.beginProfSpan()
	}
	return result, err
}

// stopping reports whether the step limit is reached or the thread
// cancelled; stepLimit then acts on it.
func (thread *Thread) stopping() bool {
	return thread.Steps >= thread.maxSteps || thread.cancelReason.Load() != nil
}

// stepLimit calls OnMaxSteps, or cancels the thread, if the step limit is
// reached, and returns the cancellation error if the thread is cancelled,
// as the interpreter did before each instruction.
func (thread *Thread) stepLimit(fr *frame, pc uint32) error {
	if thread.Steps >= thread.maxSteps {
		if thread.OnMaxSteps != nil {
			fr.pc = pc
			thread.OnMaxSteps(thread)
		} else {
			thread.Cancel("too many steps")
		}
	}
	if reason := thread.cancelReason.Load(); reason != nil {
		return fmt.Errorf("Starlark computation cancelled: %s", *reason)
	}
	return nil
}

// callBuiltin is Call for the interpreter's calls of a builtin while no
// profile is being taken: the same frame and errors, without Call's
// interface checks, profile spans and defer. If a panic passes through,
// the nearest enclosing Call pops the frame.
func callBuiltin(thread *Thread, b *Builtin, args Tuple, kwargs []Tuple) (Value, error) {
	fr := thread.pushFrame(b)
	result, err := b.fn(thread, b, args, kwargs)
	if result == nil && err == nil {
		err = fmt.Errorf("internal error: nil (not None) returned from %s", b)
	}
	if err != nil && !is[*EvalError](err) {
		err = thread.evalError(err)
	}
	*fr = frame{}
	thread.stack = thread.stack[:len(thread.stack)-1] // pop
	return result, err
}

// pushFrame pushes a frame for fn, reusing the slack of thread.stack as
// Call does.
func (thread *Thread) pushFrame(fn Callable) *frame {
	var fr *frame
	if n := len(thread.stack); n < cap(thread.stack) {
		fr = thread.stack[n : n+1][0]
	}
	if fr == nil {
		fr = new(frame)
	}
	thread.stack = append(thread.stack, fr) // push
	fr.callable = fn
	return fr
}

// enter begins a call of fn in frame fr, the top of thread's stack: it
// checks the recursion rules, allocates the call's locals and operand stack
// and binds the arguments, as the start of CallInternal did. On error, the
// space is nil and its mark the valueStack's top, so that releasing it
// changes nothing.
func (fn *Function) enter(thread *Thread, fr *frame, args Tuple, kwargs []Tuple) ([]Value, valueMark, error) {
	f := fn.funcode
	if f.Prog.Recursion {
		// prevent stack overflow
		//
		// Each CallInternal recursion (via Call) uses ~1.4KB,
		// but the stack limit is on the order of 1GB, so a
		// maximum of about 700K recursive calls is possible.
		// Limit it to much less here.
		if len(thread.stack) > maxDepth {
			return nil, thread.values.top(), fmt.Errorf("Starlark stack overflow")
		}
	} else {
		// detect recursion
		for _, fr := range thread.stack[:len(thread.stack)-1] {
			// We look for the same function code,
			// not function value, otherwise the user could
			// defeat the check by writing the Y combinator.
			if frfn, ok := fr.Callable().(*Function); ok && frfn.funcode == f {
				return nil, thread.values.top(), fmt.Errorf("function %s called recursively", fn.Name())
			}
		}
	}

	// Allocate space for stack and locals (valstack.go).
	nlocals := len(f.Locals)
	space, mark := thread.values.alloc(nlocals + f.MaxStack)
	locals := space[:nlocals:nlocals]

	// Digest arguments and set parameters: positional arguments only, one
	// for each parameter, bound here as setArgs binds them.
	if len(kwargs) == 0 && len(args) == f.NumParams && len(args) > 0 &&
		!f.HasVarargs && !f.HasKwargs && f.NumKwonlyParams == 0 {
		for i := 0; i < len(args); i++ {
			locals[i] = args[i]
		}
	} else if err := setArgs(locals, fn, args, kwargs); err != nil {
		thread.values.release(space, mark)
		return nil, mark, thread.evalError(err)
	}
	fr.locals = locals

	// Spill indicated locals to cells.
	// Each cell is a separate alloc to avoid spurious liveness.
	for _, index := range f.Cells {
		locals[index] = &cell{locals[index]}
	}
	return space, mark, nil
}

// An inlineFrame is the state of the interpreter's loop in a function
// whose callee the loop runs itself, saved until the callee returns: a
// Starlark-to-Starlark call without keyword arguments then costs no Go
// call, no defer and no new loop's set-up. The callee's frame is pushed on
// thread.stack as Call would, so tracebacks, errors, the recursion rules
// and the debugging interface see the same stack.
type inlineFrame struct {
	fn        *Function
	space     []Value
	mark      valueMark
	iterstack []Iterator
	pc        uint32
	sp        int
	// The caller's frame is the one below the callee's on thread.stack,
	// its pc0 (the call's pc) is in the frame, its step count is counted
	// up to pc, and its tables come from fn.
}

// unwindInline ends the calls that a loop running above thread.inl[base]
// was running in itself, when a panic passes through it: it ends their
// iterations and gives their space back, innermost first. (Their frames on
// thread.stack are cleared and popped by the enclosing Call.) On any exit
// of the outermost loop, it lets go of the room a deep recursion left.
func (thread *Thread) unwindInline(base int) {
	for n := len(thread.inl) - 1; n >= base; n-- {
		c := &thread.inl[n]
		for _, iter := range c.iterstack {
			iter.Done()
		}
		thread.values.release(c.space, c.mark)
		*c = inlineFrame{}
	}
	thread.inl = thread.inl[:base]
	if base == 0 && cap(thread.inl) > maxKeptInline {
		thread.inl = nil // after a deep recursion
	}
}

// maxDepth is the deepest a thread's stack may grow when recursion is
// allowed (upstream's limit).
const maxDepth = 100_000

// maxKeptInline is the most saved states a thread keeps room for once its
// outermost loop returns.
const maxKeptInline = 1024

// keepInMemory does nothing. The bytecode loop's (interpret's) deferred
// function passes it the addresses of the loop's variables that change
// only at calls, which keeps them in the frame's memory: as values Go's register allocator
// would carry in registers, it moved them to and from the stack at every
// instruction.
//
//go:noinline
func keepInMemory(fn **Function, f **compile.Funcode, code *[]uint64, steptab *[]uint32) {
}

// smallBinary computes a op b for int32 operands when op is + - * & | ^,
// or >> by a count in [0, 64), and the result is in int32 range too; it
// reports false otherwise, and intBinary or Binary computes it.
func smallBinary(op compile.Opcode, a, b int64) (int64, bool) {
	var r int64
	switch op {
	case compile.GTGT: // bitsh fork: a count in [0, 64), as Int.Rsh
		if uint64(b) >= 64 {
			return 0, false
		}
		r = a >> b
	case compile.PLUS, compile.INPLACE_ADD: // bitsh fork: loops.go
		r = a + b
	case compile.MINUS:
		r = a - b
	case compile.STAR:
		r = a * b
	case compile.AMP:
		r = a & b
	case compile.PIPE, compile.INPLACE_PIPE:
		r = a | b
	case compile.CIRCUMFLEX:
		r = a ^ b
	default:
		return 0, false
	}
	return r, r == int64(int32(r))
}

// smallCompare computes the comparison op (EQL to GE) of int32 operands.
func smallCompare(op compile.Opcode, a, b int64) bool {
	switch op {
	case compile.EQL:
		return a == b
	case compile.NEQ:
		return a != b
	case compile.GT:
		return a > b
	case compile.LT:
		return a < b
	case compile.LE:
		return a <= b
	}
	return a >= b
}

// smallIndex returns the index into a sequence of n elements that the int
// y denotes (a negative y counting from the end), when y is in int32 range
// and the index is in [0, n); it reports false otherwise, and getIndex or
// setIndex reports the error as before.
func smallIndex(y Value, n int) (int, bool) {
	yi, ok := y.(Int)
	if !ok {
		return 0, false
	}
	i, ok := yi.small()
	if !ok {
		return 0, false
	}
	if i < 0 {
		i += int64(n)
	}
	return int(i), uint64(i) < uint64(n)
}

// bothWords returns x and y when both are in [0, 2^64).
func bothWords(x, y Int) (uint64, uint64, bool) {
	a, ok := x.wordFast()
	if !ok {
		if a, ok = x.word(); !ok {
			return 0, 0, false
		}
	}
	b, ok := y.wordFast()
	if !ok {
		b, ok = y.word()
	}
	return a, b, ok
}

func cmpWords(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}
