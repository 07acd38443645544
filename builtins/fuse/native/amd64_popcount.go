package native

import "github.com/bitsh/bitsh/builtins/fuse"

// popcountLoop emits s, where it is Kernighan's loop that counts the bits
// of v into n,
//
//	while v:
//	    v &= v - 1
//	    n += 1
//
// as one POPCNT: n += popcount(v), then v = 0. Where n's add is exact
// (fuse.CheckAddExact), a sum past 2^64 fails that check with 1, the
// operand the loop's last add would have reported. The loop's passes
// take no fuel: it runs at most 64 of them. It reports false, emitting
// nothing, where s is not such a loop.
func (g *amd64Gen) popcountLoop(s *fuse.Stmt) bool {
	if s.Kind != fuse.SWhile || s.X.Op != fuse.OpVar || len(s.Body) != 2 || len(s.Else) != 0 {
		return false
	}
	v := int(s.X.Imm)
	clear, count := &s.Body[0], &s.Body[1]
	if clear.Kind != fuse.SAssign || clear.Var != v || count.Kind != fuse.SAssign || count.Var == v {
		return false
	}
	if op, x := lowBitOf(clear.X); op != blsr || x.Op != fuse.OpVar || int(x.Imm) != v {
		return false
	}
	n, add := count.Var, count.X
	if add.Op != fuse.OpAdd || add.Args[0].Op != fuse.OpVar || int(add.Args[0].Imm) != n ||
		add.Args[1].Op != fuse.OpConst || add.Args[1].Imm != 1 {
		return false
	}
	exact := add.Check >= 0
	if exact && g.f.Checks[add.Check].Kind != fuse.CheckAddExact {
		return false
	}
	a := g.a
	if o := g.slotRM(v); o.isMem {
		a.load(rDX, o.m)
		a.popcnt(rAX, rDX)
	} else {
		a.popcnt(rAX, o.r)
	}
	nr := rDX
	if r := g.slotReg[n]; r >= 0 {
		nr = poolRegs[r]
	} else {
		a.load(rDX, g.home(n))
	}
	a.alu(aluAdd, nr, R(rAX))
	if exact {
		fail, ool := a.newLabel(), a.newLabel()
		g.fails = append(g.fails, failStub{label: fail, check: add.Check, value: rAX, hasValue: true})
		a.jcc(ccB, ool)
		g.later = append(g.later, func() {
			a.bind(ool)
			a.movRI(rAX, 1)
			a.jmp(fail)
		})
	}
	if nr == rDX {
		a.store(g.home(n), rDX)
	}
	g.setSlotI(v, 0)
	return true
}
