//go:build (!linux && !darwin && !dragonfly && !freebsd && !netbsd && !solaris) || (!amd64 && !arm64 && !mips64x && !ppc64 && !ppc64le && !loong64 && !s390x)

package starlark

// generic Int implementation as a union

import "math/big"

type intImpl struct {
	// We use only the signed 32-bit range of small to ensure
	// that small+small and small*small do not overflow.
	small_ int64    // minint32 <= small <= maxint32
	big_   *big.Int // big != nil <=> value is not representable as int32
}

// --- low-level accessors ---

// get returns the small and big components of the Int.
// small is defined only if big is nil.
// small is sign-extended to 64 bits for ease of subsequent arithmetic.
func (i Int) get() (small int64, big *big.Int) {
	return i.impl.small_, i.impl.big_
}

// Precondition: math.MinInt32 <= x && x <= math.MaxInt32
func makeSmallInt(x int64) Int {
	return Int{intImpl{small_: x}}
}

// Precondition: x cannot be represented as int32.
func makeBigInt(x *big.Int) Int {
	return Int{intImpl{big_: x}}
}

// small returns i's value and true if i is small (in int32 range)
// (bitsh fork: interp_fast.go).
func (i Int) small() (int64, bool) {
	return i.impl.small_, i.impl.big_ == nil
}

// smallPair returns the values of x and y when both are ints in int32
// range; the interpreter then computes arithmetic and comparisons inline
// (bitsh fork: interp_fast.go).
func smallPair(x, y Value) (int64, int64, bool) {
	xi, ok1 := x.(Int)
	yi, ok2 := y.(Int)
	return xi.impl.small_, yi.impl.small_, ok1 && ok2 && xi.impl.big_ == nil && yi.impl.big_ == nil
}

// word returns i's value when it is in [0, 2^64) (bitsh fork:
// interp_fast.go).
func (i Int) word() (uint64, bool) { return u64(i.get()) }

// wordInt is makeWord's inlined part in int_posix64.go: here no int is a
// word (bitsh fork).
func wordInt(v uint64) (Int, bool) { return Int{}, false }

// wordFast is word (bitsh fork: int_posix64.go's is its inlined part).
func (i Int) wordFast() (uint64, bool) { return i.word() }

// On these machines no int beyond int32 lives in the pointer (bitsh
// fork: int_posix64.go has the words): tagged is never true, and makeWord
// makeNegWord and makeBig128 make big.Ints.

// wide returns i's value when i is a wide int: never here.
func (i Int) wide() (hi, lo uint64, ok bool) { return 0, 0, false }

// makeBig128 returns the Int ±(hi*2^64 + lo), which is not small.
func makeBig128(neg bool, hi, lo uint64) Int { return makeBigInt(newBig128(neg, hi, lo)) }

// tagged returns i's value when i is a word: never here.
func (i Int) tagged() (v uint64, neg, ok bool) { return 0, false, false }

// makeWord returns the Int v, for v > MaxInt32.
func makeWord(v uint64) Int { return makeBigInt(newBig128(false, 0, v)) }

// makeNegWord returns the Int -m, for m > 2^31.
func makeNegWord(m uint64) Int { return makeBigInt(newBig128(true, 0, m)) }

// bigBitLen returns the length in bits of the magnitude of i, and true,
// when i is not small (bitsh fork: alloc.go's size estimate).
func (i Int) bigBitLen() (int, bool) {
	_, b := i.get()
	if b == nil {
		return 0, false
	}
	return b.BitLen(), true
}
