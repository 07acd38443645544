package debruijn

import (
	"context"
	"fmt"
)

// An Iter enumerates the magics of one width whose top log2(width) bits
// are zero, in ascending order, by backtracking over the bits from the top
// (the search of Isenberg's De Bruijn generator, written as a resumable loop so that a caller
// can pull one magic at a time).
//
// It searches in the space of choices that matter. Windows x and
// x ^ 10...0 ("twins") have the same two successors, so when the path
// leaves x for one of them, x's twin must later leave for the other: one
// binary choice fixes the successors of a twin pair. Iter records fixed
// successors, follows them without branching, rejects a choice at once
// when the fixed successors close a cycle that is not the whole sequence,
// and reads the magic off the cycle when the last pair is fixed. Every
// choice point therefore has a magic below it, and the search visits
// about two choice points per magic instead of Isenberg's dozens of
// window tests.
type Iter struct {
	width int
	depth int    // number of free bits: width - s
	emask uint64 // 2^s - 1
	top   uint8  // 2^(s-1): the window 10...0
	s     uint
	// Fixed successors form chains of windows. A chain's data lives at its
	// ends: at its head, tailOf; at its tail, headOf, size, val (the last
	// bits of its windows in order) and zoff (the position of window 0 in
	// it, or -1). Merging two chains writes only the new chain's head and
	// tail entries, so a merge is undone from the chains' ends alone.
	tailOf [64]int8
	headOf [64]int8
	size   [64]int8
	zoff   [64]int8
	val    [64]uint64
	k      int // current choice point
	frames [33]frame
	done   bool
	value  uint64
}

// A frame is a choice point: the path has reached window y, whose twin
// pair has no successors yet; try is the next bit to try (2: none left).
type frame struct{ y, try uint8 }

// NewIter returns an iterator over the magics of width (8, 16, 32 or 64),
// or an error for another width.
func NewIter(width int) (*Iter, error) {
	s, ok := Log2(width)
	if !ok {
		return nil, fmt.Errorf("width %d is not one of 8, 16, 32, 64", width)
	}
	it := &Iter{width: width, depth: width - int(s), emask: 1<<s - 1, top: 1 << (s - 1), s: s}
	for x := range it.tailOf {
		it.tailOf[x], it.headOf[x], it.size[x], it.val[x], it.zoff[x] = int8(x), int8(x), 1, uint64(x&1), -1
	}
	it.zoff[0] = 0
	// The cycle starts 0^s, 0^(s-1)1 (0^s cannot follow itself), so the
	// twin 10...0 of 0^s must lead back to 0^s: it is the last window.
	it.link(0, 1)
	it.link(int8(it.top), 0)
	it.frames[0] = frame{y: 1}
	return it, nil
}

// link fixes the successor of a, the tail of a chain, to b, the head of
// another, and merges the chains. It returns the size of the cycle, and
// merges nothing, when a and b are the two ends of one chain; else 0.
func (it *Iter) link(a, b int8) (cycle int) {
	h, e := it.headOf[a&63], it.tailOf[b&63]
	if h == b {
		return int(it.size[a&63])
	}
	sa, sb := it.size[a&63], it.size[e&63]
	z := it.zoff[a&63]
	if z < 0 && it.zoff[e&63] >= 0 {
		z = sa + it.zoff[e&63]
	}
	it.val[e&63] |= it.val[a&63] << uint(sb)
	it.size[e&63] = sa + sb
	it.zoff[e&63] = z
	it.headOf[e&63] = h
	it.tailOf[h&63] = e
	return 0
}

// unlink undoes link(a, b), the last merge made.
func (it *Iter) unlink(a, b int8) {
	h, e := it.headOf[a&63], it.tailOf[b&63]
	sa := it.size[a&63]
	sb := it.size[e&63] - sa
	it.tailOf[h&63] = a
	it.headOf[e&63] = b
	it.size[e&63] = sb
	it.val[e&63] &= 1<<uint(sb) - 1
	if it.zoff[a&63] >= 0 {
		it.zoff[e&63] = -1
	} else if z := it.zoff[e&63]; z >= 0 {
		it.zoff[e&63] = z - sa
	}
}

// Next advances to the next magic and reports whether there is one.
func (it *Iter) Next() bool {
	if it.done {
		return false
	}
	k := it.k
	for {
		f := &it.frames[k&31]
		if f.try == 2 {
			// Choice point exhausted: back up and undo the move that led here.
			if k == 0 {
				it.done = true
				return false
			}
			k--
			g := &it.frames[k&31]
			c := int8((uint64(g.y)<<1 | uint64(g.try-1)) & it.emask)
			it.unlink(int8(g.y^it.top), c^1)
			it.unlink(int8(g.y), c)
			continue
		}
		b := f.try
		f.try++
		y, t := int8(f.y), int8(f.y^it.top)
		c := int8((uint64(y)<<1 | uint64(b)) & it.emask)
		if it.link(y, c) != 0 {
			// The path closed on itself before the twin's step: a dead end.
			continue
		}
		tail := it.tailOf[c&63] // the end of the path's chain
		if tail == t {
			tail = it.tailOf[(c^1)&63] // the twin's step will extend it
		}
		if n := it.link(t, c^1); n != 0 {
			if n == it.width {
				// The chain from c^1 to t holds every window; rotate its
				// bits to start at window 0 and drop the last s-1.
				v, z := it.val[t&63], uint(it.zoff[t&63])
				r := v<<z | v>>(uint(it.width)-z)
				if it.width < 64 {
					r &= 1<<uint(it.width) - 1
				}
				it.value = r >> (it.s - 1)
			}
			it.unlink(y, c)
			if n == it.width {
				it.k = k
				return true
			}
			continue
		}
		k++
		it.frames[k&31] = frame{y: uint8(tail)}
	}
}

// Value returns the magic found by the last successful Next.
func (it *Iter) Value() uint64 { return it.value }

// Enumerate calls fn with every magic of width in ascending order until fn
// returns false. It polls ctx every 4096 magics and returns its error
// (wrapped) when it is done.
func Enumerate(ctx context.Context, width int, fn func(m uint64) bool) error {
	it, err := NewIter(width)
	if err != nil {
		return err
	}
	for n := 0; it.Next(); n++ {
		if n&4095 == 4095 && ctx.Err() != nil {
			return fmt.Errorf("debruijn: enumeration stopped: %w", ctx.Err())
		}
		if !fn(it.Value()) {
			return nil
		}
	}
	return nil
}
