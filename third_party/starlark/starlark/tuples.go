// bitsh fork: tuples of three and four made with one allocation
// (README.bitsh.md, change 31), as makeTuple2 (loops.go) makes pairs;
// MAKETUPLE's pairs four to an allocation (change 44).

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

// pairSlab is how many pairs makePair allocates at once. Each is a
// tuple2 of its own that nothing else writes, but the collector frees an
// allocation only when all its pairs are unreachable: a script that keeps
// one pair of every four it makes holds four pairs' memory for it (256
// bytes, not 64).
const pairSlab = 4

// makePair returns the Tuple (a, b) as a Value, as makeTuple2 makes it,
// from the thread's slab of pairs: one allocation of pairSlab pairs (224
// bytes, a size class of Go's allocator) costs less than a quarter of
// pairSlab allocations of one.
func (thread *Thread) makePair(a, b Value) Value {
	if len(thread.pairs) == 0 {
		thread.pairs = make([]tuple2, pairSlab)
	}
	p := &thread.pairs[0]
	thread.pairs = thread.pairs[1:]
	p.a[0], p.a[1] = a, b
	p.t = p.a[:]
	var v Value
	vi := (*iface)(unsafe.Pointer(&v))
	vi.tab = tupleTab
	vi.data = unsafe.Pointer(&p.t)
	return v
}
