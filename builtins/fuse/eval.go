package fuse

import (
	"github.com/bitsh/bitsh/builtins/bitops"
)

// Eval1 computes one operation on words: the meaning that opDefs declares
// for the op (ops.go). It is the definition of each op for every back end
// (the block executor, the machine code of builtins/fuse/native, the
// generated C and CUDA), which must agree with it; the word builtins' own
// meaning comes from their kernels in builtins/bitops, the same functions
// the interpreter and word arrays call. Eval1 panics for an op without a
// meaning of its own (a parameter, a variable, a load, a lazy operator).
func Eval1(in Instr, a, b, c uint64) uint64 {
	if f := in.Op.def().eval; f != nil {
		return f(a, b, c, in.Imm)
	}
	panic("fuse: Eval1 of " + in.Op.String())
}

// Bit is a comparison's or a truth test's result as a word: 1 for true,
// 0 for false.
func Bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Rotate is what OpRotl computes: the low w bits of x rotated left by k mod
// w (w is 8, 16, 32 or 64; x fits in w bits, which a CheckFits guarantees
// where it matters). OpRotr is Rotate(x, -k, w).
func Rotate(x, k, w uint64) uint64 {
	return bitops.RotateLeft(x&bitops.Mask(uint(w)), int(k&(w-1)), uint(w))
}

// Eval runs p on one item (len(params) == p.Params). It returns the result,
// or the index of the first check that fails (-1 when none does).
func (p *Line) Eval(params []uint64) (uint64, int) {
	vals := make([]uint64, len(p.Instrs))
	ci := 0
	runChecks := func(upto int) int {
		for ; ci < len(p.Checks) && p.Checks[ci].At <= upto; ci++ {
			c := p.Checks[ci]
			if c.Mask >= 0 && vals[c.Mask] == 0 {
				continue
			}
			var b uint64
			if c.Kind.TwoOperands() {
				b = vals[c.B]
			}
			if !CheckOK(c.Kind, vals[c.A], b, c.Imm) {
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
		n := in.Op.Arity()
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
