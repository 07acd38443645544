// Package debruijn finds, checks and uses De Bruijn magics (the Chess
// Programming Wiki's De Bruijn pages: the 8-bit example, and Gerd Isenberg's
// generator). For a width w in {8, 16, 32, 64} and s = log2(w), a magic m is
// a w-bit word whose w windows ((m << i) mod 2^w) >> (w - s), i = 0..w-1,
// are pairwise distinct, so that ((x & -x) * m mod 2^w) >> (w - s) hashes
// each one-bit word x to a distinct table index.
//
// The magics whose top s bits are zero are exactly the binary De Bruijn
// sequences of order s, read cyclically from their run of s zeros; there
// are 2^(w/2 - s) of them (2, 16, 2048 and 67108864). Nth finds the n-th of
// them in ascending order by counting completions of a prefix with the BEST
// theorem, and Iter enumerates them by backtracking.
package debruijn

// Default64 is the 64-bit magic of the Chess Programming Wiki's modified snoob,
// 0x03f79d71b4cb0a89 (the magic of bitsh's debruijn_bsf by default).
const Default64 = 0x03f79d71b4cb0a89

// Log2 returns s = log2(width) for a width of 8, 16, 32 or 64, and ok ==
// false for any other width.
func Log2(width int) (s uint, ok bool) {
	switch width {
	case 8:
		return 3, true
	case 16:
		return 4, true
	case 32:
		return 5, true
	case 64:
		return 6, true
	}
	return 0, false
}

func mask(width int) uint64 { return ^uint64(0) >> (64 - uint(width)) }

// windows returns the set of m's windows as a bit set, and whether they are
// pairwise distinct; width must be valid and m must fit in it.
func windows(m uint64, width int) (seen uint64, distinct bool) {
	s, _ := Log2(width)
	shift := uint(width) - s
	wm := mask(width)
	for i := 0; i < width; i++ {
		b := uint64(1) << ((m << uint(i) & wm) >> shift)
		if seen&b != 0 {
			return seen, false
		}
		seen |= b
	}
	return seen, true
}

// IsMagic reports whether m is a De Bruijn magic for width; it is false
// for a width other than 8, 16, 32, 64 and for an m that does not fit.
func IsMagic(m uint64, width int) bool {
	if _, ok := Log2(width); !ok || m&^mask(width) != 0 {
		return false
	}
	_, ok := windows(m, width)
	return ok
}

// Table returns the bitscan table of magic m: T[((m << i) mod 2^w) >> (w -
// s)] = i for i = 0..w-1. ok is false, and T nil, when m is not a magic for
// width (IsMagic).
func Table(m uint64, width int) (t []int, ok bool) {
	if !IsMagic(m, width) {
		return nil, false
	}
	s, _ := Log2(width)
	t = make([]int, width)
	for i := 0; i < width; i++ {
		t[(m<<uint(i)&mask(width))>>(uint(width)-s)] = i
	}
	return t, true
}

// A Scanner computes bit scans with one magic: Bsf(x) is
// T[((x & -x) * m mod 2^w) >> (w - s)].
type Scanner struct {
	magic, wmask uint64
	shift        uint
	table        [64]uint8
}

// NewScanner returns the scanner of magic m for width; ok is false when m
// is not a magic for width.
func NewScanner(m uint64, width int) (sc *Scanner, ok bool) {
	v, ok := ScannerOf(m, width)
	if !ok {
		return nil, false
	}
	return &v, true
}

// ScannerOf is NewScanner returning the scanner by value, without
// allocating.
func ScannerOf(m uint64, width int) (sc Scanner, ok bool) {
	if !IsMagic(m, width) {
		return Scanner{}, false
	}
	s, _ := Log2(width)
	sc = Scanner{magic: m, wmask: mask(width), shift: uint(width) - s}
	for i := 0; i < width; i++ {
		sc.table[(m<<uint(i)&sc.wmask)>>sc.shift] = uint8(i)
	}
	return sc, true
}

// Bsf returns the index of the least significant one bit of x, for a
// nonzero x of the scanner's width. For x == 0 the result is the table
// entry at index 0, which is 0 (not an index of any bit of x).
func (sc *Scanner) Bsf(x uint64) int {
	return int(sc.table[((x&-x)*sc.magic&sc.wmask)>>(sc.shift&63)])
}

// table64 is the bitscan table of Default64, built from its definition.
var table64 = func() (t [64]uint8) {
	for i := 0; i < 64; i++ {
		t[uint64(Default64)<<uint(i)>>58] = uint8(i)
	}
	return t
}()

// Bsf64 returns the index of the least significant one bit of x by the
// De Bruijn bitscan with Default64, table64[((x & -x) * Default64) >> 58]
// (the Chess Programming Wiki, Traversing Subsets of a Set); the result is
// 0 for x == 0.
func Bsf64(x uint64) int { return int(table64[(x&-x)*Default64>>58]) }

// Count returns the number of magics for width whose top log2(width) bits
// are zero: 2^(width/2 - log2(width)), that is 2, 16, 2048 or 67108864; it
// is 0 for an invalid width.
func Count(width int) uint64 {
	s, ok := Log2(width)
	if !ok {
		return 0
	}
	return 1 << (uint(width)/2 - s)
}
