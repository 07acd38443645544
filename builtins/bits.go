package builtins

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/subset"
	"go.starlark.net/starlark"
)

// elementwiseDoc ends the docstring of every builtin with an array form.
const elementwiseDoc = `Elementwise: with a word array as the first argument, returns the array of
the results; the other word arguments may then be words or arrays of the
same length. A bad element is an error naming its position (a[i]).`

func init() {
	register(
		Builtin{Name: "U64", Topic: "bits", Value: starlark.MakeUint64(^uint64(0)), Doc: `U64
The constant 2^64 - 1, the full 64-bit word.`},
		wordBuiltin("popcount", "bits", popcountOp),
		wordBuiltin("bsf", "bits", bsfOp),
		wordBuiltin("bsr", "bits", bsrOp),
		wordBuiltin("lsb", "bits", lsbOp),
		Builtin{Name: "bits", Topic: "bits", Fn: bitsOf, Doc: `bits(x)
Returns the list of the indices of the one bits of x, ascending.
bits(0b1010) == [1, 3].`},
		Builtin{Name: "from_bits", Topic: "bits", Fn: fromBits, Doc: `from_bits(indices)
Returns the word with exactly the bits in indices set (an iterable of ints
0..63; repeats are allowed). The inverse of bits.`},
		wordBuiltin("rotl", "bits", rotlOp),
		wordBuiltin("rotr", "bits", rotrOp),
		wordBuiltin("reverse_bits", "bits", reverseOp),
		wordBuiltin("swap_bytes", "bits", swapBytesOp),
		wordBuiltin("pdep", "bits", pdepOp),
		wordBuiltin("pext", "bits", pextOp),
		wordBuiltin("delta_swap", "bits", deltaSwapOp),
		Builtin{Name: "hex", Topic: "bits", Fn: format(16), Doc: `hex(x, width=0)
Formats the word x as "0x..." in lower-case hex, zero-padded to the digits
that width bits need: hex(255, 16) == "0x00ff", hex(5, 6) == "0x05". width
is 0 (no padding) or any of 1..64, and x must fit in it. Negative x is its
two's complement.`},
		Builtin{Name: "bin", Topic: "bits", Fn: format(2), Doc: `bin(x, width=0)
Formats the word x as "0b...", zero-padded to width digits: bin(5, 8) ==
"0b00000101", bin(5, 6) == "0b000101". width is 0 (no padding) or any of
1..64, and x must fit in it.`},
		Builtin{Name: "oct", Topic: "bits", Fn: format(8), Doc: `oct(x, width=0)
Formats the word x as "0o...", zero-padded to the digits that width bits
need: oct(8, 8) == "0o010", oct(8, 6) == "0o10". width is 0 (no padding) or
any of 1..64, and x must fit in it.`},
		wordBuiltin("parity", "bits", parityOp),
		wordBuiltin("gray", "bits", grayOp),
		wordBuiltin("gray_inverse", "bits", grayInvOp),
		Builtin{Name: "binomial", Topic: "bits", Fn: binomialFn, Doc: `binomial(n, k)
Returns n choose k as an exact int (however large): the number of k-subsets
of an n-set. It is 0 when k < 0 or k > n. Error if n is negative (as
Python's math.comb) or beyond 2^63-1, or if the result would exceed
2^23 bits (about 2.5 million decimal digits).`},
	)
}

func bitsOf(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := wordArg(b.Name(), "x", args, kwargs)
	if err != nil {
		return nil, err
	}
	idx := bitops.Indices(uint64(x))
	elems := make([]starlark.Value, len(idx))
	for i, v := range idx {
		elems[i] = starlark.MakeInt(v)
	}
	return starlark.NewList(elems), nil
}

func fromBits(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "indices", &seq); err != nil {
		return nil, err
	}
	it := seq.Iterate()
	defer it.Done()
	var x uint64
	var v starlark.Value
	for i := 0; it.Next(&v); i++ {
		n, err := starlark.AsInt32(v)
		if err != nil || n < 0 || n > 63 {
			return nil, fmt.Errorf("%s: indices[%d] = %s is not a bit index 0..63", b.Name(), i, Short(v))
		}
		x |= 1 << uint(n)
	}
	return wordValue(x), nil
}

// format returns hex (base 16), bin (2) or oct (8).
func format(base int) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, w, ok := formatFast(args, kwargs)
		if !ok {
			var xw Word
			var width starlark.Value = starlark.MakeInt(0)
			if err := unpack(b.Name(), args, kwargs, "x", &xw, "width?", &width); err != nil {
				return nil, err
			}
			n, err := starlark.AsInt32(width)
			if _, isInt := width.(starlark.Int); !isInt {
				return nil, fmt.Errorf("%s: width: got %s, want int", b.Name(), width.Type())
			}
			if err != nil || n < 0 || n > 64 {
				return nil, fmt.Errorf("%s: width = %s is not in 0..64", b.Name(), Short(width))
			}
			x, w = uint64(xw), uint(n)
		}
		if w > 0 {
			if err := fits(b.Name(), "x", Word(x), Width(w)); err != nil {
				return nil, err
			}
		}
		return starlark.String(bitops.Format(x, base, w)), nil
	}
}

// formatFast converts the common call of hex, bin and oct: a word and an
// optional width 0..64, positional.
func formatFast(args starlark.Tuple, kwargs []starlark.Tuple) (x uint64, w uint, ok bool) {
	if len(kwargs) != 0 || len(args) < 1 || len(args) > 2 {
		return 0, 0, false
	}
	if x, ok = argWord(args[0]); !ok {
		return 0, 0, false
	}
	if len(args) == 2 {
		n, ok := argInt(args[1])
		if !ok || n < 0 || n > 64 {
			return 0, 0, false
		}
		w = uint(n)
	}
	return x, w, true
}

func binomialFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n, k starlark.Int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n, "k", &k); err != nil {
		return nil, err
	}
	if n.Sign() < 0 {
		return nil, fmt.Errorf("%s: n = %s is negative", b.Name(), Short(n))
	}
	nn, ok := n.Int64()
	if !ok {
		return nil, fmt.Errorf("%s: n = %s is beyond 2^63-1", b.Name(), Short(n))
	}
	kk, ok := k.Int64()
	if !ok { // |k| beyond 2^63: k < 0 or k > n
		return starlark.MakeInt(0), nil
	}
	c, ok := subset.BinomialBig(nn, kk)
	if !ok {
		return nil, fmt.Errorf("%s: C(%d, %d) may exceed the limit of %d bits", b.Name(), nn, kk, subset.MaxBinomialBits)
	}
	return starlark.MakeBigInt(c), nil
}
