// Package subset traverses the subsets of a 64-bit set (the Chess Programming Wiki, Traversing Subsets of a Set):
// every subset in ascending order with the carry-rippler, the subsets of a
// fixed size with snoob ("same number of one bits") over any set, and
// direct access to the i-th subset in either order.
package subset

import (
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// Next returns the subset of d that follows n in ascending numeric order,
// n = (n - d) & d (the carry-rippler); n must be a subset of d. The result
// is 0 after the greatest subset, d itself, so a loop starting at 0 visits
// all 2^popcount(d) subsets and stops when Next returns 0 again.
func Next(n, d uint64) uint64 { return (n - d) & d }

// Snoob returns the next greater subset of set with as many one bits as x.
// x must be a nonzero subset of set; ok is false when x is the greatest
// such subset (or x == 0), and the result is then 0.
func Snoob(x, set uint64) (uint64, bool) {
	// Fill the holes outside set so that adding the lowest bit of x ripples
	// the carry through the block of x's bits starting there, up to the
	// next free bit of set; a carry out of the word means x is the greatest.
	l := x & -x
	s := (x | ^set) + l
	if s < l {
		return 0, false
	}
	r := s & set // 0 only when x == 0
	// The block lost c bits and r gained one; put c-1 bits back at the
	// lowest positions of set (most steps need none).
	for m, ones := set, x&^r; ones&(ones-1) != 0; ones &= ones - 1 {
		r |= m & -m
		m &= m - 1
	}
	return r, r != 0
}

// RSnoob returns the next smaller subset of set with as many one bits as
// x. x must be a nonzero subset of set; ok is false when x is the smallest
// such subset (or x == 0). Complementing within set reverses the order, so
// RSnoob(x, set) is set &^ Snoob(set &^ x, set).
func RSnoob(x, set uint64) (prev uint64, ok bool) {
	y := set &^ x
	if x == 0 || y == 0 {
		return 0, false
	}
	z, ok := Snoob(y, set)
	if !ok {
		return 0, false
	}
	return set &^ z, true
}

// Lowest returns the subset made of the k lowest one bits of set; it is set
// itself when k >= popcount(set) and 0 when k <= 0. With k <= popcount(set)
// it is the first k-subset in ascending order.
func Lowest(set uint64, k int) uint64 {
	var r uint64
	for ; k > 0 && set != 0; k-- {
		r |= set & -set
		set &= set - 1
	}
	return r
}

// Highest returns the subset made of the k highest one bits of set (the
// last k-subset in ascending order); it is set when k >= popcount(set).
func Highest(set uint64, k int) uint64 {
	var r uint64
	for ; k > 0 && set != 0; k-- {
		b := uint64(1) << (63 - bits.LeadingZeros64(set))
		r |= b
		set &^= b
	}
	return r
}

// Deposit returns the i-th subset of d (counting from 0) in ascending
// order, for i < 2^popcount(d): the low bits of i deposited, in order, at
// the one bits of d (PDEP).
func Deposit(i, d uint64) uint64 { return bitops.Pdep(i, d) }

// Extract returns the index of the subset x of d among the subsets of d in
// ascending order: the bits of x at the one bits of d, gathered (PEXT).
func Extract(x, d uint64) uint64 { return bitops.Pext(x, d) }

// binomTable is binom's definition: binom[n][k] is n choose k for
// 0 <= k <= n <= 64, built from Pascal's rule. The largest entry,
// C(64, 32) = 1832624140942590534, fits in a uint64. tables.go holds its
// result (TestTables), so that no process computes it as it starts.
func binomTable() (t [65][65]uint64) {
	for n := 0; n <= 64; n++ {
		t[n][0] = 1
		for k := 1; k <= n; k++ {
			t[n][k] = t[n-1][k-1] + t[n-1][k]
		}
	}
	return t
}

// Binomial returns n choose k for 0 <= n <= 64; it is 0 when k < 0 or k > n.
func Binomial(n, k int) uint64 {
	if n < 0 || n > 64 || k < 0 || k > n {
		return 0
	}
	return binom[n][k]
}

// UnrankK returns the i-th (counting from 0) subset of d with k one bits in
// ascending numeric order, for 0 <= i < Binomial(popcount(d), k). Ascending
// order of k-subsets is colexicographic order of their bit positions, so
// the position of the j-th highest bit is the largest c with C(c, j) <= i.
func UnrankK(d uint64, k int, i uint64) uint64 {
	var pos uint64 // chosen positions among the bits of d
	c := bits.OnesCount64(d)
	for j := k; j > 0; j-- {
		c--
		for binom[c][j] > i {
			c--
		}
		pos |= 1 << uint(c)
		i -= binom[c][j]
	}
	return Deposit(pos, d)
}

// RankK returns the index (counting from 0) of x among the subsets of d
// with popcount(x) bits, in ascending order; x must be a subset of d.
func RankK(x, d uint64) uint64 {
	pos := Extract(x, d)
	var r uint64
	for j := 1; pos != 0; j, pos = j+1, pos&(pos-1) {
		r += binom[bits.TrailingZeros64(pos)][j]
	}
	return r
}
