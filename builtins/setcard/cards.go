// Package setcard holds the kernels for the cards of the game SET: the 81
// cards as the points of the affine space F_3^4, SET-freeness, canonical
// forms under the 31104 symmetries, and the counts of SET-less sets
// (Knuth's SETSET, cs.stanford.edu/~knuth/programs.html).
package setcard

import "math/bits"

// NumCards is the number of distinct SET cards.
const NumCards = 81

// A Card is a card number 0..80: the card (x1, x2, x3, x4), each xi in
// {1, 2, 3}, is 27(x1-1) + 9(x2-1) + 3(x3-1) + (x4-1).
type Card uint8

// Digits returns the four coordinates of c as values 0..2, x1 first.
func (c Card) Digits() [4]uint8 {
	return [4]uint8{uint8(c / 27), uint8(c / 9 % 3), uint8(c / 3 % 3), uint8(c % 3)}
}

// FromDigits builds a card from four coordinates 0..2, x1 first.
func FromDigits(d [4]uint8) Card {
	return Card(27*int(d[0]) + 9*int(d[1]) + 3*int(d[2]) + int(d[3]))
}

// thirdTable[x][y] (tables.go) is the card completing a SET with x and y:
// buildThirdTable, from the definition, because each coordinate of the
// third card is -(a+b) mod 3, which is "all equal or all different".
// (Without a division per entry: digitsOf and mod3.)
func buildThirdTable() (t [NumCards][NumCards]Card) {
	d := digitsOf()
	for x := range Card(NumCards) {
		for y := range Card(NumCards) {
			dx, dy := &d[x], &d[y]
			t[x][y] = Card(27*mod3[6-dx[0]-dy[0]] + 9*mod3[6-dx[1]-dy[1]] + 3*mod3[6-dx[2]-dy[2]] + mod3[6-dx[3]-dy[3]])
		}
	}
	return t
}

// mod3[i] is i % 3 for the i that sums and differences of digits make.
var mod3 = [9]uint8{0, 1, 2, 0, 1, 2, 0, 1, 2}

// digitsOf returns every card's Digits.
func digitsOf() (d [NumCards][4]uint8) {
	for c := range Card(NumCards) {
		d[c] = c.Digits()
	}
	return d
}

// Third returns the card that makes a SET with x and y. For x == y the
// result is x itself, which is not a SET; callers must reject that case.
func Third(x, y Card) Card { return thirdTable[x][y] }

// IsSet reports whether the three cards are distinct and form a SET.
func IsSet(x, y, z Card) bool { return x != y && thirdTable[x][y] == z }

// A Hand is a set of cards as an 81-bit bitset: card c is bit c%64 of
// word c/64. Bits above card 80 are not cards: the functions here ignore
// them.
type Hand [2]uint64

// highMask keeps the cards 64..80 of a Hand's second word.
const highMask = 1<<(NumCards-64) - 1

// Add returns h with card c added.
func (h Hand) Add(c Card) Hand { h[c>>6] |= 1 << (c & 63); return h }

// Has reports whether card c is in h.
func (h Hand) Has(c Card) bool { return h[c>>6]>>(c&63)&1 != 0 }

// trailingZeros is bits.TrailingZeros64, kept local so the hot loops read
// plainly.
func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// HandOf returns the hand holding the given cards.
func HandOf(cards ...Card) Hand {
	var h Hand
	for _, c := range cards {
		h = h.Add(c)
	}
	return h
}

// Len returns the number of cards in h.
func (h Hand) Len() int { return bits.OnesCount64(h[0]) + bits.OnesCount64(h[1]&highMask) }

// Cards returns the cards of h in ascending order.
func (h Hand) Cards() []Card {
	out := make([]Card, 0, h.Len())
	h[1] &= highMask
	for w := 0; w < 2; w++ {
		for x := h[w]; x != 0; x &= x - 1 {
			out = append(out, Card(w*64+bits.TrailingZeros64(x)))
		}
	}
	return out
}

// Less reports whether h precedes g in Knuth's order for sets of
// equal size: sort both ascending and compare lexicographically. For equal
// sizes that is: the smallest card in exactly one of them belongs to h.
// (For sets of different sizes the result is that of this rule too, which
// is the order of the sorted lists padded with an infinite card.)
func (h Hand) Less(g Hand) bool {
	d0, d1 := h[0]^g[0], h[1]^g[1]
	if d0 != 0 {
		return h[0]&(d0&-d0) != 0
	}
	return d1 != 0 && h[1]&(d1&-d1) != 0
}

// SetFree reports whether no three cards of h form a SET.
func (h Hand) SetFree() bool {
	cs := h.Cards()
	for i, x := range cs {
		for _, y := range cs[i+1:] {
			if h.Has(thirdTable[x][y]) {
				return false
			}
		}
	}
	return true
}
