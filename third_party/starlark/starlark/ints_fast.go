package starlark

// bitsh fork: products and shifts of words carried on 128 bits through the
// operators after them (compile.FusedWideOp; README.bitsh.md).

import (
	"math"
	"math/bits"

	"go.starlark.net/internal/compile"
)

// wideOp computes FusedWideOp: x * y or x << y (the operands at
// space[sp-2:sp]), then + z or >> z (z the global, constant or local the
// entry w names), where x, y and z are ints in [0, 2^64), y < 64 for a
// shift and z < 128 for a shift; then, on the same
// 128 bits, each >> or & of a constant in [0, 2^64) (a shift below 128)
// that the instructions from code[0] on apply to the result at once
// (FusedConstBinop entries: `(A * x + B) >> 32 & 0xFFFFFFFF`). It returns
// the result, made once, and the length of the instructions it ran after
// the fused ones; nil where an operand is not such an int, and the
// instructions run as written. Every result is the exact one: the 128
// bits hold each value on the way.
func wideOp(m *Module, space []Value, w uint64, sp int, code []uint64) (Value, uint32) {
	var zv Value
	switch w >> 24 & 3 {
	case 0:
		zv = m.globals[w>>32]
	case 1:
		zv = m.constants[w>>32]
	default:
		zv = space[w>>32]
	}
	zi, ok := zv.(Int)
	if !ok {
		return nil, 0
	}
	xi, ok := space[sp-2].(Int)
	if !ok {
		return nil, 0
	}
	yi, ok := space[sp-1].(Int)
	if !ok {
		return nil, 0
	}
	a, ok := xi.wordFast()
	b, ok2 := yi.wordFast()
	c, ok3 := zi.wordFast()
	if !ok || !ok2 || !ok3 {
		if a, ok = xi.word(); !ok {
			return nil, 0
		}
		if b, ok = yi.word(); !ok {
			return nil, 0
		}
		if c, ok = zi.word(); !ok {
			return nil, 0
		}
	}
	var hi, lo uint64
	switch compile.Opcode(w >> 16) {
	case compile.STAR:
		hi, lo = bits.Mul64(a, b)
	case compile.LTLT:
		if b >= 64 {
			return nil, 0
		}
		lo = a << b
		if b > 0 {
			hi = a >> (64 - b)
		}
	default:
		return nil, 0
	}
	switch compile.Opcode(w >> 26 & 0x3f) {
	case compile.PLUS:
		// No carry out of 128 bits: a product of words is at most
		// (2^64-1)^2 = 2^128 - 2^65 + 1, a word shifted below 2^127.
		var carry uint64
		lo, carry = bits.Add64(lo, c, 0)
		hi += carry
	case compile.GTGT:
		if c >= 128 {
			return nil, 0
		}
		hi, lo = shr128(hi, lo, c)
	default:
		return nil, 0
	}
	n := 0
chain:
	for n < len(code) {
		e := code[n]
		if compile.Opcode(e) != compile.FusedConstBinop {
			break
		}
		ci, ok := m.constants[e>>32].(Int)
		if !ok {
			break
		}
		k, ok := ci.wordFast()
		if !ok {
			break
		}
		switch compile.Opcode(e >> 16) {
		case compile.GTGT:
			if k >= 128 {
				break chain
			}
			hi, lo = shr128(hi, lo, k)
		case compile.AMP:
			hi, lo = 0, lo&k
		default:
			break chain
		}
		n += int(e >> 8 & 0xff)
	}
	if hi == 0 { // made inline, as intBinary does
		if lo <= math.MaxInt32 {
			return makeSmallInt(int64(lo)), uint32(n)
		}
		if z, ok := wordInt(lo); ok {
			return z, uint32(n)
		}
	}
	return makeUint128(hi, lo), uint32(n)
}

// shr128 returns (hi, lo) >> k for k < 128.
func shr128(hi, lo, k uint64) (uint64, uint64) {
	if k >= 64 {
		return 0, hi >> (k - 64)
	}
	if k == 0 {
		return hi, lo
	}
	return hi >> k, lo>>k | hi<<(64-k)
}

// maskedOrWide runs FusedMaskedOp (maskedOp) or FusedWideOp (wideOp), as w
// says: the interpreter's one case for both.
func maskedOrWide(m *Module, space []Value, w uint64, sp int, code []uint64) (Value, uint32) {
	if compile.Opcode(w) == compile.FusedWideOp {
		return wideOp(m, space, w, sp, code)
	}
	return maskedOp(m, space, w, sp), 0
}
