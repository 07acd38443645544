package block

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
)

// TestOpTableExecutor: the block executor runs every op of the table a
// Line may hold (its vectorised loops, its immediate forms, its scalar
// path) exactly as Eval1 does, over more than one block.
func TestOpTableExecutor(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n = Size + 77
	for _, po := range progtest.LineOps(r) {
		p := progtest.OpProgram(po.Op, po.Imm, po.Konst, po.K)
		in := progtest.OpInputs(r, n)
		out := make([]uint64, n)
		if _, err := New(p).Run(context.Background(), []fuse.Space{in[0], in[1], in[2]}, fuse.Map, fuse.Options{Workers: 1, Out: out}); err != nil {
			t.Fatalf("%s: %v", po.Op, err)
		}
		for j := range out {
			b := in[1][j]
			if po.Konst {
				b = po.K
			}
			if want := fuse.Eval1(fuse.Instr{Op: po.Op, Imm: po.Imm}, in[0][j], b, in[2][j]); out[j] != want {
				t.Fatalf("%s (imm %d, constant b %v) of %#x, %#x, %#x: executor %#x, Eval1 %#x", po.Op, po.Imm, po.Konst, in[0][j], b, in[2][j], out[j], want)
			}
		}
	}
}

// TestOwnOps: the executor's own ops mean what their names say, and the
// executor runs each (as the peephole pass leaves it in a plan) as its
// meaning does, over more than one block.
func TestOwnOps(t *testing.T) {
	for _, c := range []struct {
		op           fuse.Op
		a, b, imm, w uint64
	}{
		{opXorShrK, 0xf0, 0, 4, 0xff},
		{opXorShlK, 0x0f, 0, 4, 0xff},
		{opXorShrMul, 0xf0, 3, 4, 0x2fd},
		{opXorShlMul, 0x0f, 3, 4, 0x2fd},
		{opXorShrMul, 1 << 63, 1, 63, 1<<63 | 1},
		{opXorShlMul, 1, ^uint64(0), 63, 1<<63 - 1},
		{opPopAndK, 0xff, 0, 0x0f0f, 4},
	} {
		if got := meaning(c.op)(c.a, c.b, 0, c.imm); got != c.w {
			t.Errorf("%s(%#x, %#x; %d) = %#x, want %#x", own(c.op).name, c.a, c.b, c.imm, got, c.w)
		}
	}
	r := rand.New(rand.NewPCG(23, 24))
	const n = Size + 77
	for op := fuse.NumOps; op < numOps; op++ {
		o := own(op)
		imms := []uint64{0, 1, 7, 33, 63}
		if o.imm == fuse.ImmMask {
			imms = []uint64{0, ^uint64(0), progtest.Word(r), r.Uint64()}
		}
		for _, imm := range imms {
			p := &fuse.Line{Params: 3}
			for i := range 3 {
				p.Instrs = append(p.Instrs, fuse.Instr{Op: fuse.OpParam, Imm: uint64(i), A: -1, B: -1, C: -1})
			}
			in := fuse.Instr{Op: op, A: 0, B: 1, C: -1, Imm: imm}
			if o.arity < 2 {
				in.B = -1
			}
			p.Instrs = append(p.Instrs, in)
			p.Result = 3
			ins := progtest.OpInputs(r, n)
			out := make([]uint64, n)
			if _, err := New(p).Run(context.Background(), []fuse.Space{ins[0], ins[1], ins[2]}, fuse.Map, fuse.Options{Workers: 1, Out: out}); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			for j := range out {
				if want := o.eval(ins[0][j], ins[1][j], 0, imm); out[j] != want {
					t.Fatalf("%s (imm %d) of %#x, %#x: executor %#x, meaning %#x", o.name, imm, ins[0][j], ins[1][j], out[j], want)
				}
			}
		}
	}
}
