package native

import "github.com/bitsh/bitsh/builtins/fuse"

// constElement returns the byte offset of element k of scratch array arr
// where k is a constant index in range, and the element's and its
// epoch's displacements (scratchAt's, plus the offset) fit in 32 bits:
// such an element is addressed with no index register and no check.
func (g *amd64Gen) constElement(arr int, k *fuse.Expr) (off int32, ok bool) {
	n := uint64(g.f.Scratch[arr].Len)
	if k.Op != fuse.OpConst || k.Imm >= n {
		return 0, false
	}
	var start int64
	if g.proc < 0 {
		start = int64(g.l.scratch[arr])
	} else if k := g.fixedOf(arr); k >= 0 {
		start = int64(g.l.scratch[k])
	}
	if start+16*int64(n) > 1<<31-1 {
		return 0, false
	}
	return int32(8 * k.Imm), true
}

// scratchConst reads element k of a scratch array where the index is a
// constant in range (constElement: a hash table's header word); ok is
// false where it is not.
func (g *amd64Gen) scratchConst(x *fuse.Expr) (d reg, ok bool) {
	arr := int(x.Imm)
	off, ok := g.constElement(arr, x.Args[0])
	if !ok {
		return 0, false
	}
	a := g.a
	base, vals, epochs, tmp := g.scratchAt(arr)
	steady := g.steady[arr] || g.isDense(arr)
	if !steady {
		a.movRI(rDX, g.f.Scratch[arr].Init)
		a.load(rAX, at(base, epochs+off))
	}
	d = g.alloc()
	a.load(d, at(base, vals+off))
	if tmp {
		g.release(base)
	}
	if !steady {
		a.alu(aluCmp, rAX, g.slotRM(g.sEpoch[arr]))
		a.cmov(ccNE, d, rDX)
	}
	return d, true
}

// storeConst stores a scratch array's element at a constant index in
// range (constElement) and its epoch, and reports whether it did.
func (g *amd64Gen) storeConst(s *fuse.Stmt) bool {
	off, ok := g.constElement(s.Arr, s.X)
	if !ok {
		return false
	}
	a := g.a
	v := g.expr(s.Y)
	base, vals, epochs, tmp := g.scratchAt(s.Arr)
	a.store(at(base, vals+off), v)
	if g.isDense(s.Arr) {
		g.denseMarkConst(s.Arr, s.X.Imm)
	} else if !g.steady[s.Arr] {
		e := g.slotRM(g.sEpoch[s.Arr])
		if e.isMem {
			a.load(rAX, e.m)
			e = R(rAX)
		}
		a.store(at(base, epochs+off), e.r)
	}
	if tmp {
		g.release(base)
	}
	g.release(v)
	return true
}
