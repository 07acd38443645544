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

// get returns the (small, big) arms of the union.
func (i Int) get() (int64, *big.Int) {
	if smallints == 0 {
		// optimization disabled
		if x := (*big.Int)(i.impl); isSmall(x) {
			return x.Int64(), nil
		} else {
			return 0, x
		}
	}

	if ptr := uintptr(i.impl); ptr >= smallints && ptr < smallints+1<<32 {
		return math.MinInt32 + int64(ptr-smallints), nil
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
	return uintptr(unsafe.Pointer(&b[0]))
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
// of this file are 64-bit targets: a big.Word is 64 bits.
func (i Int) word() (uint64, bool) {
	if smallints == 0 {
		return u64(i.get())
	}
	if d := uintptr(i.impl) - smallints; d < 1<<32 {
		v := math.MinInt32 + int64(d)
		return uint64(v), v >= 0
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
