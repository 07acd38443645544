package bitops

import "math/bits"

// The elementwise kernels below apply one word function to every element
// of equal-length slices (dst[i] = f(x[i], ...)); dst may be x. They are
// the loops behind the array forms of the bit builtins (docs/words.md), written
// out one by one so that each compiles to a tight loop with the operation
// inlined. A kernel whose function has a precondition reports whether
// every element met it (ok == false: at least one did not, and the
// corresponding dst elements are unspecified); the caller then finds the
// first offender with the scalar check, a rare slow path.

// PopCounts sets dst[i] to the number of one bits of x[i].
func PopCounts(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = uint64(bits.OnesCount64(v))
	}
}

// Parities sets dst[i] to Parity(x[i]).
func Parities(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = uint64(bits.OnesCount64(v) & 1)
	}
}

// Bsfs sets dst[i] to Bsf(x[i]); ok is false when some x[i] is 0.
func Bsfs(dst, x []uint64) (ok bool) {
	x = x[:len(dst)]
	var z uint64
	for i, v := range x {
		t := uint64(bits.TrailingZeros64(v))
		z |= t
		dst[i] = t
	}
	return z&64 == 0 // TrailingZeros64 is 64 only for 0
}

// Bsrs sets dst[i] to Bsr(x[i]); ok is false when some x[i] is 0.
func Bsrs(dst, x []uint64) (ok bool) {
	x = x[:len(dst)]
	var z uint64
	for i, v := range x {
		t := uint64(63 - bits.LeadingZeros64(v))
		z |= t
		dst[i] = t
	}
	return z>>63 == 0 // -1 as a word for 0
}

// Lsbs sets dst[i] to x[i] & -x[i].
func Lsbs(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v & -v
	}
}

// Grays sets dst[i] to Gray(x[i]).
func Grays(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v ^ v>>1
	}
}

// GrayInverses sets dst[i] to GrayInverse(x[i]).
func GrayInverses(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = GrayInverse(v)
	}
}

// Fit reports whether every x[i] fits in width bits (1..64).
func Fit(x []uint64, width uint) bool {
	var or uint64
	for _, v := range x {
		or |= v
	}
	return width >= 64 || or>>width == 0
}

// RotateLefts sets dst[i] to RotateLeft(x[i], k[i] mod width, width) for
// width 8, 16, 32 or 64; a k[i] read as a negative int in two's complement
// rotates right, as 2^64 is a multiple of width. The x[i] must fit in width.
func RotateLefts(dst, x, k []uint64, width uint) {
	x, k = x[:len(dst)], k[:len(dst)]
	if width == 64 {
		for i, v := range x {
			dst[i] = bits.RotateLeft64(v, int(k[i]&63))
		}
		return
	}
	m := Mask(width)
	for i, v := range x {
		s := uint(k[i]) & (width - 1)
		// For s == 0, v >> width is 0 as v fits in width: no branch needed.
		dst[i] = (v<<s | v>>(width-s)) & m
	}
}

// Reverses sets dst[i] to Reverse(x[i], width); the x[i] must fit in width.
func Reverses(dst, x []uint64, width uint) {
	x = x[:len(dst)]
	s := 64 - width
	for i, v := range x {
		dst[i] = bits.Reverse64(v) >> s
	}
}

// SwapBytesAll sets dst[i] to SwapBytes(x[i], width); the x[i] must fit
// in width.
func SwapBytesAll(dst, x []uint64, width uint) {
	x = x[:len(dst)]
	s := 64 - width
	for i, v := range x {
		dst[i] = bits.ReverseBytes64(v) >> s
	}
}

// Pdeps sets dst[i] to Pdep(x[i], mask[i]).
func Pdeps(dst, x, mask []uint64) {
	x, mask = x[:len(dst)], mask[:len(dst)]
	for i, v := range x {
		dst[i] = Pdep(v, mask[i])
	}
}

// Pexts sets dst[i] to Pext(x[i], mask[i]).
func Pexts(dst, x, mask []uint64) {
	x, mask = x[:len(dst)], mask[:len(dst)]
	for i, v := range x {
		dst[i] = Pext(v, mask[i])
	}
}

// DeltaSwaps sets dst[i] to DeltaSwap(x[i], mask[i], delta[i]); every
// delta[i] must be 0..63.
func DeltaSwaps(dst, x, mask, delta []uint64) {
	x, mask, delta = x[:len(dst)], mask[:len(dst)], delta[:len(dst)]
	for i, v := range x {
		d := uint(delta[i]) & 63
		t := (v ^ v>>d) & mask[i]
		dst[i] = v ^ t ^ t<<d
	}
}

// RotateRights sets dst[i] to RotateLeft(x[i], -(k[i] mod width), width),
// the rotation right by k[i], under the same rules as RotateLefts.
func RotateRights(dst, x, k []uint64, width uint) {
	x, k = x[:len(dst)], k[:len(dst)]
	if width == 64 {
		for i, v := range x {
			dst[i] = bits.RotateLeft64(v, -int(k[i]&63))
		}
		return
	}
	m := Mask(width)
	for i, v := range x {
		s := uint(-k[i]) & (width - 1)
		dst[i] = (v<<s | v>>(width-s)) & m
	}
}
