package fuse

import (
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// Eval1 computes one operation on words. It is the definition of each op
// for every back end (the block executor, the machine code of
// builtins/fuse/native, the generated C and CUDA), which must agree with
// it; the word builtins' own meaning comes from their kernels in
// builtins/bitops, the same functions the interpreter and word arrays
// call.
func Eval1(in Instr, a, b, c uint64) uint64 {
	switch in.Op {
	case OpConst:
		return in.Imm
	case OpAdd:
		return a + b
	case OpSub:
		return a - b
	case OpMul:
		return a * b
	case OpDiv:
		if b == 0 {
			return 0
		}
		return a / b
	case OpMod:
		if b == 0 {
			return 0
		}
		return a % b
	case OpAnd:
		return a & b
	case OpOr:
		return a | b
	case OpXor:
		return a ^ b
	case OpShl:
		if b >= 64 {
			return 0
		}
		return a << b
	case OpShr:
		if b >= 64 {
			return 0
		}
		return a >> b
	case OpNot:
		return ^a
	case OpNeg:
		return -a
	case OpEq:
		return b2w(a == b)
	case OpNe:
		return b2w(a != b)
	case OpLt:
		return b2w(a < b)
	case OpLe:
		return b2w(a <= b)
	case OpGt:
		return b2w(a > b)
	case OpGe:
		return b2w(a >= b)
	case OpLNot:
		return b2w(a == 0)
	case OpBool:
		return b2w(a != 0)
	case OpSelect:
		if a != 0 {
			return b
		}
		return c
	case OpPopcount:
		return uint64(bits.OnesCount64(a))
	case opPopAndK:
		return uint64(bits.OnesCount64(a & in.Imm))
	case opXorShrK:
		return a ^ a>>in.Imm
	case opXorShlK:
		return a ^ a<<in.Imm
	case opXorShrMul:
		return (a ^ a>>in.Imm) * b
	case opXorShlMul:
		return (a ^ a<<in.Imm) * b
	case OpBsf:
		return uint64(bitops.Bsf(a))
	case OpBsr:
		return uint64(bitops.Bsr(a))
	case OpLsb:
		return bitops.Lsb(a)
	case OpRotl:
		return rot(a, b, in.Imm)
	case OpRotr:
		return rot(a, -b, in.Imm)
	case OpReverse:
		return bitops.Reverse(a, uint(in.Imm))
	case OpSwapBytes:
		return bitops.SwapBytes(a, uint(in.Imm))
	case OpPdep:
		return bitops.Pdep(a, b)
	case OpPext:
		return bitops.Pext(a, b)
	case OpDeltaSwap:
		if c > 63 {
			return a
		}
		return bitops.DeltaSwap(a, b, uint(c))
	case OpParity:
		return bitops.Parity(a)
	case OpGray:
		return bitops.Gray(a)
	case OpGrayInv:
		return bitops.GrayInverse(a)
	}
	panic("fuse: Eval1 of " + in.Op.String())
}

func b2w(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// rot rotates the low w bits of x left by k mod w (w is 8, 16, 32 or 64;
// x fits in w bits, which a CheckFits guarantees where it matters).
func rot(x, k, w uint64) uint64 {
	return bitops.RotateLeft(x&bitops.Mask(uint(w)), int(k&(w-1)), uint(w))
}

// Eval runs p on one item (len(params) == p.Params). It returns the result,
// or the index of the first check that fails (-1 when none does).
func (p *Program) Eval(params []uint64) (uint64, int) {
	vals := make([]uint64, len(p.Instrs))
	ci := 0
	runChecks := func(upto int) int {
		for ; ci < len(p.Checks) && p.Checks[ci].At <= upto; ci++ {
			c := p.Checks[ci]
			if c.Mask >= 0 && vals[c.Mask] == 0 {
				continue
			}
			var b uint64
			if c.Kind == CheckDelta {
				b = vals[c.B]
			}
			if !checkOK(c.Kind, vals[c.A], b, c.Imm) {
				return ci
			}
		}
		return -1
	}
	for i, in := range p.Instrs {
		if f := runChecks(i); f >= 0 {
			return 0, f
		}
		var a, b, c uint64
		switch in.Op {
		case OpParam:
			vals[i] = params[in.Imm]
			continue
		case OpConst:
			vals[i] = in.Imm
			continue
		}
		n := in.Op.arity()
		if n > 0 {
			a = vals[in.A]
		}
		if n > 1 {
			b = vals[in.B]
		}
		if n > 2 {
			c = vals[in.C]
		}
		vals[i] = Eval1(in, a, b, c)
	}
	if f := runChecks(len(p.Instrs)); f >= 0 {
		return 0, f
	}
	return vals[p.Result], -1
}
