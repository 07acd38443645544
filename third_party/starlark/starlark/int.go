// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"strconv"

	"go.starlark.net/syntax"
)

// Int is the type of a Starlark int.
//
// The zero value is not a legal value; use MakeInt(0).
type Int struct{ impl intImpl }

// --- high-level accessors ---

// MakeInt returns a Starlark int for the specified signed integer.
func MakeInt(x int) Int { return MakeInt64(int64(x)) }

// MakeInt64 returns a Starlark int for the specified int64.
func MakeInt64(x int64) Int {
	if math.MinInt32 <= x && x <= math.MaxInt32 {
		return makeSmallInt(x)
	}
	if x < 0 {
		return makeNegWord(uint64(-x)) // -MinInt64 wraps to 2^63, right
	}
	return makeWord(uint64(x))
}

// MakeUint returns a Starlark int for the specified unsigned integer.
func MakeUint(x uint) Int { return MakeUint64(uint64(x)) }

// MakeUint64 returns a Starlark int for the specified uint64.
func MakeUint64(x uint64) Int {
	if x <= math.MaxInt32 {
		return makeSmallInt(int64(x))
	}
	return makeWord(x)
}

// MakeBigInt returns a Starlark int for the specified big.Int.
// The new Int value will contain a copy of x. The caller is safe to modify x.
func MakeBigInt(x *big.Int) Int {
	if isSmall(x) {
		return makeSmallInt(x.Int64())
	}
	if w := x.Bits(); len(w) <= 128/bits.UintSize && bits.UintSize == 64 {
		var hi, lo uint64
		if len(w) == 2 {
			hi = uint64(w[1])
		}
		lo = uint64(w[0]) // x is not small, so len(w) >= 1
		return makeInt128(x.Sign() < 0, hi, lo)
	}
	z := new(big.Int).Set(x)
	return makeBigInt(z)
}

// --- one-allocation big ints and the fast paths of [0, 2^64) (bitsh fork) ---

// big128 is a big.Int and the words of its value, at most 128 bits, in a
// single allocation: a result built here costs one allocation where
// new(big.Int).SetUint64 costs two. Int values are immutable, so no
// operation ever writes to the words.
type big128 struct {
	i big.Int
	w [128 / bits.UintSize]big.Word
}

// newBig128 returns the big.Int of value ±(hi*2^64 + lo), whose magnitude
// is not 0. Callers ensure it is not small.
func newBig128(neg bool, hi, lo uint64) *big.Int {
	if bits.UintSize != 64 {
		z := new(big.Int).SetUint64(hi)
		z.Lsh(z, 64).Or(z, new(big.Int).SetUint64(lo))
		if neg {
			z.Neg(z)
		}
		return z
	}
	b := new(big128)
	b.w[0] = big.Word(lo)
	n := 1
	if hi != 0 {
		b.w[1] = big.Word(hi)
		n = 2
	}
	b.i.SetBits(b.w[:n])
	if neg {
		b.i.Neg(&b.i)
	}
	return &b.i
}

// makeUint128 returns the Int hi*2^64 + lo.
func makeUint128(hi, lo uint64) Int {
	if hi == 0 {
		if lo <= math.MaxInt32 {
			return makeSmallInt(int64(lo))
		}
		return makeWord(lo)
	}
	return makeBig128(false, hi, lo)
}

// makeInt128 returns the Int ±(hi*2^64 + lo), negative if neg.
func makeInt128(neg bool, hi, lo uint64) Int {
	if hi == 0 {
		return makeMag(neg, lo)
	}
	return makeBig128(neg, hi, lo)
}

// makeMag returns the Int m, or -m if neg.
func makeMag(neg bool, m uint64) Int {
	if !neg {
		if m <= math.MaxInt32 {
			return makeSmallInt(int64(m))
		}
		return makeWord(m)
	}
	if m <= -math.MinInt32 {
		return makeSmallInt(-int64(m))
	}
	return makeNegWord(m)
}

// mag64 returns i's sign and magnitude when the magnitude is below 2^64:
// the values the operations below compute on words, without math/big.
func (i Int) mag64() (neg bool, m uint64, ok bool) {
	if v, ok := i.small(); ok {
		if v < 0 {
			return true, uint64(-v), true
		}
		return false, uint64(v), true
	}
	if v, neg, ok := i.tagged(); ok {
		return neg, v, true
	}
	if hi, lo, ok := i.wide(); ok {
		switch {
		case hi == 0:
			return false, lo, true
		case hi == math.MaxUint64 && lo != 0:
			return true, -lo, true
		}
		return false, 0, false
	}
	iSmall, iBig := i.get()
	if iBig == nil {
		if iSmall < 0 {
			return true, uint64(-iSmall), true
		}
		return false, uint64(iSmall), true
	}
	w := iBig.Bits()
	switch {
	case len(w) == 1:
		m = uint64(w[0])
	case len(w) == 2 && bits.UintSize == 32:
		m = uint64(w[0]) | uint64(w[1])<<32
	default:
		return false, 0, false // not small, so not 0: more than 64 bits
	}
	return iBig.Sign() < 0, m, true
}

// low64 returns the low 64 bits of i's two's complement.
func (i Int) low64() uint64 {
	if v, ok := i.small(); ok {
		return uint64(v)
	}
	if v, neg, ok := i.tagged(); ok {
		if neg {
			return -v
		}
		return v
	}
	if _, lo, ok := i.wide(); ok {
		return lo
	}
	iSmall, iBig := i.get()
	if iBig == nil {
		return uint64(iSmall)
	}
	w := iBig.Bits()
	m := uint64(w[0]) // not small, so not 0
	if bits.UintSize == 32 && len(w) > 1 {
		m |= uint64(w[1]) << 32
	}
	if iBig.Sign() < 0 {
		return -m
	}
	return m
}

// u64 returns the value of an Int from get() when it is in [0, 2^64).
func u64(small int64, big *big.Int) (uint64, bool) {
	if big == nil {
		return uint64(small), small >= 0
	}
	return big.Uint64(), big.IsUint64()
}

// both64 returns x and y as uint64s when both are in [0, 2^64).
func both64(x, y Int) (a, b uint64, ok bool) {
	a, ok = x.word()
	if !ok {
		return 0, 0, false
	}
	b, ok = y.word()
	return a, b, ok
}

// addMag returns ±xm + ±ym.
func addMag(xNeg bool, xm uint64, yNeg bool, ym uint64) Int {
	if xNeg == yNeg {
		lo, carry := bits.Add64(xm, ym, 0)
		return makeInt128(xNeg, carry, lo)
	}
	if xm >= ym {
		return makeMag(xNeg, xm-ym)
	}
	return makeMag(yNeg, ym-xm)
}

// The binary operators below with at least one big operand: a uint64
// fast path when both operands are in [0, 2^64), else math/big. They are
// apart from their callers so that the int32 path stays as it was.

func addBig(x, y Int) Int {
	if a, b, ok := both64(x, y); ok {
		lo, carry := bits.Add64(a, b, 0)
		return makeUint128(carry, lo)
	}
	if xNeg, xm, ok := x.mag64(); ok {
		if yNeg, ym, ok := y.mag64(); ok {
			return addMag(xNeg, xm, yNeg, ym)
		}
	}
	if xh, xl, yh, yl, ok := both128(x, y); ok {
		lo, c := bits.Add64(xl, yl, 0)
		hi, _ := bits.Add64(xh, yh, c)
		if (xh^hi)&(yh^hi)>>63 == 0 { // no signed overflow
			return from128(hi, lo)
		}
	}
	return MakeBigInt(new(big.Int).Add(x.bigInt(), y.bigInt()))
}

func subBig(x, y Int) Int {
	if a, b, ok := both64(x, y); ok {
		if a >= b {
			return makeUint128(0, a-b)
		}
		return makeMag(true, b-a)
	}
	if xNeg, xm, ok := x.mag64(); ok {
		if yNeg, ym, ok := y.mag64(); ok {
			return addMag(xNeg, xm, !yNeg, ym)
		}
	}
	if xh, xl, yh, yl, ok := both128(x, y); ok {
		lo, b := bits.Sub64(xl, yl, 0)
		hi, _ := bits.Sub64(xh, yh, b)
		if (xh^yh)&(xh^hi)>>63 == 0 { // no signed overflow
			return from128(hi, lo)
		}
	}
	return MakeBigInt(new(big.Int).Sub(x.bigInt(), y.bigInt()))
}

func mulBig(x, y Int) Int {
	if a, b, ok := both64(x, y); ok {
		return makeUint128(bits.Mul64(a, b))
	}
	if xNeg, xm, ok := x.mag64(); ok {
		if yNeg, ym, ok := y.mag64(); ok {
			hi, lo := bits.Mul64(xm, ym)
			return makeInt128(xNeg != yNeg, hi, lo)
		}
	}
	return MakeBigInt(new(big.Int).Mul(x.bigInt(), y.bigInt()))
}

func orBig(x, y Int) Int {
	if a, b, ok := both64(x, y); ok {
		return makeUint128(0, a|b)
	}
	if xh, xl, yh, yl, ok := both128(x, y); ok {
		return from128(xh|yh, xl|yl)
	}
	return MakeBigInt(new(big.Int).Or(x.bigInt(), y.bigInt()))
}

func andBig(x, y Int) Int {
	// One operand in [0, 2^64): so is the result, that operand's bits and
	// the low 64 bits of the other's two's complement (x & (2^64-1) after
	// a 64x64 product; bitsh fork: free & -free, full & ~mask).
	if a, ok := x.word(); ok {
		return makeUint128(0, a&y.low64())
	}
	if b, ok := y.word(); ok {
		return makeUint128(0, b&x.low64())
	}
	if xh, xl, yh, yl, ok := both128(x, y); ok {
		return from128(xh&yh, xl&yl)
	}
	return MakeBigInt(new(big.Int).And(x.bigInt(), y.bigInt()))
}

// both128 returns the 128-bit two's complements of x and y, each as a
// high and a low word, when both are in [-2^127, 2^127) (bitsh fork:
// words and wide ints without math/big).
func both128(x, y Int) (xh, xl, yh, yl uint64, ok bool) {
	if xh, xl, ok = x.int128(); !ok {
		return
	}
	yh, yl, ok = y.int128()
	return
}

// int128 returns i's 128-bit two's complement when i is in [-2^127, 2^127).
func (i Int) int128() (hi, lo uint64, ok bool) {
	if neg, m, ok := i.mag64(); ok {
		if neg { // m > 0
			return math.MaxUint64, -m, true
		}
		return 0, m, true
	}
	if hi, lo, ok := i.wide(); ok {
		return hi, lo, true
	}
	_, b := i.get() // not small, not a word, not a wide: a big.Int
	w := b.Bits()
	if bits.UintSize != 64 || len(w) != 2 {
		return 0, 0, false
	}
	hi, lo = uint64(w[1]), uint64(w[0])
	if b.Sign() > 0 {
		return hi, lo, hi < 1<<63
	}
	if hi > 1<<63 || hi == 1<<63 && lo != 0 {
		return 0, 0, false
	}
	return ^hi + b2u(lo == 0), -lo, true
}

// from128 returns the Int of a 128-bit two's complement.
func from128(hi, lo uint64) Int {
	switch {
	case hi == 0:
		return makeMag(false, lo)
	case hi == math.MaxUint64 && lo != 0:
		return makeMag(true, -lo)
	case int64(hi) >= 0:
		return makeBig128(false, hi, lo)
	}
	return makeBig128(true, ^hi+b2u(lo == 0), -lo)
}

// rsh128 returns the 128-bit two's complement (hi, lo) shifted right by
// n, arithmetically (the floor of a division by 2^n).
func rsh128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n >= 128:
		s := uint64(int64(hi) >> 63)
		return s, s
	case n >= 64:
		return uint64(int64(hi) >> 63), uint64(int64(hi) >> (n - 64))
	case n == 0:
		return hi, lo
	}
	return uint64(int64(hi) >> n), lo>>n | hi<<(64-n)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func xorBig(x, y Int) Int {
	if a, b, ok := both64(x, y); ok {
		return makeUint128(0, a^b)
	}
	if xh, xl, yh, yl, ok := both128(x, y); ok {
		return from128(xh^yh, xl^yl)
	}
	return MakeBigInt(new(big.Int).Xor(x.bigInt(), y.bigInt()))
}

func isSmall(x *big.Int) bool {
	n := x.BitLen()
	return n < 32 || n == 32 && x.Int64() == math.MinInt32
}

var (
	zero, one = makeSmallInt(0), makeSmallInt(1)
	oneBig    = big.NewInt(1)

	_ HasUnary = Int{}
)

// Unary implements the operations +int, -int, and ~int.
func (i Int) Unary(op syntax.Token) (Value, error) {
	switch op {
	case syntax.MINUS:
		return zero.Sub(i), nil
	case syntax.PLUS:
		return i, nil
	case syntax.TILDE:
		return i.Not(), nil
	}
	return nil, nil
}

// Int64 returns the value as an int64.
// If it is not exactly representable the result is undefined and ok is false.
func (i Int) Int64() (_ int64, ok bool) {
	if v, ok := i.small(); ok {
		return v, true
	}
	if v, neg, ok := i.tagged(); ok { // bitsh fork: words
		if neg {
			return -int64(v), true // v <= 2^56
		}
		if v <= math.MaxInt64 {
			return int64(v), true
		}
		return 0, false // inexact
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		x, acc := bigintToInt64(iBig)
		if acc != big.Exact {
			return // inexact
		}
		return x, true
	}
	return iSmall, true
}

// BigInt returns a new big.Int with the same value as the Int.
func (i Int) BigInt() *big.Int {
	if _, _, ok := i.tagged(); ok {
		_, iBig := i.get() // a new big.Int (bitsh fork)
		return iBig
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		return new(big.Int).Set(iBig)
	}
	return big.NewInt(iSmall)
}

// bigInt returns the value as a big.Int.
// It differs from BigInt in that this method returns the actual
// reference and any modification will change the state of i.
func (i Int) bigInt() *big.Int {
	iSmall, iBig := i.get()
	if iBig != nil {
		return iBig
	}
	return big.NewInt(iSmall)
}

// Uint64 returns the value as a uint64.
// If it is not exactly representable the result is undefined and ok is false.
func (i Int) Uint64() (_ uint64, ok bool) {
	if v, neg, ok := i.tagged(); ok { // bitsh fork: words
		if neg {
			return 0, false // inexact
		}
		return v, true
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		x, acc := bigintToUint64(iBig)
		if acc != big.Exact {
			return // inexact
		}
		return x, true
	}
	if iSmall < 0 {
		return // inexact
	}
	return uint64(iSmall), true
}

// The math/big API should provide this function.
func bigintToInt64(i *big.Int) (int64, big.Accuracy) {
	sign := i.Sign()
	if sign > 0 {
		if i.Cmp(maxint64) > 0 {
			return math.MaxInt64, big.Below
		}
	} else if sign < 0 {
		if i.Cmp(minint64) < 0 {
			return math.MinInt64, big.Above
		}
	}
	return i.Int64(), big.Exact
}

// The math/big API should provide this function.
func bigintToUint64(i *big.Int) (uint64, big.Accuracy) {
	sign := i.Sign()
	if sign > 0 {
		if i.BitLen() > 64 {
			return math.MaxUint64, big.Below
		}
	} else if sign < 0 {
		return 0, big.Above
	}
	return i.Uint64(), big.Exact
}

var (
	minint64 = new(big.Int).SetInt64(math.MinInt64)
	maxint64 = new(big.Int).SetInt64(math.MaxInt64)
)

func (i Int) Format(s fmt.State, ch rune) {
	iSmall, iBig := i.get()
	if iBig != nil {
		iBig.Format(s, ch)
		return
	}
	big.NewInt(iSmall).Format(s, ch)
}
func (i Int) String() string {
	if v, neg, ok := i.tagged(); ok { // bitsh fork: words
		if neg {
			return "-" + strconv.FormatUint(v, 10)
		}
		return strconv.FormatUint(v, 10)
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		return iBig.Text(10)
	}
	return strconv.FormatInt(iSmall, 10)
}
func (i Int) Type() string { return "int" }
func (i Int) Freeze()      {} // immutable
func (i Int) Truth() Bool {
	// bitsh fork: an int32 or a word without Sign's call (words are not 0).
	if v, ok := i.small(); ok {
		return v != 0
	}
	if _, _, ok := i.tagged(); ok {
		return true
	}
	return i.Sign() != 0
}
func (i Int) Hash() (uint32, error) {
	var lo big.Word
	if v, _, ok := i.tagged(); ok {
		// bitsh fork: a word's magnitude, as its big.Int's Bits()[0].
		return wordHash(uint64(v)), nil
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		lo = iBig.Bits()[0]
	} else {
		lo = big.Word(iSmall)
	}
	return wordHash(uint64(lo)), nil // bitsh fork: hashtable_fast.go
}

// Cmp implements comparison of two Int values.
// Required by the TotallyOrdered interface.
func (i Int) Cmp(v Value, depth int) (int, error) {
	j := v.(Int)
	if a, ok := i.small(); ok {
		if b, ok := j.small(); ok {
			return signum64(a - b), nil // safe: int32 operands
		}
	}
	// bitsh fork: magnitudes below 2^64 without math/big.
	if iNeg, a, ok := i.mag64(); ok {
		if jNeg, b, ok := j.mag64(); ok {
			switch {
			case iNeg != jNeg && (a != 0 || b != 0):
				if iNeg {
					return -1, nil
				}
				return 1, nil
			case iNeg:
				return cmp.Compare(b, a), nil
			}
			return cmp.Compare(a, b), nil
		}
	}
	if ih, il, jh, jl, ok := both128(i, j); ok {
		if ih != jh {
			return cmp.Compare(int64(ih), int64(jh)), nil
		}
		return cmp.Compare(il, jl), nil
	}
	return i.bigInt().Cmp(j.bigInt()), nil
}

// Float returns the float value nearest i.
func (i Int) Float() Float {
	if v, neg, ok := i.tagged(); ok { // bitsh fork: words
		if neg {
			return Float(-int64(v)) // v <= 2^56
		}
		return Float(v)
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		// Fast path for hardware int-to-float conversions.
		if iBig.IsUint64() {
			return Float(iBig.Uint64())
		} else if iBig.IsInt64() {
			return Float(iBig.Int64())
		} else {
			// Fast path for very big ints.
			const maxFiniteLen = 1023 + 1 // max exponent value + implicit mantissa bit
			if iBig.BitLen() > maxFiniteLen {
				return Float(math.Inf(iBig.Sign()))
			}
		}

		f, _ := new(big.Float).SetInt(iBig).Float64()
		return Float(f)
	}
	return Float(iSmall)
}

// finiteFloat returns the finite float value nearest i,
// or an error if the magnitude is too large.
func (i Int) finiteFloat() (Float, error) {
	f := i.Float()
	if math.IsInf(float64(f), 0) {
		return 0, fmt.Errorf("int too large to convert to float")
	}
	return f, nil
}

func (x Int) Sign() int {
	if v, ok := x.small(); ok {
		return signum64(v)
	}
	if _, neg, ok := x.tagged(); ok { // bitsh fork: words are not 0
		if neg {
			return -1
		}
		return 1
	}
	if hi, _, ok := x.wide(); ok { // nor wide ints
		return int(int64(hi)>>63) | 1
	}
	xSmall, xBig := x.get()
	if xBig != nil {
		return xBig.Sign()
	}
	return signum64(xSmall)
}

func (x Int) Add(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return MakeInt64(a + b)
		}
	}
	return addBig(x, y)
}
func (x Int) Sub(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return MakeInt64(a - b)
		}
	}
	return subBig(x, y)
}
func (x Int) Mul(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return MakeInt64(a * b)
		}
	}
	return mulBig(x, y)
}
func (x Int) Or(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return makeSmallInt(a | b)
		}
	}
	return orBig(x, y)
}
func (x Int) And(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return makeSmallInt(a & b)
		}
	}
	return andBig(x, y)
}
func (x Int) Xor(y Int) Int {
	if a, ok := x.small(); ok {
		if b, ok := y.small(); ok {
			return makeSmallInt(a ^ b)
		}
	}
	return xorBig(x, y)
}
func (x Int) Not() Int {
	if v, ok := x.small(); ok {
		return makeSmallInt(^v)
	}
	if neg, m, ok := x.mag64(); ok {
		// bitsh fork: ~m = -(m + 1), ~-m = m - 1, on words.
		if neg {
			return makeMag(false, m-1)
		}
		lo, carry := bits.Add64(m, 1, 0)
		return makeInt128(true, carry, lo)
	}
	if hi, lo, ok := x.int128(); ok {
		return from128(^hi, ^lo)
	}
	return MakeBigInt(new(big.Int).Not(x.bigInt()))
}
func (x Int) Lsh(y uint) Int {
	if v, ok := x.small(); ok && y < 32 {
		return MakeInt64(v << y) // |v| <= 2^31: no overflow
	}
	if neg, m, ok := x.mag64(); ok && y < 64 {
		return makeInt128(neg, m>>(64-y), m<<y) // m>>64 is 0 in Go
	}
	if hi, lo, ok := x.int128(); ok && y < 128 {
		// bitsh fork: a wide int shifted, where the result stays in
		// [-2^127, 2^127): shifting it back gives x.
		rhi, rlo := hi<<y|lo>>(64-y), lo<<y // lo>>64 is 0 in Go
		if y >= 64 {
			rhi, rlo = lo<<(y-64), 0
		}
		if h, l := rsh128(rhi, rlo, y); h == hi && l == lo {
			return from128(rhi, rlo)
		}
	}
	return MakeBigInt(new(big.Int).Lsh(x.bigInt(), y))
}
func (x Int) Rsh(y uint) Int {
	if v, ok := x.small(); ok {
		return makeSmallInt(v >> min(y, 63)) // arithmetic shift floors, as big.Int.Rsh
	}
	if neg, m, ok := x.mag64(); ok {
		if !neg {
			return makeUint128(0, m>>y) // m>>y is 0 for y >= 64 in Go
		}
		// bitsh fork: -m >> y = floor(-m / 2^y) = -ceil(m / 2^y).
		if y >= 64 {
			return makeSmallInt(-1) // m > 0
		}
		q := m >> y
		if m&(1<<y-1) != 0 {
			q++ // no overflow: y > 0 here
		}
		return makeMag(true, q)
	}
	if hi, lo, ok := x.int128(); ok {
		return from128(rsh128(hi, lo, y))
	}
	return MakeBigInt(new(big.Int).Rsh(x.bigInt(), y))
}

// Precondition: y is nonzero.
func (x Int) Div(y Int) Int {
	xSmall, xOK := x.small()
	ySmall, yOK := y.small()
	if !xOK || !yOK {
		if xNeg, xm, ok := x.mag64(); ok {
			if yNeg, ym, ok := y.mag64(); ok {
				// bitsh fork: on words, floored.
				q := xm / ym
				if xNeg != yNeg && xm%ym != 0 {
					q++ // no overflow: ym > 1 here
				}
				return makeMag(xNeg != yNeg, q)
			}
		}
	}
	// http://python-history.blogspot.com/2010/08/why-pythons-integer-division-floors.html
	if !xOK || !yOK {
		xb, yb := x.bigInt(), y.bigInt()

		var quo, rem big.Int
		quo.QuoRem(xb, yb, &rem)
		if (xb.Sign() < 0) != (yb.Sign() < 0) && rem.Sign() != 0 {
			quo.Sub(&quo, oneBig)
		}
		return MakeBigInt(&quo)
	}
	quo := xSmall / ySmall
	rem := xSmall % ySmall
	if (xSmall < 0) != (ySmall < 0) && rem != 0 {
		quo -= 1
	}
	return MakeInt64(quo)
}

// Precondition: y is nonzero.
func (x Int) Mod(y Int) Int {
	xSmall, xOK := x.small()
	ySmall, yOK := y.small()
	if !xOK || !yOK {
		if xNeg, xm, ok := x.mag64(); ok {
			if yNeg, ym, ok := y.mag64(); ok {
				// bitsh fork: on words; the result has y's sign.
				r := xm % ym
				if r != 0 && xNeg != yNeg {
					r = ym - r
				}
				return makeMag(yNeg, r)
			}
		}
	}
	if !xOK || !yOK {
		xb, yb := x.bigInt(), y.bigInt()

		var quo, rem big.Int
		quo.QuoRem(xb, yb, &rem)
		if (xb.Sign() < 0) != (yb.Sign() < 0) && rem.Sign() != 0 {
			rem.Add(&rem, yb)
		}
		return MakeBigInt(&rem)
	}
	rem := xSmall % ySmall
	if (xSmall < 0) != (ySmall < 0) && rem != 0 {
		rem += ySmall
	}
	return makeSmallInt(rem)
}

func (i Int) rational() *big.Rat {
	iSmall, iBig := i.get()
	if iBig != nil {
		return new(big.Rat).SetInt(iBig)
	}
	return new(big.Rat).SetInt64(iSmall)
}

// AsInt32 returns the value of x if is representable as an int32.
func AsInt32(x Value) (int, error) {
	i, ok := x.(Int)
	if !ok {
		return 0, fmt.Errorf("got %s, want int", x.Type())
	}
	iSmall, iBig := i.get()
	if iBig != nil {
		return 0, fmt.Errorf("%s out of range", i)
	}
	return int(iSmall), nil
}

// AsInt sets *ptr to the value of Starlark int x, if it is exactly representable,
// otherwise it returns an error.
// The type of ptr must be one of the pointer types *int, *int8, *int16, *int32, or *int64,
// or one of their unsigned counterparts including *uintptr.
func AsInt(x Value, ptr any) error {
	xint, ok := x.(Int)
	if !ok {
		return fmt.Errorf("got %s, want int", x.Type())
	}

	ptrt := reflect.TypeOf(ptr)
	bits := ptrt.Elem().Size() * 8
	switch ptr.(type) {
	case *int, *int8, *int16, *int32, *int64:
		i, ok := xint.Int64()
		if !ok || bits < 64 && !(-1<<(bits-1) <= i && i < 1<<(bits-1)) {
			return fmt.Errorf("%s out of range (want value in signed %d-bit range)", xint, bits)
		}
		switch ptr := ptr.(type) {
		case *int:
			*ptr = int(i)
		case *int8:
			*ptr = int8(i)
		case *int16:
			*ptr = int16(i)
		case *int32:
			*ptr = int32(i)
		case *int64:
			*ptr = int64(i)
		}

	case *uint, *uint8, *uint16, *uint32, *uint64, *uintptr:
		i, ok := xint.Uint64()
		if !ok || bits < 64 && i >= 1<<bits {
			return fmt.Errorf("%s out of range (want value in unsigned %d-bit range)", xint, bits)
		}
		switch ptr := ptr.(type) {
		case *uint:
			*ptr = uint(i)
		case *uint8:
			*ptr = uint8(i)
		case *uint16:
			*ptr = uint16(i)
		case *uint32:
			*ptr = uint32(i)
		case *uint64:
			*ptr = uint64(i)
		case *uintptr:
			*ptr = uintptr(i)
		}
	default:
		// Avoid %T, as it would cause *ptr to escape.
		panic(fmt.Sprintf("invalid argument type: %s", ptrt))
	}
	return nil
}

// NumberToInt converts a number x to an integer value.
// An int is returned unchanged, a float is truncated towards zero.
// NumberToInt reports an error for all other values.
func NumberToInt(x Value) (Int, error) {
	switch x := x.(type) {
	case Int:
		return x, nil
	case Float:
		f := float64(x)
		if math.IsInf(f, 0) {
			return zero, fmt.Errorf("cannot convert float infinity to integer")
		} else if math.IsNaN(f) {
			return zero, fmt.Errorf("cannot convert float NaN to integer")
		}
		return finiteFloatToInt(x), nil

	}
	return zero, fmt.Errorf("cannot convert %s to int", x.Type())
}

// finiteFloatToInt converts f to an Int, truncating towards zero.
// f must be finite.
func finiteFloatToInt(f Float) Int {
	// We avoid '<= MaxInt64' so that both constants are exactly representable as floats.
	// See https://github.com/google/starlark-go/issues/375.
	if math.MinInt64 <= f && f < math.MaxInt64+1 {
		// small values
		return MakeInt64(int64(f))
	}
	rat := f.rational()
	if rat == nil {
		panic(f) // non-finite
	}
	return MakeBigInt(new(big.Int).Div(rat.Num(), rat.Denom()))
}
