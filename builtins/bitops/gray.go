package bitops

import "math/bits"

// Parity returns 1 when x has an odd number of one bits, else 0.
func Parity(x uint64) uint64 { return uint64(bits.OnesCount64(x) & 1) }

// Gray returns the reflected binary Gray code of x, x ^ x>>1: consecutive
// integers map to words that differ in one bit.
func Gray(x uint64) uint64 { return x ^ x>>1 }

// GrayInverse returns the x with Gray(x) == g: bit i of x is the parity of
// the bits of g at i and above (a prefix XOR from the top, in six steps).
func GrayInverse(g uint64) uint64 {
	g ^= g >> 1
	g ^= g >> 2
	g ^= g >> 4
	g ^= g >> 8
	g ^= g >> 16
	g ^= g >> 32
	return g
}
