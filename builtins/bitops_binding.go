package builtins

import (
	"fmt"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/dialect"
)

// The word builtins of docs/builtins.md that have an elementwise form
// (docs/words.md). Each one's name, parameters and doc are declared once in
// bitops.Builtins; here each becomes a wordOp (check, scalar kernel, array
// kernel) with its parameters read from that declaration.

// wordBuiltin is the registry entry of the word builtin name declared in
// bitops.Builtins, op its implementation: its doc is the declaration's
// signature and doc, then elementwiseDoc.
func wordBuiltin(name, topic string, op *wordOp) Builtin {
	d := wordDecl(name)
	params := make([]dialect.Param, len(d.Params))
	for i, p := range d.Params {
		params[i] = dialect.Param{Name: p.Name}
		if p.Optional {
			params[i].Default = p.DefaultText()
		}
	}
	return Builtin{Name: name, Topic: topic, Fn: op.call,
		Doc: dialect.Signature(name, params) + "\n" + d.Doc + "\n" + elementwiseDoc}
}

// wordDecl returns the declaration of the word builtin name; it panics,
// at init, for a name bitops does not declare.
func wordDecl(name string) *bitops.Builtin {
	d, ok := bitops.Lookup(name)
	if !ok {
		panic("bitops declares no word builtin " + name)
	}
	return d
}

// wordParams returns the parameters of the word builtin name as a wordOp
// reads them.
func wordParams(name string) []param {
	d := wordDecl(name)
	params := make([]param, len(d.Params))
	for i, p := range d.Params {
		params[i] = param{name: p.Name, opt: p.Optional, def: p.Default}
		switch p.Kind {
		case bitops.Width:
			params[i].kind = kWidth
		case bitops.Count:
			params[i].kind = kCount
		case bitops.Int:
			params[i].kind = kInt
		}
	}
	return params
}

// unaryOp declares f(x) with no precondition.
func unaryOp(name string, scalar func(x uint64) uint64, array func(dst, x []uint64)) *wordOp {
	return newWordOp(wordOp{
		params: wordParams(name),
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
func scanOp(name string, scalar func(uint64) int, array func(dst, x []uint64) bool) *wordOp {
	return newWordOp(wordOp{
		params: wordParams(name),
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
func withinWidthOp(name string, scalar func(x uint64, width uint) uint64, array func(dst, x []uint64, width uint)) *wordOp {
	return newWordOp(wordOp{
		params: wordParams(name),
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

// rotateOp declares name, rotl (dir 1) or rotr (dir -1). k is kept modulo 64,
// which every width divides, so k & (width-1) is k modulo width.
func rotateOp(name string, dir int) *wordOp {
	array := bitops.RotateLefts
	if dir < 0 {
		array = bitops.RotateRights
	}
	return newWordOp(wordOp{
		params: wordParams(name),
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
func maskOp(name string, scalar func(x, mask uint64) uint64, array func(dst, x, mask []uint64)) *wordOp {
	return newWordOp(wordOp{
		params: wordParams(name),
		scalar: func(v [4]uint64) uint64 { return scalar(v[0], v[1]) },
		array: func(dst []uint64, c [4][]uint64) bool {
			array(dst, c[0], c[1])
			return true
		},
	})
}

var (
	popcountOp = unaryOp("popcount", func(x uint64) uint64 { return uint64(bits.OnesCount64(x)) }, bitops.PopCounts)
	parityOp   = unaryOp("parity", bitops.Parity, bitops.Parities)
	lsbOp      = unaryOp("lsb", bitops.Lsb, bitops.Lsbs)
	grayOp     = unaryOp("gray", bitops.Gray, bitops.Grays)
	grayInvOp  = unaryOp("gray_inverse", bitops.GrayInverse, bitops.GrayInverses)

	bsfOp = scanOp("bsf", bitops.Bsf, bitops.Bsfs)
	bsrOp = scanOp("bsr", bitops.Bsr, bitops.Bsrs)

	reverseOp   = withinWidthOp("reverse_bits", bitops.Reverse, bitops.Reverses)
	swapBytesOp = withinWidthOp("swap_bytes", bitops.SwapBytes, bitops.SwapBytesAll)

	rotlOp = rotateOp("rotl", 1)
	rotrOp = rotateOp("rotr", -1)

	pdepOp = maskOp("pdep", bitops.Pdep, bitops.Pdeps)
	pextOp = maskOp("pext", bitops.Pext, bitops.Pexts)

	deltaSwapOp = newWordOp(wordOp{
		params: wordParams("delta_swap"),
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
