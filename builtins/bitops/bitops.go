// Package bitops holds bitsh's word kernels: scans, rotations within a
// width, bit reversal, byte swaps, parallel deposit and extract, delta
// swaps and base-2^k formatting. Every function works on uint64 and is
// defined for all inputs, with edge cases stated in its doc comment.
package bitops

import (
	"math/bits"
	"strconv"
	"strings"
)

// Mask returns the word with the low width bits set; width is 1..64.
func Mask(width uint) uint64 { return ^uint64(0) >> (64 - width) }

// Bsf returns the index of the least significant one bit; the result is
// 64 for x == 0.
func Bsf(x uint64) int { return bits.TrailingZeros64(x) }

// Bsr returns the index of the most significant one bit; the result is -1
// for x == 0.
func Bsr(x uint64) int { return 63 - bits.LeadingZeros64(x) }

// Lsb returns x & -x, the least significant one bit of x (0 for x == 0).
func Lsb(x uint64) uint64 { return x & -x }

// Indices returns the indices of the one bits of x in ascending order.
func Indices(x uint64) []int {
	out := make([]int, 0, bits.OnesCount64(x))
	for ; x != 0; x &= x - 1 {
		out = append(out, bits.TrailingZeros64(x))
	}
	return out
}

// RotateLeft rotates the low width bits of x left by k (k may be negative
// or larger than width); width is 1..64 and x must fit in it.
func RotateLeft(x uint64, k int, width uint) uint64 {
	if width == 64 {
		return bits.RotateLeft64(x, k)
	}
	s := uint(((k % int(width)) + int(width)) % int(width))
	if s == 0 {
		return x
	}
	return (x<<s | x>>(width-s)) & Mask(width)
}

// Reverse moves bit i of the low width bits of x to bit width-1-i; width
// is 1..64 and x must fit in it.
func Reverse(x uint64, width uint) uint64 { return bits.Reverse64(x) >> (64 - width) }

// SwapBytes reverses the order of the low width/8 bytes of x; width is a
// multiple of 8 in 8..64 and x must fit in it.
func SwapBytes(x uint64, width uint) uint64 { return bits.ReverseBytes64(x) >> (64 - width) }

// Pdep deposits the low bits of x, in order, at the positions of the one
// bits of mask (as the BMI2 instruction PDEP).
func Pdep(x, mask uint64) uint64 {
	var r uint64
	for m := mask; m != 0 && x != 0; m &= m - 1 {
		if x&1 != 0 {
			r |= m & -m
		}
		x >>= 1
	}
	return r
}

// Pext gathers the bits of x at the positions of the one bits of mask into
// the low bits of the result, in order (as the BMI2 instruction PEXT).
func Pext(x, mask uint64) uint64 {
	var r uint64
	for k, m := uint(0), mask; m != 0; k, m = k+1, m&(m-1) {
		if x&m&-m != 0 {
			r |= 1 << k
		}
	}
	return r
}

// DeltaSwap swaps each bit i of x in mask with bit i+delta; mask must not
// overlap mask<<delta for the result to be a permutation of x's bits.
func DeltaSwap(x, mask uint64, delta uint) uint64 {
	t := (x ^ x>>delta) & mask
	return x ^ t ^ t<<delta
}

// Format writes x in base 2, 8 or 16 with the prefix "0b", "0o" or "0x",
// zero-padded to the digits that width bits need (no padding for width 0).
func Format(x uint64, base int, width uint) string {
	var prefix string
	var bitsPerDigit uint
	switch base {
	case 2:
		prefix, bitsPerDigit = "0b", 1
	case 8:
		prefix, bitsPerDigit = "0o", 3
	case 16:
		prefix, bitsPerDigit = "0x", 4
	default:
		panic("bitops.Format: base must be 2, 8 or 16")
	}
	digits := strconv.FormatUint(x, base)
	if pad := int((width+bitsPerDigit-1)/bitsPerDigit) - len(digits); pad > 0 {
		digits = strings.Repeat("0", pad) + digits
	}
	return prefix + digits
}
