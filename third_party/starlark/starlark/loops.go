// bitsh fork: loops over enumerate(x) without the list of pairs, and tuples
// made with one allocation (README.bitsh.md, change 21).

package starlark

import (
	"slices"
	"unsafe"
)

// enumerateBuiltin is Universe's enumerate.
var enumerateBuiltin = NewBuiltin("enumerate", enumerate)

// enumerateKey is the thread-local key under which an application that
// predeclares its own enumerate (a wrapper that checks a budget, say)
// stores that *Builtin, promising that for a list or tuple and an optional
// int start it returns what Universe's enumerate returns.
const enumerateKey = "go.starlark.net/enumerate"

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
	e := &enumeration{}
	if len(args) == 2 {
		s, ok := args[1].(Int)
		if !ok {
			return nil
		}
		v, ok := s.small()
		if !ok {
			return nil
		}
		e.start = int(v)
	}
	switch x := args[0].(type) {
	case *List:
		if x.frozen {
			e.elems = x.elems
		} else {
			e.elems = slices.Clone(x.elems)
		}
	case Tuple:
		e.elems = x
	default:
		return nil
	}
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
