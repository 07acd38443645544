// bitsh fork: loops over enumerate(x) without the list of pairs, and tuples
// made with one allocation (README.bitsh.md, change 21).

package starlark

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/internal/compile"
	"go.starlark.net/internal/spell"
	"go.starlark.net/syntax"
)

// arithOf returns the operator that an in-place operator computes on
// ints: PLUS for INPLACE_ADD (x += y), PIPE for INPLACE_PIPE (x |= y),
// and op itself otherwise. The fused instructions compute them on ints as
// the operators; on other values they run the in-place operator as
// written, which extends a list or updates a dict in place.
func arithOf(op compile.Opcode) compile.Opcode {
	switch op {
	case compile.INPLACE_ADD:
		return compile.PLUS
	case compile.INPLACE_PIPE:
		return compile.PIPE
	}
	return op
}

// enumerateBuiltin is Universe's enumerate.
var enumerateBuiltin = NewBuiltin("enumerate", enumerate)

// enumerateKey is the thread-local key under which an application that
// predeclares its own enumerate (a wrapper that checks a budget, say)
// stores that *Builtin, promising that for a list or tuple and an optional
// int start it returns what Universe's enumerate returns.
const enumerateKey = string(threadkey.Enumerate)

// An enumeration is enumerate(x) of a list or tuple x that a for loop (or
// comprehension) iterates at once: the interpreter makes one where a call
// of enumerate is followed by ITERPUSH, which consumes it, so that no
// Starlark code ever sees it. It is its own iterator: it yields the pairs
// (start + i, elems[i]) that enumerate's list holds, and ITERJMP, where
// UNPACK 2 follows, writes the two values without making the pair.
type enumeration struct {
	elems []Value // a snapshot, as enumerate's list is
	i     int
	start int
	buf   []Value // the array of a list's snapshot, kept with the enumeration in the thread's pool (iterpool.go)
}

var (
	_ Iterable = (*enumeration)(nil)
	_ Iterator = (*enumeration)(nil)
)

func (e *enumeration) String() string        { return "enumerate" }
func (e *enumeration) Type() string          { return "list" }
func (e *enumeration) Freeze()               {}
func (e *enumeration) Truth() Bool           { return len(e.elems) > 0 }
func (e *enumeration) Hash() (uint32, error) { return 0, nil }
func (e *enumeration) Iterate() Iterator     { return e }
func (e *enumeration) Done()                 {}

func (e *enumeration) Next(p *Value) bool {
	if e.i >= len(e.elems) {
		return false
	}
	*p = makeTuple2(MakeInt(e.start+e.i), e.elems[e.i])
	e.i++
	return true
}

// enumerateFor returns the enumeration that the call fn(args...) of
// enumerate yields to the ITERPUSH after it, or nil where the call must
// run as written: fn is not enumerate, args are not a list or tuple and
// an optional int32 start.
func enumerateFor(thread *Thread, fn Value, args []Value) *enumeration {
	b, ok := fn.(*Builtin)
	if !ok || b.recv != nil || len(args) == 0 || len(args) > 2 {
		return nil
	}
	if b != enumerateBuiltin && (b.name != "enumerate" || thread.Local(enumerateKey) != any(b)) {
		return nil
	}
	start := 0
	if len(args) == 2 {
		s, ok := args[1].(Int)
		if !ok {
			return nil
		}
		v, ok := s.small()
		if !ok {
			return nil
		}
		start = int(v)
	}
	var e *enumeration
	switch x := args[0].(type) {
	case *List:
		e = thread.enumeration()
		if x.frozen {
			e.elems = x.elems
		} else {
			// The snapshot in the pooled enumeration's array, where
			// it is long enough.
			if cap(e.buf) >= len(x.elems) {
				e.buf = e.buf[:len(x.elems)]
			} else {
				e.buf = make([]Value, len(x.elems))
			}
			copy(e.buf, x.elems)
			e.elems = e.buf
		}
	case Tuple:
		e = thread.enumeration()
		e.elems = x
	default:
		return nil
	}
	e.start = start
	return e
}

// A tuple2 is a Tuple of two elements and the slice header that a Value
// holding it points to, allocated together.
type tuple2 struct {
	t Tuple
	a [2]Value
}

// iface is the layout of a non-empty interface value.
type iface struct {
	tab  unsafe.Pointer
	data unsafe.Pointer
}

// tupleTab is the interface table of a Tuple as a Value.
var tupleTab = func() unsafe.Pointer {
	var v Value = Tuple(nil)
	return (*iface)(unsafe.Pointer(&v)).tab
}()

// makeTuple2 returns the Tuple (a, b) as a Value with one allocation: a
// Tuple converted to a Value makes two (its elements, then a copy of its
// slice header), and the Value here points at a header allocated with the
// elements. The header is never written again, as a converted value's
// copy is not.
func makeTuple2(a, b Value) Value {
	p := &tuple2{}
	p.a[0], p.a[1] = a, b
	p.t = p.a[:]
	var v Value
	vi := (*iface)(unsafe.Pointer(&v))
	vi.tab = tupleTab
	vi.data = unsafe.Pointer(&p.t)
	return v
}

// next takes the enumeration's next pair for ITERJMP, whose operand stack
// begins at space[sp], followed by the instruction u (decoded): where u is
// UNPACK 2, it writes the pair's two values at space[sp:sp+2] as UNPACK
// would and returns 2; where u is UNPACK 2 fused with the two SETLOCALs
// after it, it stores them in those locals and returns 3; otherwise it
// pushes the pair and returns 1. At the end it returns 0.
func (e *enumeration) next(space []Value, sp int, u uint64) int {
	if e.i >= len(e.elems) {
		return 0
	}
	x, i := e.elems[e.i], MakeInt(e.start+e.i)
	e.i++
	switch compile.Opcode(u) {
	case compile.FusedUnpackSet2:
		space[uint32(u>>16)&0xffff] = i
		space[u>>32] = x
		return 3
	case compile.UNPACK:
		if u>>32 == 2 {
			space[sp], space[sp+1] = x, i
			return 2
		}
	}
	space[sp] = makeTuple2(i, x)
	return 1
}

// loadNames runs LOAD<n> after its step count and stop check, in a frame
// whose operand stack is space (the module's name on top, the n names to
// load below it): it loads the module and replaces each name by its value,
// as the interpreter's LOAD case did (bitsh fork: out of the loop, so that
// Go's inliner does not find the loop too big to inline the helpers of its
// fast paths into).
func (thread *Thread) loadNames(fr *frame, pc0 uint32, space []Value, n int) error {
	sp := len(space)
	module := string(space[sp-1].(String))
	sp--

	if thread.Load == nil {
		return fmt.Errorf("load not implemented by this application")
	}

	fr.pc = pc0 // bitsh fork
	thread.endProfSpan()
	dict, err2 := thread.Load(thread, module)
	thread.beginProfSpan()
	if err2 == nil {
		if thread.stopping() { // bitsh fork: cancelled during the call?
			if err2 := thread.stepLimit(fr, pc0); err2 != nil {
				return err2
			}
		}
	}
	if err2 != nil {
		return wrappedError{
			msg:   fmt.Sprintf("cannot load %s: %v", module, err2),
			cause: err2,
		}
	}

	for i := range n {
		from := string(space[sp-1-i].(String))
		v, ok := dict[from]
		if !ok {
			err := fmt.Errorf("load: name %s not found in module %s", from, module)
			if n := spell.Nearest(from, dict.Keys()); n != "" {
				err = fmt.Errorf("%s (did you mean %s?)", err, n)
			}
			return err
		}
		space[sp-1-i] = v
	}
	return nil
}

// inplaceAdd computes x += y for the interpreter's INPLACE_ADD where x
// and y are not both small ints (bitsh fork: out of the loop, as
// inplacePipe). It's possible that y is not Iterable but nonetheless
// defines x+y, in which case it falls back to the general case.
func (thread *Thread) inplaceAdd(fr *frame, pc0 uint32, x, y Value) (Value, error) {
	if xlist, ok := x.(*List); ok {
		if yiter, ok := y.(Iterable); ok {
			if err := xlist.checkMutable("apply += to"); err != nil {
				return nil, err
			}
			fr.pc = pc0
			if err := thread.checkExtendAlloc(xlist, y, true); err != nil { // bitsh fork: alloc.go
				return nil, err
			}
			listExtend(xlist, yiter)
			return xlist, nil
		}
	}
	if !bothInts(x, y) { // bitsh fork: alloc.go
		fr.pc = pc0
		if err := thread.checkBinaryAlloc(syntax.PLUS, x, y); err != nil {
			return nil, err
		}
	}
	return Binary(syntax.PLUS, x, y)
}

// inplacePipe computes x |= y for the interpreter's INPLACE_PIPE where x
// and y are not both ints (bitsh fork: out of the loop, as loadNames).
func inplacePipe(x, y Value) (Value, error) {
	// It's possible that y is not Dict but
	// nonetheless defines x|y, in which case we
	// should fall back to the general case.
	if xdict, ok := x.(*Dict); ok {
		if ydict, ok := y.(*Dict); ok {
			if err := xdict.ht.checkMutable("apply |= to"); err != nil {
				return nil, err
			}
			xdict.ht.addAll(&ydict.ht) // can't fail
			return xdict, nil
		}
	}
	return Binary(syntax.PIPE, x, y)
}

// unpackIterable runs UNPACK<len(dst)> of a value that is not a tuple or
// list of that length: it writes the elements of iterable in reverse order
// to dst, as the interpreter's UNPACK did (bitsh fork: out of the loop, as
// loadNames).
func unpackIterable(iterable Value, dst []Value) error {
	n := len(dst)
	iter := Iterate(iterable)
	if iter == nil {
		return fmt.Errorf("got %s in sequence assignment", iterable.Type())
	}
	i := 0
	for i < n && iter.Next(&dst[n-1-i]) {
		i++
	}
	var dummy Value
	if iter.Next(&dummy) {
		// NB: Len may return -1 here in obscure cases.
		return fmt.Errorf("too many values to unpack (got %d, want %d)", Len(iterable), n)
	}
	iter.Done()
	if i < n {
		return fmt.Errorf("too few values to unpack (got %d, want %d)", i, n)
	}
	return nil
}

// isList reports whether v is a list.
func isList(v Value) bool {
	_, ok := v.(*List)
	return ok
}

// listAppend is the list method append.
var listAppend = listMethods["append"]

// maskedOp computes x * y & m or x << y & m for FusedMaskedOp (the entry w,
// whose operand names m: a global or a constant of module, or a local of
// the frame whose space is space), x and y the operands at space[sp-2:sp],
// where x, y and m are ints in [0, 2^64) and y < 64 for a shift: the low
// 64 bits of the product or shift, masked, without the 128-bit value that
// the operator alone makes and the mask throws away at once
// (`(occ * magic) & MASK64`, `(x << 13) & MASK64`). It returns nil
// otherwise, and the instructions run as written.
func maskedOp(m *Module, space []Value, w uint64, sp int) Value {
	x, y := space[sp-2], space[sp-1]
	var mv Value
	switch w >> 24 & 3 {
	case 0:
		mv = m.globals[w>>32]
	case 1:
		mv = m.constants[w>>32]
	default:
		mv = space[w>>32]
	}
	mi, ok := mv.(Int)
	if !ok {
		return nil
	}
	mask, ok := mi.wordFast()
	if !ok {
		if mask, ok = mi.word(); !ok {
			return nil
		}
	}
	xi, ok := x.(Int)
	if !ok {
		return nil
	}
	yi, ok := y.(Int)
	if !ok {
		return nil
	}
	a, ok := xi.wordFast()
	b, ok2 := yi.wordFast()
	if !ok || !ok2 {
		if a, ok = xi.word(); !ok {
			return nil
		}
		if b, ok = yi.word(); !ok {
			return nil
		}
	}
	var r uint64
	switch compile.Opcode(w >> 16) {
	case compile.STAR:
		r = a * b
	case compile.LTLT:
		if b >= 64 {
			return nil
		}
		r = a << b
	default:
		return nil
	}
	if r &= mask; r <= math.MaxInt32 { // made inline, as intBinary does
		return makeSmallInt(int64(r))
	}
	if z, ok := wordInt(r); ok {
		return z
	}
	return makeWord(r)
}
