package block

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
)

// TestOpTableExecutor: the block executor runs every op of the table a
// Program may hold (its vectorised loops, its immediate forms, its scalar
// path) exactly as Eval1 does, over more than one block.
func TestOpTableExecutor(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n = Size + 77
	for _, po := range progtest.ProgramOps(r) {
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
