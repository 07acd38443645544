package starlark

// bitsh fork: the interpreter's cases of the fused instructions of
// internal/compile/fuse_lists.go (list stores, global lists, range loops),
// out of the loop so that it stays under Go's limit for inlining into a
// big function (README.bitsh.md, changes 22 and 26).

import (
	"math"

	"go.starlark.net/internal/compile"
	"go.starlark.net/syntax"
)

// listFused runs FusedStoreIndex, FusedLoadStoreIndex, FusedGlobalIndex,
// FusedGlobalIndexOp or FusedDup2Index where they apply, and returns the change of the
// operand stack's height and true; otherwise it changes nothing, and the
// interpreter runs the sequence as written (firstOfListFused). The store
// x[y] = v (v on the stack, or loaded) applies where x is a list neither
// frozen nor iterated and y an int32 index in range; the load g[y] (pushed
// at sp) where the global g is a list or a tuple and y an int32 index in
// range; x, y, x[y] pushed for x[y] op= v where x is a list and y an int32
// index in range; v op g[y] (v on the stack) where g[y] is such a load and
// both v and g[y] ints in [0, 2^64) (wordOp).
func listFused(m *Module, space []Value, w uint64, sp int) (int, bool) {
	op := compile.Opcode(w)
	x := uint32(w>>16) & 0x3ff
	var a, b Value
	if x&0x100 != 0 || op == compile.FusedGlobalIndex || op == compile.FusedGlobalIndexOp {
		a = m.globals[x&0x7f]
	} else {
		a = space[x&0x7f]
	}
	if y := uint32(w>>32) & 0xffff; x&0x200 != 0 {
		b = m.constants[y]
	} else {
		b = space[y]
	}
	switch a := a.(type) {
	case *List:
		i, ok := smallIndex(b, len(a.elems))
		if !ok {
			return 0, false
		}
		switch op {
		case compile.FusedDup2Index:
			space[sp], space[sp+1], space[sp+2] = a, b, a.elems[i]
			return 3, true
		case compile.FusedGlobalIndex:
			space[sp] = a.elems[i]
			return 1, true
		case compile.FusedGlobalIndexOp:
			if z := wordOp(compile.Opcode(w>>26&0x3f), space[sp-1], a.elems[i]); z != nil {
				space[sp-1] = z
				return 0, true
			}
			return 0, false
		}
		v := storedValue(m, space, w, sp)
		if v == nil || a.frozen || a.itercount != 0 {
			return 0, false
		}
		a.elems[i] = v
		if op == compile.FusedStoreIndex {
			return -1, true
		}
		return 0, true
	case Tuple:
		if i, ok := smallIndex(b, len(a)); ok && op == compile.FusedGlobalIndex {
			space[sp] = a[i]
			return 1, true
		}
		if i, ok := smallIndex(b, len(a)); ok && op == compile.FusedGlobalIndexOp {
			if z := wordOp(compile.Opcode(w>>26&0x3f), space[sp-1], a[i]); z != nil {
				space[sp-1] = z
				return 0, true
			}
		}
	case *Dict:
		// The same sequences on a dict (memo[n] = r, d[k] += 1): its
		// table directly, as getIndex and setIndex; where they would
		// fail (a missing or unhashable key, a frozen or iterated dict),
		// which changes nothing, the sequence runs as written.
		if b == nil {
			return 0, false
		}
		switch op {
		case compile.FusedGlobalIndex, compile.FusedDup2Index:
			z, found, err := a.ht.lookup(b)
			if err != nil || !found {
				return 0, false
			}
			if op == compile.FusedGlobalIndex {
				space[sp] = z
				return 1, true
			}
			space[sp], space[sp+1], space[sp+2] = a, b, z
			return 3, true
		case compile.FusedStoreIndex, compile.FusedLoadStoreIndex:
			v := storedValue(m, space, w, sp)
			if v == nil || a.ht.insert(b, v) != nil {
				return 0, false
			}
			if op == compile.FusedStoreIndex {
				return -1, true
			}
			return 0, true
		}
	}
	return 0, false
}

// storedValue returns the value a FusedStoreIndex (on the stack) or a
// FusedLoadStoreIndex (loaded) stores, nil for a local or global not
// assigned.
func storedValue(m *Module, space []Value, w uint64, sp int) Value {
	if compile.Opcode(w) == compile.FusedStoreIndex {
		return space[sp-1]
	}
	switch k := uint32(w >> 48); w >> 26 & 3 {
	case 0:
		return space[k]
	case 1:
		return m.constants[k]
	case 2:
		return m.universal[k]
	default:
		return m.globals[k]
	}
}

// wordOp returns x op y for op AMP, PIPE or CIRCUMFLEX where x and y are
// ints in [0, 2^64), nil otherwise.
func wordOp(op compile.Opcode, x, y Value) Value {
	xi, ok := x.(Int)
	if !ok {
		return nil
	}
	yi, ok := y.(Int)
	if !ok {
		return nil
	}
	a, ok := xi.wordFast()
	if !ok {
		return nil
	}
	b, ok := yi.wordFast()
	if !ok {
		return nil
	}
	var r uint64
	switch op {
	case compile.AMP:
		r = a & b
	case compile.PIPE:
		r = a | b
	default:
		r = a ^ b
	}
	if r <= math.MaxInt32 {
		return makeSmallInt(int64(r))
	}
	if z, ok := wordInt(r); ok {
		return z
	}
	return makeWord(r)
}

// firstOfListFused returns the decoded entry of the first instruction of
// the sequence of a FusedStoreIndex, FusedLoadStoreIndex or
// FusedGlobalIndex: a LOCAL or a GLOBAL of one operand byte, or the load
// of the value.
func firstOfListFused(w uint64) uint64 {
	switch compile.Opcode(w) {
	case compile.FusedLoadStoreIndex:
		load := [4]compile.Opcode{compile.LOCAL, compile.CONSTANT, compile.UNIVERSAL, compile.GLOBAL}[w>>26&3]
		return uint64(load) | (w>>28&0xf)<<8 | (w>>48)<<32
	case compile.FusedGlobalIndex, compile.FusedGlobalIndexOp:
		return uint64(compile.GLOBAL) | 2<<8 | (w>>16&0x7f)<<32
	}
	if w>>16&0x100 != 0 {
		return uint64(compile.GLOBAL) | 2<<8 | (w>>16&0x7f)<<32
	}
	return uint64(compile.LOCAL) | 2<<8 | (w>>16&0x7f)<<32
}

// iterSetLocal returns, for FusedIterSetlocal (ITERJMP and the SETLOCAL
// after it, decoded as w at pc0, pc after both), the local the element
// goes to and the pc after it: a range's or a list's element into the
// local, the SETLOCAL stepped over; for any other iterator -1, and the pc
// of the SETLOCAL, run as written.
func iterSetLocal(iter Iterator, w uint64, pc0, pc uint32) (int, uint32) {
	switch iter.(type) {
	case *rangeIterator, *listIterator:
		return int(w >> 16 & 0xff), pc
	}
	return -1, pc0 + uint32(w>>24)&0xff
}

// sliceOp runs SLICE on its operands x, lo, hi, step and leaves the result
// in ops[0] (the interpreter's case, out of its loop).
func sliceOp(ops []Value) error {
	res, err := slice(ops[0], ops[1], ops[2], ops[3])
	if err != nil {
		return err
	}
	ops[0] = res
	return nil
}

// unaryOp runs UPLUS, UMINUS or TILDE on x (the interpreter's case, out of
// its loop).
func unaryOp(op compile.Opcode, x Value) (Value, error) {
	unop := syntax.TILDE
	if op != compile.TILDE {
		unop = syntax.Token(op-compile.UPLUS) + syntax.PLUS
	}
	return Unary(unop, x)
}

// makeFunction runs MAKEFUNC: the function of funcode in module, its
// defaults and free variables in tuple (the interpreter's case, out of its
// loop).
//
//go:noinline
func makeFunction(module *Module, funcode *compile.Funcode, tuple Tuple) *Function {
	n := len(tuple) - len(funcode.FreeVars)
	return &Function{
		funcode:  funcode,
		module:   module,
		defaults: tuple[:n:n],
		freevars: tuple[n:],
	}
}

// rangeStoreBatch bounds the iterations rangeStores runs at once, so that a
// cancellation is seen within them.
const rangeStoreBatch = 4096

// rangeStores runs whole iterations of a loop `for j in range(...): x[j] =
// v` at once (FusedRangeStore at pc0, whose ITERJMP has just been counted
// and checked; code and steptab are the function's tables), on a thread
// without a step limit, not cancelled, while the range has elements, x is
// a list neither frozen nor iterated, v is assigned and is not j, each j
// is an int32 index in range, at most rangeStoreBatch of them (a
// cancellation is seen after them, as a step limit is not); the loop's
// local is left
// holding the last j, as the iterations one by one leave it. It returns
// the steps they count beyond the ITERJMP already counted (the
// interpreter then stands at the ITERJMP again), or 0 where it ran none
// and the loop goes on one instruction at a time. A loop of top-level code
// (a JMP marked as a back edge, native_loop.go) is left to the
// interpreter.
func rangeStores(thread *Thread, m *Module, space []Value, code []uint64, steptab []uint32, pc0 uint32, iter Iterator) uint64 {
	r, ok := iter.(*rangeIterator)
	if !ok || thread.maxSteps != math.MaxUint64 || thread.cancelReason.Load() != nil {
		return 0 // not where the iterations' checks one by one may stop it
	}
	w := code[pc0]
	body := pc0 + uint32(w>>8&0xff)
	s := code[body]
	jmp := body + uint32(s>>8&0xff)
	if code[jmp]&0xffff0000 != 0 {
		return 0
	}
	per := uint64(steptab[jmp+1] - steptab[pc0])
	k := min(r.r.len-r.i, rangeStoreBatch)
	var a Value
	if x := uint32(s>>16) & 0x3ff; x&0x100 != 0 {
		a = m.globals[x&0x7f]
	} else {
		a = space[x&0x7f]
	}
	l, ok := a.(*List)
	if !ok || l.frozen || l.itercount != 0 {
		return 0
	}
	var v Value
	switch i := uint32(s >> 48); s >> 26 & 3 {
	case 0:
		if i == uint32(w>>16&0xff) {
			return 0 // x[j] = j: the value changes at each iteration
		}
		v = space[i]
	case 1:
		v = m.constants[i]
	case 2:
		v = m.universal[i]
	default:
		v = m.globals[i]
	}
	if v == nil {
		return 0
	}
	elems := l.elems
	n := len(elems)
	var done, last int
	for ; done < k; done++ {
		j := r.r.start + r.i*r.r.step
		if int(int32(j)) != j {
			break
		}
		i := j
		if i < 0 {
			i += n
		}
		if uint(i) >= uint(n) {
			break
		}
		elems[i] = v
		r.i++
		last = j
	}
	if done == 0 {
		return 0
	}
	space[w>>16&0xff] = makeSmallInt(int64(last))
	return uint64(done)*per - 1
}
