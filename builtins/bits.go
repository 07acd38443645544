package builtins

import (
	"fmt"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
	"go.starlark.net/starlark"
)

func init() {
	register(
		Builtin{Name: "U64", Topic: "bits", Value: starlark.MakeUint64(^uint64(0)), Doc: `U64
The constant 2^64 - 1, the full 64-bit word.`},
		Builtin{Name: "popcount", Topic: "bits", Fn: popcount, Doc: `popcount(x)
Returns the number of one bits of the word x.`},
		Builtin{Name: "bsf", Topic: "bits", Fn: scan(bitops.Bsf), Doc: `bsf(x)
Returns the index (0..63) of the least significant one bit of x.
Error if x == 0.`},
		Builtin{Name: "bsr", Topic: "bits", Fn: scan(bitops.Bsr), Doc: `bsr(x)
Returns the index (0..63) of the most significant one bit of x.
Error if x == 0.`},
		Builtin{Name: "lsb", Topic: "bits", Fn: lsb, Doc: `lsb(x)
Returns x & -x as a word: the least significant one bit of x, 0 for x == 0.`},
		Builtin{Name: "bits", Topic: "bits", Fn: bitsOf, Doc: `bits(x)
Returns the list of the indices of the one bits of x, ascending.
bits(0b1010) == [1, 3].`},
		Builtin{Name: "from_bits", Topic: "bits", Fn: fromBits, Doc: `from_bits(indices)
Returns the word with exactly the bits in indices set (an iterable of ints
0..63; repeats are allowed). The inverse of bits.`},
		Builtin{Name: "rotl", Topic: "bits", Fn: rotate(1), Doc: `rotl(x, k, width=64)
Rotates x left by k bits within width bits (8, 16, 32 or 64). Any int k
works: negative k rotates right, k is taken modulo width. x must fit in width.`},
		Builtin{Name: "rotr", Topic: "bits", Fn: rotate(-1), Doc: `rotr(x, k, width=64)
Rotates x right by k bits within width bits (8, 16, 32 or 64). Any int k
works: negative k rotates left, k is taken modulo width. x must fit in width.`},
		Builtin{Name: "reverse_bits", Topic: "bits", Fn: withinWidth(bitops.Reverse), Doc: `reverse_bits(x, width=64)
Reverses the bit order of x within width bits: bit i goes to width-1-i.
x must fit in width.`},
		Builtin{Name: "swap_bytes", Topic: "bits", Fn: withinWidth(bitops.SwapBytes), Doc: `swap_bytes(x, width=64)
Reverses the byte order of x within width bits. x must fit in width.`},
		Builtin{Name: "pdep", Topic: "bits", Fn: pdep, Doc: `pdep(x, mask)
Parallel bit deposit (BMI2 PDEP): the low bits of x, in order, go to the
positions of the one bits of mask. pdep(0b101, 0xf0) == 0x50.`},
		Builtin{Name: "pext", Topic: "bits", Fn: pext, Doc: `pext(x, mask)
Parallel bit extract (BMI2 PEXT): the bits of x at the positions of the one
bits of mask, gathered into the low bits. pext(0x50, 0xf0) == 0b101.`},
		Builtin{Name: "delta_swap", Topic: "bits", Fn: deltaSwap, Doc: `delta_swap(x, mask, delta)
Swaps each bit i of x with bit i+delta, for every one bit i of mask.
delta is 0..63 (0 swaps each bit with itself: x is unchanged); error if
mask << delta overflows 64 bits or overlaps mask.`},
		Builtin{Name: "hex", Topic: "bits", Fn: format(16), Doc: `hex(x, width=0)
Formats the word x as "0x..." in lower-case hex, zero-padded to the digits
that width bits need: hex(255, 16) == "0x00ff". width is 0 (no padding) or
8, 16, 32, 64, and x must fit in it. Negative x is its two's complement.`},
		Builtin{Name: "bin", Topic: "bits", Fn: format(2), Doc: `bin(x, width=0)
Formats the word x as "0b...", zero-padded to width digits: bin(5, 8) ==
"0b00000101". width is 0 (no padding) or 8, 16, 32, 64, and x must fit in it.`},
		Builtin{Name: "oct", Topic: "bits", Fn: format(8), Doc: `oct(x, width=0)
Formats the word x as "0o...", zero-padded to the digits that width bits
need: oct(8, 8) == "0o010". width is 0 (no padding) or 8, 16, 32, 64, and x
must fit in it.`},
	)
}

func popcount(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x Word
	if err := unpack(b.Name(), args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	return starlark.MakeInt(bits.OnesCount64(uint64(x))), nil
}

// scan returns bsf or bsr: a bit index of a nonzero word.
func scan(index func(uint64) int) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x Word
		if err := unpack(b.Name(), args, kwargs, "x", &x); err != nil {
			return nil, err
		}
		if x == 0 {
			return nil, fmt.Errorf("%s: x = 0 has no one bit", b.Name())
		}
		return starlark.MakeInt(index(uint64(x))), nil
	}
}

func lsb(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x Word
	if err := unpack(b.Name(), args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	return wordValue(bitops.Lsb(uint64(x))), nil
}

func bitsOf(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x Word
	if err := unpack(b.Name(), args, kwargs, "x", &x); err != nil {
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
			return nil, fmt.Errorf("%s: indices[%d] = %s is not a bit index 0..63", b.Name(), i, v)
		}
		x |= 1 << uint(n)
	}
	return wordValue(x), nil
}

// rotate returns rotl (dir 1) or rotr (dir -1).
func rotate(dir int) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x Word
		var k starlark.Int
		width := Width(64)
		if err := unpack(b.Name(), args, kwargs, "x", &x, "k", &k, "width?", &width); err != nil {
			return nil, err
		}
		if err := fits(b.Name(), "x", x, width); err != nil {
			return nil, err
		}
		// k may be any int, even a huge one: reduce it modulo width first.
		m, _ := k.Mod(starlark.MakeInt(int(width))).Int64()
		return wordValue(bitops.RotateLeft(uint64(x), dir*int(m), uint(width))), nil
	}
}

// withinWidth returns reverse_bits or swap_bytes: op applied to a word
// that fits in width bits.
func withinWidth(op func(x uint64, width uint) uint64) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x Word
		width := Width(64)
		if err := unpack(b.Name(), args, kwargs, "x", &x, "width?", &width); err != nil {
			return nil, err
		}
		if err := fits(b.Name(), "x", x, width); err != nil {
			return nil, err
		}
		return wordValue(op(uint64(x), uint(width))), nil
	}
}

func pdep(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, mask Word
	if err := unpack(b.Name(), args, kwargs, "x", &x, "mask", &mask); err != nil {
		return nil, err
	}
	return wordValue(bitops.Pdep(uint64(x), uint64(mask))), nil
}

func pext(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, mask Word
	if err := unpack(b.Name(), args, kwargs, "x", &x, "mask", &mask); err != nil {
		return nil, err
	}
	return wordValue(bitops.Pext(uint64(x), uint64(mask))), nil
}

func deltaSwap(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, mask Word
	var delta int
	if err := unpack(b.Name(), args, kwargs, "x", &x, "mask", &mask, "delta", &delta); err != nil {
		return nil, err
	}
	if delta < 0 || delta > 63 {
		return nil, fmt.Errorf("%s: delta = %d is not in 0..63", b.Name(), delta)
	}
	m := uint64(mask)
	if m<<uint(delta)>>uint(delta) != m {
		return nil, fmt.Errorf("%s: mask = %s shifted by delta = %d overflows 64 bits", b.Name(), hexWord(mask), delta)
	}
	if delta > 0 && m&(m<<uint(delta)) != 0 {
		return nil, fmt.Errorf("%s: mask = %s overlaps itself shifted by delta = %d", b.Name(), hexWord(mask), delta)
	}
	return wordValue(bitops.DeltaSwap(uint64(x), m, uint(delta))), nil
}

// format returns hex (base 16), bin (2) or oct (8).
func format(base int) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x Word
		var width starlark.Value = starlark.MakeInt(0)
		if err := unpack(b.Name(), args, kwargs, "x", &x, "width?", &width); err != nil {
			return nil, err
		}
		w := Width(64)
		if n, err := starlark.AsInt32(width); err != nil || n != 0 {
			var werr error
			if w, werr = toWidth(b.Name(), "width", width); werr != nil {
				return nil, fmt.Errorf("%s: width = %s is not one of 0, 8, 16, 32, 64", b.Name(), width)
			}
			if err := fits(b.Name(), "x", x, w); err != nil {
				return nil, err
			}
		} else {
			w = 0
		}
		return starlark.String(bitops.Format(uint64(x), base, uint(w))), nil
	}
}
