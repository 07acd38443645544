package native

import "github.com/bitsh/bitsh/builtins/fuse"

// scratchConst reads element k of a scratch array where the index is a
// constant k in range (a hash table's header word): the element and its
// epoch addressed by displacement, with no index register and no check.
// ok is false where the index is not such a constant, or where the
// displacements would not fit in 32 bits.
func (g *amd64Gen) scratchConst(x *fuse.Expr) (d reg, ok bool) {
	k, arr := x.Args[0], int(x.Imm)
	if k.Op != fuse.OpConst || k.Imm >= uint64(g.f.Scratch[arr].Len) {
		return 0, false
	}
	base, vals, epochs, tmp := g.scratchAt(arr)
	off := 8 * int64(k.Imm)
	if int64(vals)+off > 1<<31-1 || int64(epochs)+off > 1<<31-1 {
		if tmp {
			g.release(base)
		}
		return 0, false
	}
	a := g.a
	a.movRI(rDX, g.f.Scratch[arr].Init)
	a.load(rAX, at(base, epochs+int32(off)))
	d = g.alloc()
	a.load(d, at(base, vals+int32(off)))
	if tmp {
		g.release(base)
	}
	a.alu(aluCmp, rAX, g.slotRM(g.sEpoch[arr]))
	a.cmov(ccNE, d, rDX)
	return d, true
}
