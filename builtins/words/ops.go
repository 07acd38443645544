// Package words holds the kernels of bitsh's word arrays (docs/words.md): the
// elementwise operators, comparisons and reductions over []uint64, sorting
// and counting, the seeded generator behind random_words, the fills that
// turn subsets into arrays, and multiply-shift hashing (HashOK, FindMagic).
// Every function works on plain slices; results go to a dst the caller
// allocates, so that an operation on n words costs one n-word result.
package words

import (
	"fmt"
	"math/bits"
)

// An Op is an elementwise binary operator. Arithmetic wraps mod 2^64; a
// shift by 64 or more gives 0; Div and Mod need non-zero divisors.
type Op int

// The operators, in the order of their Starlark tokens.
const (
	Add Op = iota // a + b
	Sub           // a - b
	Mul           // a * b
	And           // a & b
	Or            // a | b
	Xor           // a ^ b
	Shl           // a << b
	Shr           // a >> b
	Div           // a // b
	Mod           // a % b
	numOps
)

var opNames = [...]string{"+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%"}

// String returns the operator as Starlark writes it.
func (op Op) String() string {
	if op < 0 || op >= numOps {
		return fmt.Sprintf("Op(%d)", int(op))
	}
	return opNames[op]
}

// Scalar applies op to two words; ok is false for a division by zero.
// It is the reference the array loops follow.
func Scalar(op Op, a, b uint64) (r uint64, ok bool) {
	switch op {
	case Add:
		return a + b, true
	case Sub:
		return a - b, true
	case Mul:
		return a * b, true
	case And:
		return a & b, true
	case Or:
		return a | b, true
	case Xor:
		return a ^ b, true
	case Shl:
		return a << b, true // Go gives 0 for b >= 64, as the contract wants
	case Shr:
		return a >> b, true
	case Div:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case Mod:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	}
	panic("words: unknown op " + op.String())
}

// Apply sets dst[i] = a[i] op b[i]. The three slices must have the same
// length (dst may alias a or b). It returns -1, or for Div and Mod the
// first position where b is zero, leaving dst partly written.
func Apply(op Op, dst, a, b []uint64) int {
	n := len(dst)
	if len(a) != n || len(b) != n {
		panic("words: Apply: lengths differ")
	}
	a, b = a[:n], b[:n]
	switch op {
	case Add:
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
	case Sub:
		for i := range dst {
			dst[i] = a[i] - b[i]
		}
	case Mul:
		for i := range dst {
			dst[i] = a[i] * b[i]
		}
	case And:
		for i := range dst {
			dst[i] = a[i] & b[i]
		}
	case Or:
		for i := range dst {
			dst[i] = a[i] | b[i]
		}
	case Xor:
		for i := range dst {
			dst[i] = a[i] ^ b[i]
		}
	case Shl:
		for i := range dst {
			dst[i] = a[i] << b[i]
		}
	case Shr:
		for i := range dst {
			dst[i] = a[i] >> b[i]
		}
	case Div:
		for i := range dst {
			if b[i] == 0 {
				return i
			}
			dst[i] = a[i] / b[i]
		}
	case Mod:
		for i := range dst {
			if b[i] == 0 {
				return i
			}
			dst[i] = a[i] % b[i]
		}
	default:
		panic("words: unknown op " + op.String())
	}
	return -1
}

// ApplyRight sets dst[i] = a[i] op b, with len(dst) == len(a). It returns
// false for Div and Mod by zero, writing nothing.
func ApplyRight(op Op, dst, a []uint64, b uint64) bool {
	if len(a) != len(dst) {
		panic("words: ApplyRight: lengths differ")
	}
	a = a[:len(dst)]
	switch op {
	case Add:
		for i := range dst {
			dst[i] = a[i] + b
		}
	case Sub:
		for i := range dst {
			dst[i] = a[i] - b
		}
	case Mul:
		for i := range dst {
			dst[i] = a[i] * b
		}
	case And:
		for i := range dst {
			dst[i] = a[i] & b
		}
	case Or:
		for i := range dst {
			dst[i] = a[i] | b
		}
	case Xor:
		for i := range dst {
			dst[i] = a[i] ^ b
		}
	case Shl:
		if b >= 64 {
			clear(dst)
			break
		}
		for i := range dst {
			dst[i] = a[i] << (b & 63)
		}
	case Shr:
		if b >= 64 {
			clear(dst)
			break
		}
		for i := range dst {
			dst[i] = a[i] >> (b & 63)
		}
	case Div, Mod:
		if b == 0 {
			return false
		}
		divideBy(op == Mod, dst, a, b)
	default:
		panic("words: unknown op " + op.String())
	}
	return true
}

// ApplyLeft sets dst[i] = a op b[i], with len(dst) == len(b). It returns
// -1, or for Div and Mod the first position where b is zero.
func ApplyLeft(op Op, dst []uint64, a uint64, b []uint64) int {
	if len(b) != len(dst) {
		panic("words: ApplyLeft: lengths differ")
	}
	b = b[:len(dst)]
	switch op {
	case Add, Mul, And, Or, Xor:
		ApplyRight(op, dst, b, a) // commutative
	case Sub:
		for i := range dst {
			dst[i] = a - b[i]
		}
	case Shl:
		for i := range dst {
			dst[i] = a << b[i]
		}
	case Shr:
		for i := range dst {
			dst[i] = a >> b[i]
		}
	case Div:
		for i := range dst {
			if b[i] == 0 {
				return i
			}
			dst[i] = a / b[i]
		}
	case Mod:
		for i := range dst {
			if b[i] == 0 {
				return i
			}
			dst[i] = a % b[i]
		}
	default:
		panic("words: unknown op " + op.String())
	}
	return -1
}

// divideBy sets dst[i] = a[i] / d (or a[i] % d when mod) for d != 0. A
// hardware divide costs 20 to 40 cycles; one divisor for the whole array
// pays for precomputing its reciprocal, after which a quotient is a
// multiply-high, a subtract, an add and two shifts (Granlund and
// Montgomery, "Division by invariant integers using multiplication",
// PLDI 1994, figure 4.1).
func divideBy(mod bool, dst, a []uint64, d uint64) {
	a = a[:len(dst)]
	if d&(d-1) == 0 { // a power of two, 1 included
		s := uint(bits.TrailingZeros64(d))
		if mod {
			for i := range dst {
				dst[i] = a[i] & (d - 1)
			}
		} else {
			for i := range dst {
				dst[i] = a[i] >> s
			}
		}
		return
	}
	m, s := reciprocal(d)
	for i := range dst {
		x := a[i]
		t, _ := bits.Mul64(m, x)
		q := (t + (x-t)>>1) >> s
		if mod {
			q = x - q*d
		}
		dst[i] = q
	}
}

// reciprocal returns m and s with x / d == (t + (x - t) >> 1) >> s for
// every word x, t = (m * x) >> 64, for d >= 3 not a power of two:
// l = ceil(log2 d), m = floor(2^64 (2^l - d) / d) + 1, s = l - 1.
func reciprocal(d uint64) (m uint64, s uint) {
	l := uint(64 - bits.LeadingZeros64(d-1))
	hi := uint64(1)<<l - d // 2^64 - d when l == 64 (Go's shift gives 0); below d
	q, _ := bits.Div64(hi, 0, d)
	return q + 1, l - 1
}

// A Cmp is an elementwise comparison.
type Cmp int

// The comparisons of the .eq .ne .lt .le .gt .ge methods.
const (
	Eq Cmp = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Compare sets dst[i] = 1 where a[i] cmp b[i] holds, else 0; the slices
// have the same length.
func Compare(c Cmp, dst, a, b []uint64) {
	n := len(dst)
	if len(a) != n || len(b) != n {
		panic("words: Compare: lengths differ")
	}
	a, b = a[:n], b[:n]
	switch c {
	case Eq:
		for i := range dst {
			dst[i] = b2u(a[i] == b[i])
		}
	case Ne:
		for i := range dst {
			dst[i] = b2u(a[i] != b[i])
		}
	case Lt:
		for i := range dst {
			dst[i] = b2u(a[i] < b[i])
		}
	case Le:
		for i := range dst {
			dst[i] = b2u(a[i] <= b[i])
		}
	case Gt:
		for i := range dst {
			dst[i] = b2u(a[i] > b[i])
		}
	case Ge:
		for i := range dst {
			dst[i] = b2u(a[i] >= b[i])
		}
	default:
		panic("words: unknown comparison")
	}
}

// CompareWord sets dst[i] = 1 where a[i] cmp b holds, else 0.
func CompareWord(c Cmp, dst, a []uint64, b uint64) {
	if len(a) != len(dst) {
		panic("words: CompareWord: lengths differ")
	}
	a = a[:len(dst)]
	switch c {
	case Eq:
		for i := range dst {
			dst[i] = b2u(a[i] == b)
		}
	case Ne:
		for i := range dst {
			dst[i] = b2u(a[i] != b)
		}
	case Lt:
		for i := range dst {
			dst[i] = b2u(a[i] < b)
		}
	case Le:
		for i := range dst {
			dst[i] = b2u(a[i] <= b)
		}
	case Gt:
		for i := range dst {
			dst[i] = b2u(a[i] > b)
		}
	case Ge:
		for i := range dst {
			dst[i] = b2u(a[i] >= b)
		}
	default:
		panic("words: unknown comparison")
	}
}

// Not sets dst[i] = ^a[i].
func Not(dst, a []uint64) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = ^a[i]
	}
}

// Neg sets dst[i] = -a[i] mod 2^64.
func Neg(dst, a []uint64) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = -a[i]
	}
}
