// Package progtest makes fuse Programs for the tests of the back ends that
// run straight lines (the block executor, the C and CUDA generators): random
// programs over every op and check kind, programs of one op, and the words
// to feed them, so that each back end's tests compare it with the IR's
// meaning (fuse.Eval1, Line.Eval) on the same cases.
package progtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Line builds a random program over every op and check kind.
func Line(r *rand.Rand, params, size int) *fuse.Line {
	b := fuse.NewBuilder(params)
	vals := []fuse.Value{}
	for i := 0; i < params; i++ {
		vals = append(vals, b.Param(i))
	}
	pick := func() fuse.Value {
		if r.IntN(8) == 0 {
			return b.Const(Word(r))
		}
		return vals[r.IntN(len(vals))]
	}
	widths := []uint64{8, 16, 32, 64}
	for i := 0; i < size; i++ {
		if r.IntN(5) == 0 {
			// An idiom that the CPU executor runs as one instruction.
			vals = append(vals, idiom(r, b, pick))
			continue
		}
		op := fuse.Op(2 + r.IntN(int(fuse.NumOps)-2))
		var imm uint64
		if op == fuse.OpRotl || op == fuse.OpRotr || op == fuse.OpReverse || op == fuse.OpSwapBytes {
			imm = widths[r.IntN(4)]
		}
		v := b.Op3(op, pick(), pick(), pick(), imm)
		vals = append(vals, v)
		if r.IntN(6) == 0 {
			mask := fuse.NoMask
			if r.IntN(2) == 0 {
				mask = b.Op1(fuse.OpBool, pick(), 0)
			}
			kind := fuse.CheckKind(r.IntN(4))
			b.Check(fuse.Check{Kind: kind, A: pick(), B: pick(), Imm: widths[r.IntN(3)], Mask: mask, Msg: fmt.Sprintf("check %d", i), Line: 1, Col: i})
		}
	}
	return b.Finish(vals[len(vals)-1])
}

// idiom builds a pattern that peephole rewrites (or nearly: a shift
// of 64 or more, another operand), so that the random programs exercise the
// executor's own instructions.
func idiom(r *rand.Rand, b *fuse.Builder, pick func() fuse.Value) fuse.Value {
	x := pick()
	k := b.Const([]uint64{0, 1, 7, 33, 63, 64, uint64(r.IntN(64))}[r.IntN(7)])
	switch r.IntN(4) {
	case 0: // popcount(x & K)
		return b.Op1(fuse.OpPopcount, b.Op2(fuse.OpAnd, x, b.Const(Word(r)), 0), 0)
	case 1: // x ^ x >> K, x << K ^ x
		if r.IntN(2) == 0 {
			return b.Op2(fuse.OpXor, x, b.Op2(fuse.OpShr, x, k, 0), 0)
		}
		return b.Op2(fuse.OpXor, b.Op2(fuse.OpShl, x, k, 0), x, 0)
	}
	// (x ^ x >> K) * y, y * (x << K ^ x), y a constant or a value; now and
	// then the xorshift has a second use.
	sh := fuse.OpShr
	if r.IntN(2) == 0 {
		sh = fuse.OpShl
	}
	xs := b.Op2(fuse.OpXor, x, b.Op2(sh, x, k, 0), 0)
	y := pick()
	if r.IntN(2) == 0 {
		y = b.Const(Word(r) | 1)
	}
	v := b.Op2(fuse.OpMul, xs, y, 0)
	if r.IntN(2) == 0 {
		v = b.Op2(fuse.OpMul, y, xs, 0)
	}
	if r.IntN(4) == 0 {
		v = b.Op2(fuse.OpAdd, v, xs, 0)
	}
	return v
}

// Word favours small values and edges, so that checks pass and fail.
func Word(r *rand.Rand) uint64 {
	switch r.IntN(5) {
	case 0:
		return uint64(r.IntN(70))
	case 1:
		return -uint64(r.IntN(3))
	case 2:
		return 1 << r.IntN(64)
	}
	return r.Uint64() >> r.IntN(64)
}

// OpImms returns the Imm values to try for an op.
func OpImms(r *rand.Rand, o fuse.Op) []uint64 {
	switch o.ImmUse() {
	case fuse.ImmWidth:
		return []uint64{8, 16, 32, 64}
	case fuse.ImmShift:
		return []uint64{0, 1, 7, 33, 63}
	case fuse.ImmMask:
		return []uint64{0, ^uint64(0), Word(r), r.Uint64()}
	}
	return []uint64{0}
}

// OpProgram is a program of one instruction op on the parameters (on the
// constant k as its operand B when konst), built by hand so that no
// folding changes it.
func OpProgram(o fuse.Op, imm uint64, konst bool, k uint64) *fuse.Line {
	p := &fuse.Line{Params: 3}
	for i := 0; i < 3; i++ {
		p.Instrs = append(p.Instrs, fuse.Instr{Op: fuse.OpParam, Imm: uint64(i), A: -1, B: -1, C: -1})
	}
	b := fuse.Value(1)
	if konst {
		p.Instrs = append(p.Instrs, fuse.Instr{Op: fuse.OpConst, Imm: k, A: -1, B: -1, C: -1})
		b = 3
	}
	in := fuse.Instr{Op: o, A: 0, B: b, C: 2, Imm: imm}
	n := o.Arity()
	if n < 3 {
		in.C = -1
	}
	if n < 2 {
		in.B = -1
	}
	p.Instrs = append(p.Instrs, in)
	p.Result = fuse.Value(len(p.Instrs) - 1)
	return p
}

// A LineOp is an op of a Line with the Imm to try, and whether its
// operand B is the constant K (the block executor's immediate forms).
type LineOp struct {
	Op    fuse.Op
	Imm   uint64
	Konst bool
	K     uint64
}

// LineOps returns the ops of the table that a Line may hold, with
// each Imm to try, with and without a constant operand B.
func LineOps(r *rand.Rand) []LineOp {
	var out []LineOp
	for o := fuse.OpAdd; o < fuse.NumOps; o++ {
		for _, imm := range OpImms(r, o) {
			out = append(out, LineOp{o, imm, false, 0})
			if o.Arity() >= 2 {
				for _, k := range []uint64{0, 1, 63, 64, Word(r) | 1} {
					out = append(out, LineOp{o, imm, true, k})
				}
			}
		}
	}
	return out
}

// OpInputs are edge words for the three operands, with now and then a
// valid delta_swap (mask, delta) pair.
func OpInputs(r *rand.Rand, n int) [3]fuse.Array {
	var in [3]fuse.Array
	for i := range in {
		in[i] = make(fuse.Array, n)
		for j := range in[i] {
			in[i][j] = Word(r)
		}
	}
	for j := 0; j < n; j += 3 {
		d := r.Uint64N(64)
		in[1][j] = r.Uint64() >> d & (^uint64(0) >> (64 - max(d, 1)))
		in[2][j] = d
	}
	return in
}
