//go:build (linux || darwin || dragonfly || freebsd || netbsd || solaris) && (amd64 || arm64 || mips64x || ppc64 || ppc64le || loong64 || s390x)

package starlark

// This file defines an optimized Int implementation for 64-bit machines
// running POSIX. It reserves a 4GB portion of the address space using
// mmap and represents int32 values as addresses within that range. This
// disambiguates int32 values from *big.Int pointers, letting all Int
// values be represented as an unsafe.Pointer, so that Int-to-Value
// interface conversion need not allocate.

// Although iOS (which, like macOS, appears as darwin/arm64) is
// POSIX-compliant, it limits each process to about 700MB of virtual
// address space, which defeats the optimization.  Similarly,
// OpenBSD's default ulimit for virtual memory is a measly GB or so.
// On both those platforms the attempted optimization will fail and
// fall back to the slow implementation.

// An alternative approach to this optimization would be to embed the
// int32 values in pointers using odd values, which can be distinguished
// from (even) *big.Int pointers. However, the Go runtime does not allow
// user programs to manufacture pointers to arbitrary locations such as
// within the zero page, or non-span, non-mmap, non-stack locations,
// and it may panic if it encounters them; see Issue #382.

import (
	"log"
	"math"
	"math/big"
	"math/bits"
	"unsafe"

	"golang.org/x/sys/unix"
)

// intImpl represents a union of (int32, *big.Int) in a single pointer,
// so that Int-to-Value conversions need not allocate.
//
// The pointer is either a *big.Int, if the value is big, or a pointer into a
// reserved portion of the address space (smallints), if the value is small
// and the address space allocation succeeded.
//
// See int_generic.go for the basic representation concepts.
type intImpl unsafe.Pointer

// get returns the (small, big) arms of the union. A word (see tagged)
// has no big.Int: get makes one, so the paths that matter read words with
// small, word and tagged instead (bitsh fork).
func (i Int) get() (int64, *big.Int) {
	if smallints == 0 {
		// optimization disabled
		if uintptr(i.impl) >= wordMin {
			return 0, i.wordBig()
		}
		if uintptr(i.impl)&8 != 0 && wideOK {
			return 0, i.wideBig()
		}
		if x := (*big.Int)(i.impl); isSmall(x) {
			return x.Int64(), nil
		} else {
			return 0, x
		}
	}

	if ptr := uintptr(i.impl); ptr >= smallints && ptr < smallints+1<<32 {
		return math.MinInt32 + int64(ptr-smallints), nil
	}
	if uintptr(i.impl) >= wordMin {
		return 0, i.wordBig()
	}
	if uintptr(i.impl)&8 != 0 && wideOK {
		return 0, i.wideBig()
	}
	return 0, (*big.Int)(i.impl)
}

// Precondition: math.MinInt32 <= x && x <= math.MaxInt32
func makeSmallInt(x int64) Int {
	if smallints == 0 {
		// optimization disabled
		return Int{intImpl(big.NewInt(x))}
	}

	return Int{intImpl(uintptr(x-math.MinInt32) + smallints)}
}

// Precondition: x cannot be represented as int32.
func makeBigInt(x *big.Int) Int { return Int{intImpl(x)} }

// smallints is the base address of a 2^32 byte memory region.
// Pointers to addresses in this region represent int32 values.
// We assume smallints is not at the very top of the address space.
//
// Zero means the optimization is disabled and all Ints allocate a big.Int.
var smallints = reserveAddresses(1 << 32)

func reserveAddresses(len int) uintptr {
	b, err := unix.Mmap(-1, 0, len, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		log.Printf("Starlark failed to allocate 4GB address space: %v. Integer performance may suffer.", err)
		return 0 // optimization disabled
	}
	if p := uintptr(unsafe.Pointer(&b[0])); p+uintptr(len) <= wordMin {
		return p
	}
	// bitsh fork: never seen (user space ends below 2^57), but the
	// addresses at and above wordMin are words (see tagged).
	unix.Munmap(b)
	log.Printf("Starlark failed to allocate 4GB address space below 2^56. Integer performance may suffer.")
	return 0
}

// small returns i's value and true if i is small (in int32 range); it is
// get's first case alone, cheap enough to be inlined (bitsh fork:
// interp_fast.go).
func (i Int) small() (int64, bool) {
	d := uintptr(i.impl) - smallints
	return math.MinInt32 + int64(d), d < 1<<32 && smallints != 0
}

// smallPair returns the values of x and y when both are ints in int32
// range; the interpreter then computes arithmetic and comparisons inline
// (bitsh fork: interp_fast.go). The zero Int of a failed assertion is not
// small.
func smallPair(x, y Value) (int64, int64, bool) {
	xi, ok1 := x.(Int)
	yi, ok2 := y.(Int)
	d1 := uintptr(xi.impl) - smallints
	d2 := uintptr(yi.impl) - smallints
	return math.MinInt32 + int64(d1), math.MinInt32 + int64(d2), ok1 && ok2 && (d1|d2) < 1<<32 && smallints != 0
}

// word returns i's value when it is in [0, 2^64), without the calls of
// get and big.Int's methods (bitsh fork: interp_fast.go). The build tags
// of this file are 64-bit targets: a big.Word is 64 bits. Its first two
// cases, words and int32 values, are wordFast, which Go inlines.
func (i Int) word() (uint64, bool) {
	p := uintptr(i.impl)
	if p >= wordMin {
		v := uint64(p) ^ wordKey
		return v, v>>56 != negTop
	}
	if d := p - smallints; d < 1<<32 && smallints != 0 {
		v := math.MinInt32 + int64(d)
		return uint64(v), v >= 0
	}
	return i.wordSlow()
}

// wordFast is word for words and int32 values, small enough for Go to
// inline (word, with its call of wordSlow, is not): false for any other
// Int, which word then reads (bitsh fork: the hot callers try wordFast
// first).
func (i Int) wordFast() (uint64, bool) {
	p := uintptr(i.impl)
	if p >= wordMin {
		v := uint64(p) ^ wordKey
		return v, v>>56 != negTop
	}
	d := p - smallints
	v := math.MinInt32 + int64(d)
	return uint64(v), d < 1<<32 && smallints != 0 && v >= 0
}

// wordSlow is word for wide ints, big.Ints and all Ints when the smallints
// region is missing.
func (i Int) wordSlow() (uint64, bool) {
	if hi, lo, ok := i.wide(); ok {
		return lo, hi == 0
	}
	if smallints == 0 {
		return u64(i.get())
	}
	b := (*big.Int)(i.impl)
	if b.Sign() < 0 {
		return 0, false
	}
	if w := b.Bits(); len(w) == 1 {
		return uint64(w[0]), true
	}
	return 0, false // not small, so not 0: more than 64 bits
}

// --- words: ints beyond int32 without a heap object (bitsh fork) ---
//
// An Int in [2^31, 2^64), or in [-2^56, -2^31), is kept in the pointer
// itself, at an address no memory can have: one whose top byte is neither
// 0x00 nor 0xFF. On every 64-bit machine Go runs on, user and kernel
// addresses (48-bit, and 57-bit with five-level paging) have the top 8
// bits all equal; the Go heap is below 2^48 (its arena index of such an
// address is out of range), so the collector, the write barrier and
// checkptr see a pointer to no Go object and ignore it, as they ignore the
// addresses of the smallints region. Nothing ever dereferences it.
//
// A word v in [2^31, 2^64) is the address v ^ wordKey: its top byte is
// v's top byte xor wordTop. The two top bytes of v that would make the
// address's top byte 0x00 or 0xFF (wordTop and ^wordTop) are not words,
// nor is the top byte negTop, whose addresses hold the negative words:
// -m for m in (2^31, 2^56] is the address uint64(-m) ^ negKey, whose top
// byte is negTop ^ wordTop. Those values, ints of other sizes and the one
// address the runtime rejects (clobberdeadPtr, which the compiler writes
// into dead slots in debugging builds and the collector crashes on), are
// *big.Int as before. Each value has one representation: makeWord and
// makeNegWord decide it.
const (
	wordTop  = 0x5A                            // a word's top byte ^ its address's
	negTop   = 0x69                            // the top byte of no word: negatives' addresses
	wordKey  = wordTop << 56                   // a word v is at v ^ wordKey
	negKey   = (0xFF ^ negTop ^ wordTop) << 56 // a negative word n at uint64(n) ^ negKey
	wordMin  = 1 << 56                         // every word's address is at or above
	badWord  = 0xdeaddeaddeaddead ^ wordKey    // the word at the runtime's clobberdeadPtr
	maxNegWd = 1 << 56                         // the largest magnitude of a negative word
)

// tagged returns i's value when i is a word: v, or -v if neg.
func (i Int) tagged() (v uint64, neg, ok bool) {
	p := uint64(uintptr(i.impl))
	if p < wordMin {
		return 0, false, false
	}
	v = p ^ wordKey
	if v>>56 != negTop {
		return v, false, true
	}
	return -(p ^ negKey), true, true
}

// wordBig returns a new big.Int of the word i's value.
func (i Int) wordBig() *big.Int {
	v, neg, _ := i.tagged()
	return newBig128(neg, 0, v)
}

// makeWord returns the Int v, for v > MaxInt32.
func makeWord(v uint64) Int {
	if t := v >> 56; t != wordTop && t != wordTop^0xFF && t != negTop && v != badWord {
		return Int{intImpl(uintptr(v ^ wordKey))}
	}
	return makeBig128(false, 0, v)
}

// wordInt returns makeWord(v), for v > MaxInt32, where v is a word, and
// false otherwise: makeWord without its call of makeBig128, which Go
// inlines (bitsh fork: intBinary).
func wordInt(v uint64) (Int, bool) {
	if t := v >> 56; t != wordTop && t != wordTop^0xFF && t != negTop && v != badWord {
		return Int{intImpl(uintptr(v ^ wordKey))}, true
	}
	return Int{}, false
}

// makeNegWord returns the Int -m, for m > 2^31.
func makeNegWord(m uint64) Int {
	if m <= maxNegWd {
		return Int{intImpl(uintptr(-m ^ negKey))}
	}
	return makeBig128(true, 0, m)
}

// --- wide ints: up to 128 bits without pointers (bitsh fork) ---
//
// An Int beyond the words whose value fits in 128-bit two's complement
// ([-2^127, 2^127): the product of two words, a word shifted left, the
// negative of a word) is a wide: a 16-byte object without pointers, its
// low word then its high word, and the Int points at the high word. The
// collector need not scan it, and the allocator takes it from a pointer-
// free span, without heap bits; a big.Int of the same value is a 48-byte
// object with a pointer. Go's size classes from 16 bytes up are multiples
// of 16 in page-aligned spans, so a 16-byte object starts at a multiple of
// 16 and the Int's pointer is 8 more, while every *big.Int an Int holds is
// the start of a 32-byte (big.Int) or 48-byte (big128) object: the
// pointer's bit 3 tells them apart. wideOK checks that at start-up (and
// makeBig128 each wide's own address); if it is false, no Int is a wide.

// wide is a wide Int's object: its value's low and high words.
type wide [2]uint64

// wideOK reports whether the objects of big.Int, big128 and wide start at
// multiples of 16 (see above).
var wideOK = func() bool {
	alignProbe = []unsafe.Pointer{unsafe.Pointer(new(big.Int)), unsafe.Pointer(new(big128)), unsafe.Pointer(new(wide))}
	ok := true
	for _, p := range alignProbe {
		ok = ok && uintptr(p)&15 == 0
	}
	alignProbe = nil
	return ok
}()

// alignProbe makes wideOK's objects heap objects.
var alignProbe []unsafe.Pointer

// wide returns i's value when i is a wide: its two's complement, high
// and low words.
func (i Int) wide() (hi, lo uint64, ok bool) {
	if uintptr(i.impl)&8 == 0 || !wideOK || uintptr(i.impl) >= wordMin {
		return 0, 0, false
	}
	if d := uintptr(i.impl) - smallints; d < 1<<32 && smallints != 0 {
		return 0, 0, false
	}
	w := (*wide)(unsafe.Add(unsafe.Pointer(i.impl), -8))
	return w[1], w[0], true
}

// wideBig returns a new big.Int of the wide i's value.
func (i Int) wideBig() *big.Int {
	hi, lo, _ := i.wide()
	if int64(hi) >= 0 {
		return newBig128(false, hi, lo)
	}
	return newBig128(true, ^hi+b2u(lo == 0), -lo)
}

// makeBig128 returns the Int ±(hi*2^64 + lo), which is neither small nor
// a word: a wide if it fits, else a big.Int.
func makeBig128(neg bool, hi, lo uint64) Int {
	if hi < 1<<63 && wideOK {
		if neg {
			hi, lo = ^hi+b2u(lo == 0), -lo
		}
		w := &wide{lo, hi}
		if p := unsafe.Pointer(&w[1]); uintptr(p)&15 == 8 {
			return Int{intImpl(p)}
		}
		if neg { // never seen: see wideOK
			hi, lo = ^hi+b2u(lo == 0), -lo
		}
	}
	return makeBigInt(newBig128(neg, hi, lo))
}

// bigBitLen returns the length in bits of the magnitude of i, and true,
// when i is not small, without making a big.Int of a word or a wide
// (bitsh fork: alloc.go's size estimate).
func (i Int) bigBitLen() (int, bool) {
	if _, ok := i.small(); ok {
		return 0, false
	}
	if v, _, ok := i.tagged(); ok {
		return bits.Len64(v), true
	}
	if hi, lo, ok := i.wide(); ok {
		if int64(hi) < 0 {
			hi, lo = ^hi+b2u(lo == 0), -lo
		}
		if hi != 0 {
			return 64 + bits.Len64(hi), true
		}
		return bits.Len64(lo), true
	}
	_, b := i.get()
	if b == nil {
		return 0, false // small, without the smallints region
	}
	return b.BitLen(), true
}
