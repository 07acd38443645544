// bitsh fork: tuples of three and four made with one allocation
// (README.bitsh.md, change 31), as makeTuple2 (loops.go) makes pairs.

package starlark

import "unsafe"

type tuple3 struct {
	t Tuple
	a [3]Value
}

type tuple4 struct {
	t Tuple
	a [4]Value
}

// makeTuple returns a new Tuple of elems (copied) as a Value, as
// MAKETUPLE makes it: of two to four elements with one allocation, the
// slice header and the elements together (see makeTuple2).
func makeTuple(elems []Value) Value {
	var t *Tuple
	switch len(elems) {
	case 2:
		return makeTuple2(elems[0], elems[1])
	case 3:
		p := &tuple3{}
		copy(p.a[:], elems)
		p.t = p.a[:]
		t = &p.t
	case 4:
		p := &tuple4{}
		copy(p.a[:], elems)
		p.t = p.a[:]
		t = &p.t
	default:
		tuple := make(Tuple, len(elems))
		copy(tuple, elems)
		return tuple
	}
	var v Value
	vi := (*iface)(unsafe.Pointer(&v))
	vi.tab = tupleTab
	vi.data = unsafe.Pointer(t)
	return v
}
