package native

import "github.com/bitsh/bitsh/builtins/fuse"

// Bit scans: the loop that finds the first clear bit of a word from a
// position on, as a Python programmer writes it (cover's lowest empty
// cell),
//
//	while (board >> cell) & 1:
//	    cell += 1
//
// which exact compilation makes
//
//	while (and (shr V (and I 0x7fffffff)) 1)   # the and checks I < 2^31
//	    assign I (add I 1)                     # the add checks for overflow
//
// runs, where I < 64 on entry, as one tzcnt: the bits of ~V from I on,
// shifted down, have their lowest set bit where V's first clear bit is,
// and none (tzcnt gives 64) where V's bits are all set from I on, where
// the loop stops at 64 (a shift by 64 or more is 0). No check of the loop
// can fail there (I stays at most 64), and the loop, at most 64 passes,
// charges no fuel, as an innermost loop of a constant trip count charges
// its count once. Where I may be 64 or more on entry, the loop runs as
// written instead.

// bitScan emits while loop s as a bit scan where it is one (above) and
// reports whether it did (done), or emits the scan for the entries where
// I < 64 and a branch to the loop as written, which the caller emits next
// and then binds end after (end is -1 where nothing was emitted).
func (g *amd64Gen) bitScan(s *fuse.Stmt) (end int, done bool) {
	v, i, ok := g.bitScanVars(s)
	if !ok {
		return -1, false
	}
	a := g.a
	general := -1
	if b := g.bound(&fuse.Expr{Op: fuse.OpVar, Imm: uint64(i), Check: -1}); b == 0 || b > 64 {
		general = a.newLabel()
		g.getSlot(rDX, i)
		a.aluI(aluCmp, R(rDX), 64)
		a.jcc(ccAE, general)
	}
	g.getSlot(rAX, v)
	a.not(rAX)
	g.getSlot(rDX, i)
	a.shrx(rAX, rAX, rDX)
	a.tzcnt(rAX, rAX)
	a.alu(aluAdd, rAX, R(rDX))
	a.movRI(rDX, 64)
	a.alu(aluCmp, rAX, R(rDX))
	a.cmov(ccA, rAX, rDX)
	g.setSlot(i, rAX)
	if general < 0 {
		return -1, true
	}
	end = a.newLabel()
	a.jmp(end)
	a.bind(general)
	return end, false
}

// bitScanVars returns V and I where while loop s is a bit scan (see
// above): V and I distinct variables, the body I's increment alone.
func (g *amd64Gen) bitScanVars(s *fuse.Stmt) (v, i int, ok bool) {
	x := s.X
	if s.Kind != fuse.SWhile || len(s.Body) != 1 || x.Op != fuse.OpAnd || x.Check >= 0 || !isConst(x.Args[1], 1) {
		return 0, 0, false
	}
	sh := x.Args[0]
	if sh.Op != fuse.OpShr || sh.Check >= 0 || sh.Args[0].Op != fuse.OpVar {
		return 0, 0, false
	}
	cnt := sh.Args[1]
	if cnt.Op != fuse.OpAnd || !isConst(cnt.Args[1], 1<<31-1) || cnt.Args[0].Op != fuse.OpVar {
		return 0, 0, false
	}
	if cnt.Check >= 0 {
		if c := g.f.Checks[cnt.Check]; c.Kind != fuse.CheckFits || c.Imm != 31 {
			return 0, 0, false
		}
	}
	v, i = int(sh.Args[0].Imm), int(cnt.Args[0].Imm)
	b := &s.Body[0]
	if v == i || b.Kind != fuse.SAssign || b.Var != i || b.X.Op != fuse.OpAdd ||
		b.X.Args[0].Op != fuse.OpVar || int(b.X.Args[0].Imm) != i || !isConst(b.X.Args[1], 1) {
		return 0, 0, false
	}
	return v, i, true
}

// isConst reports whether x is the constant k.
func isConst(x *fuse.Expr, k uint64) bool { return x.Op == fuse.OpConst && x.Imm == k }
