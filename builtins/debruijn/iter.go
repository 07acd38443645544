package debruijn

import (
	"context"
	"fmt"
)

// An Iter enumerates the magics of one width whose top log2(width) bits
// are zero, in ascending order, by backtracking over the bits from the top
// (the search of document 002, written as a resumable loop so that a caller
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
// about two choice points per magic instead of document 002's dozens of
// window tests.
type Iter struct {
	width  int
	depth  int    // number of free bits: width - s
	emask  uint64 // 2^s - 1
	top    uint8  // 2^(s-1): the window 10...0
	succ   [64]int8
	other  [64]int8 // for the two ends of a chain of fixed successors: the other end
	size   [64]int8 // for the ends of a chain: its number of windows
	k      int      // current choice point
	frames [33]frame
	done   bool
	value  uint64
}

// A frame is a choice point: the path has reached window y, whose twin
// pair has no successors yet. The move out of it records what the two
// chain merges overwrote.
type frame struct {
	y, try uint8
	undo   [4]end
}

type end struct{ x, other, size int8 }

// NewIter returns an iterator over the magics of width (8, 16, 32 or 64),
// or an error for another width.
func NewIter(width int) (*Iter, error) {
	s, ok := Log2(width)
	if !ok {
		return nil, fmt.Errorf("width %d is not one of 8, 16, 32, 64", width)
	}
	it := &Iter{width: width, depth: width - int(s), emask: 1<<s - 1, top: 1 << (s - 1)}
	for x := range it.succ {
		it.succ[x], it.other[x], it.size[x] = -1, int8(x), 1
	}
	// The cycle starts 0^s, 0^(s-1)1 (0^s cannot follow itself), so the
	// twin 10...0 of 0^s must lead back to 0^s: it is the last window.
	var scratch [2]end
	it.link(0, 1, scratch[:])
	it.link(int8(it.top), 0, scratch[:])
	it.frames[0] = frame{y: 1}
	return it, nil
}

// link fixes succ[a] = b, where a ends a chain and b starts one, merging
// the two chains, and saves the overwritten ends in undo. It returns the
// size of the cycle when a and b were the two ends of one chain (then
// nothing is merged), else 0.
func (it *Iter) link(a, b int8, undo []end) (cycle int) {
	it.succ[a&63] = b
	h, e := it.other[a&63], it.other[b&63]
	if h == b {
		undo[0], undo[1] = end{x: -1}, end{x: -1}
		return int(it.size[a&63])
	}
	undo[0] = end{h, it.other[h&63], it.size[h&63]}
	undo[1] = end{e, it.other[e&63], it.size[e&63]}
	n := it.size[a&63] + it.size[b&63]
	it.other[h&63], it.other[e&63] = e, h
	it.size[h&63], it.size[e&63] = n, n
	return 0
}

func (it *Iter) unlink(a int8, undo []end) {
	it.succ[a&63] = -1
	for j := 1; j >= 0; j-- {
		if u := undo[j]; u.x >= 0 {
			it.other[u.x&63], it.size[u.x&63] = u.other, u.size
		}
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
			it.unlink(int8(g.y^it.top), g.undo[2:])
			it.unlink(int8(g.y), g.undo[:2])
			continue
		}
		b := f.try
		f.try++
		y, t := int8(f.y), int8(f.y^it.top)
		c := int8((uint64(y)<<1 | uint64(b)) & it.emask)
		tail := it.other[c&63] // the end of the chain that c starts
		if n := it.link(y, c, f.undo[:2]); n != 0 {
			// The path closed on itself (only possible as the whole cycle
			// after the twin's step, so this is a dead end).
			it.unlink(y, f.undo[:2])
			continue
		}
		if tail == t {
			tail = it.other[(c^1)&63] // the twin's step will extend the path's chain
		}
		if n := it.link(t, c^1, f.undo[2:]); n != 0 {
			complete := n == it.width
			if complete {
				it.value = it.word()
			}
			it.unlink(t, f.undo[2:])
			it.unlink(y, f.undo[:2])
			if complete {
				it.k = k
				return true
			}
			continue
		}
		k++
		it.frames[k&31] = frame{y: uint8(tail)}
	}
}

// word reads the magic off a complete cycle of successors.
func (it *Iter) word() uint64 {
	var m uint64
	x := it.succ[0]
	for j := 0; j < it.depth; j++ {
		m = m<<1 | uint64(x&1)
		x = it.succ[x&63]
	}
	return m
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

var Nodes, Chain int
