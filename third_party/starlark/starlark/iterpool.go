// bitsh fork: the iterators of loops over lists and ranges reused
// (README.bitsh.md, change 32).

package starlark

// iterPool holds a thread's list and range iterators that loops have
// finished with (ITERPOP), for its next loops over a list or a range: a
// loop entered again and again (an inner loop, a loop in a function
// called often) then allocates no iterator. An iterator is taken back
// only at ITERPOP, where the loop's iterator stack held the only
// reference to it.
type iterPool struct {
	lists  []*listIterator
	ranges []*rangeIterator
	enums  []*enumeration // with their snapshots' arrays, cleared (loops.go)
}

// maxPooledIters is the most iterators of each kind a thread keeps.
const maxPooledIters = 8

// maxPooledSnapshot is the longest array of an enumeration's snapshot
// that the pool keeps (README.bitsh.md, change 37).
const maxPooledSnapshot = 1 << 16

// enumeration returns an empty enumeration, the pool's where it has one
// (loops.go, enumerateFor).
func (thread *Thread) enumeration() *enumeration {
	if n := len(thread.iters.enums); n > 0 {
		e := thread.iters.enums[n-1]
		thread.iters.enums = thread.iters.enums[:n-1]
		return e
	}
	return new(enumeration)
}

// iterate returns Iterate(x), an iterator of the pool's where x is a list
// or a range.
func (thread *Thread) iterate(x Value) Iterator {
	switch x := x.(type) {
	case *List:
		var it *listIterator
		if n := len(thread.iters.lists); n > 0 {
			it = thread.iters.lists[n-1]
			thread.iters.lists = thread.iters.lists[:n-1]
		} else {
			it = new(listIterator)
		}
		// As List.Iterate.
		if !x.frozen {
			x.itercount++
		}
		it.l = x
		return it
	case rangeValue:
		var it *rangeIterator
		if n := len(thread.iters.ranges); n > 0 {
			it = thread.iters.ranges[n-1]
			thread.iters.ranges = thread.iters.ranges[:n-1]
		} else {
			it = new(rangeIterator)
		}
		it.r = x
		return it
	}
	return Iterate(x)
}

// iterDone ends the iterator of a loop (ITERPOP) and keeps it for the
// thread's next loop where it is a list's or a range's.
func (thread *Thread) iterDone(it Iterator) {
	it.Done()
	switch it := it.(type) {
	case *listIterator:
		if len(thread.iters.lists) < maxPooledIters {
			*it = listIterator{}
			thread.iters.lists = append(thread.iters.lists, it)
		}
	case *rangeIterator:
		if len(thread.iters.ranges) < maxPooledIters {
			*it = rangeIterator{}
			thread.iters.ranges = append(thread.iters.ranges, it)
		}
	case *enumeration:
		// Nothing but the loop held it (an enumeration is made for
		// the ITERPUSH after the call of enumerate, and no Starlark
		// code sees it): its snapshot's array, cleared, serves the
		// thread's next enumeration of a list.
		if len(thread.iters.enums) < maxPooledIters {
			buf := it.buf
			clear(buf)
			if cap(buf) > maxPooledSnapshot {
				buf = nil
			}
			*it = enumeration{buf: buf[:0]}
			thread.iters.enums = append(thread.iters.enums, it)
		}
	}
}
