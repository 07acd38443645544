package builtins

import (
	"fmt"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// The word builtins of docs/builtins.md that have an elementwise form (docs/words.md), each
// declared once as a wordOp: parameters, check, scalar kernel, array
// kernel.

var (
	paramX     = param{name: "x"}
	paramMask  = param{name: "mask"}
	paramWidth = param{name: "width", kind: kWidth, opt: true, def: 64}
)

// unaryOp declares f(x) with no precondition.
func unaryOp(scalar func(x uint64) uint64, array func(dst, x []uint64)) *wordOp {
	return newWordOp(wordOp{
		params: []param{paramX},
		scalar: func(v [4]uint64) uint64 { return scalar(v[0]) },
		array: func(dst []uint64, c [4][]uint64) bool {
			array(dst, c[0])
			return true
		},
	})
}

// nonzero is the check of bsf and bsr.
func nonzero(fn string, v [4]uint64, nm *argNames) error {
	if v[0] == 0 {
		return fmt.Errorf("%s: %s = 0 has no one bit", fn, nm.name(0))
	}
	return nil
}

// scanOp declares bsf or bsr: a bit index of a nonzero word.
func scanOp(scalar func(uint64) int, array func(dst, x []uint64) bool) *wordOp {
	return newWordOp(wordOp{
		params: []param{paramX},
		check:  nonzero,
		scalar: func(v [4]uint64) uint64 { return uint64(scalar(v[0])) },
		array:  func(dst []uint64, c [4][]uint64) bool { return array(dst, c[0]) },
	})
}

// xFits is the check of the builtins whose x must fit in v[width].
func xFits(width int) func(fn string, v [4]uint64, nm *argNames) error {
	return func(fn string, v [4]uint64, nm *argNames) error {
		return fits(fn, nm.name(0), Word(v[0]), Width(v[width]))
	}
}

// withinWidthOp declares reverse_bits or swap_bytes: op applied to a word
// that fits in width bits.
func withinWidthOp(scalar func(x uint64, width uint) uint64, array func(dst, x []uint64, width uint)) *wordOp {
	return newWordOp(wordOp{
		params: []param{paramX, paramWidth},
		check:  xFits(1),
		scalar: func(v [4]uint64) uint64 { return scalar(v[0], uint(v[1])) },
		array: func(dst []uint64, c [4][]uint64) bool {
			w := uint(c[1][0])
			if !bitops.Fit(c[0], w) {
				return false
			}
			array(dst, c[0], w)
			return true
		},
	})
}

// rotateOp declares rotl (dir 1) or rotr (dir -1). k is kept modulo 64,
// which every width divides, so k & (width-1) is k modulo width.
func rotateOp(dir int) *wordOp {
	array := bitops.RotateLefts
	if dir < 0 {
		array = bitops.RotateRights
	}
	return newWordOp(wordOp{
		params: []param{paramX, {name: "k", kind: kCount}, paramWidth},
		check:  xFits(2),
		scalar: func(v [4]uint64) uint64 {
			k := v[1]
			if dir < 0 {
				k = -k
			}
			return bitops.RotateLeft(v[0], int(k&(v[2]-1)), uint(v[2]))
		},
		array: func(dst []uint64, c [4][]uint64) bool {
			w := uint(c[2][0])
			if !bitops.Fit(c[0], w) {
				return false
			}
			array(dst, c[0], c[1], w)
			return true
		},
	})
}

// maskOp declares pdep or pext.
func maskOp(scalar func(x, mask uint64) uint64, array func(dst, x, mask []uint64)) *wordOp {
	return newWordOp(wordOp{
		params: []param{paramX, paramMask},
		scalar: func(v [4]uint64) uint64 { return scalar(v[0], v[1]) },
		array: func(dst []uint64, c [4][]uint64) bool {
			array(dst, c[0], c[1])
			return true
		},
	})
}

var (
	popcountOp = unaryOp(func(x uint64) uint64 { return uint64(bits.OnesCount64(x)) }, bitops.PopCounts)
	parityOp   = unaryOp(bitops.Parity, bitops.Parities)
	lsbOp      = unaryOp(bitops.Lsb, bitops.Lsbs)
	grayOp     = unaryOp(bitops.Gray, bitops.Grays)
	grayInvOp  = unaryOp(bitops.GrayInverse, bitops.GrayInverses)

	bsfOp = scanOp(bitops.Bsf, bitops.Bsfs)
	bsrOp = scanOp(bitops.Bsr, bitops.Bsrs)

	reverseOp   = withinWidthOp(bitops.Reverse, bitops.Reverses)
	swapBytesOp = withinWidthOp(bitops.SwapBytes, bitops.SwapBytesAll)

	rotlOp = rotateOp(1)
	rotrOp = rotateOp(-1)

	pdepOp = maskOp(bitops.Pdep, bitops.Pdeps)
	pextOp = maskOp(bitops.Pext, bitops.Pexts)

	deltaSwapOp = newWordOp(wordOp{
		params: []param{paramX, paramMask, {name: "delta", kind: kInt}},
		check: func(fn string, v [4]uint64, nm *argNames) error {
			delta, m := int64(v[2]), v[1]
			if delta < 0 || delta > 63 {
				return fmt.Errorf("%s: %s = %d is not in 0..63", fn, nm.name(2), delta)
			}
			if m<<uint(delta)>>uint(delta) != m {
				return fmt.Errorf("%s: %s = %s shifted by %s = %d overflows 64 bits", fn, nm.name(1), hexWord(Word(m)), nm.name(2), delta)
			}
			if delta > 0 && m&(m<<uint(delta)) != 0 {
				return fmt.Errorf("%s: %s = %s overlaps itself shifted by %s = %d", fn, nm.name(1), hexWord(Word(m)), nm.name(2), delta)
			}
			return nil
		},
		scalar: func(v [4]uint64) uint64 { return bitops.DeltaSwap(v[0], v[1], uint(v[2])) },
		array: func(dst []uint64, c [4][]uint64) bool {
			bitops.DeltaSwaps(dst, c[0], c[1], c[2])
			return true
		},
	})
)
