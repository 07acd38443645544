package native

import "github.com/bitsh/bitsh/builtins/fuse"

// belowIndex emits, as one check, the index of a list read below its
// length: the compiler writes lst[i] as the element (i < len ? i : limit)
// of an array of limit elements (package compile's below), where limit,
// out of range, makes the index check fail. As written, that is a branch
// and two moves, then the check of the array's length; here it is a
// comparison with the length, which fails the check out of line with
// limit as its value (what the condition's value would have made it),
// then the check of the array's length only where i is not known below
// it. It reports false, emitting nothing, where x is not such an index.
// The register is i's own where i is a variable in a register known in
// range (owned false: not to be changed or given back).
func (g *amd64Gen) belowIndex(x *fuse.Expr, n uint64, check int) (r reg, owned, ok bool) {
	x = g.peelMask(x)
	if x.Op != fuse.OpCond || x.Check >= 0 || check < 0 {
		return 0, false, false
	}
	c, v, k := x.Args[0], x.Args[1], x.Args[2]
	if c.Op != fuse.OpLt || c.Check >= 0 || k.Op != fuse.OpConst || k.Imm < n || v.Op != fuse.OpVar || !sameExpr(c.Args[0], v) {
		return 0, false, false
	}
	m := c.Args[1]
	if m.Op != fuse.OpVar && m.Op != fuse.OpConst {
		return 0, false, false
	}
	if b := g.bound(x); b == 0 || b > 1<<63 {
		// Where the index may be negative, index counts it from the
		// end (resolve): left to it.
		return 0, false, false
	}
	a := g.a
	// i is below n where its bound says so, or where i < len, checked
	// here, and len <= n.
	inRange := false
	if b := g.bound(v); b != 0 && b <= n {
		inRange = true
	}
	lenFits := false
	if b := g.bound(m); b != 0 && b-1 <= n {
		lenFits = true
	}
	if s := int(v.Imm); inRange && g.slotReg[s] >= 0 {
		r = poolRegs[g.slotReg[s]]
	} else {
		r, owned = g.expr(v), true
	}
	g.failUnlessBelow(r, m, rDX, check, k.Imm)
	if !inRange && !lenFits {
		if n <= 1<<31-1 {
			a.aluI(aluCmp, R(r), int32(n))
		} else {
			a.movRI(rDX, n)
			a.alu(aluCmp, r, R(rDX))
		}
		g.failIf(ccAE, check, r, true)
	}
	return r, owned, true
}

// peelMask returns x without the masks of low bits that change nothing
// (the value fits in them, and a width check on it cannot fail): exact
// code masks an index to 63 bits, which expr emits as nothing where the
// index's bound shows it fits.
func (g *amd64Gen) peelMask(x *fuse.Expr) *fuse.Expr {
	for x.Op == fuse.OpAnd && x.Args[1].Op == fuse.OpConst {
		m, b := x.Args[1].Imm, g.bound(x.Args[0])
		if m&(m+1) != 0 || b == 0 || b-1 > m {
			break
		}
		if x.Check >= 0 {
			ck := g.f.Checks[x.Check]
			if ck.Kind != fuse.CheckFits || ck.Imm < 64 && b > 1<<ck.Imm {
				break
			}
		}
		x = x.Args[0]
	}
	return x
}

// belowAssign emits s, an assignment t = (i < len ? i : limit) of a
// variable i (package compile's below, the index of a list written below
// its length), where the next statement of rest but copies of variables
// and constants into others than t stores into an array of at most limit
// elements at t: the store's index check would fail on limit, so the
// assignment compares i with the length and fails that check out of
// line, with limit as its value, as the store would (the copies before
// it cannot fail, and a failed run leaves nothing of them), and
// otherwise copies i, with no branch around moves. It reports false,
// emitting nothing, where s and rest are not such statements.
func (g *amd64Gen) belowAssign(s *fuse.Stmt, rest []fuse.Stmt) bool {
	var next *fuse.Stmt
	for i := range rest {
		r := &rest[i]
		if r.Kind == fuse.SAssign && r.Var != s.Var && (r.X.Op == fuse.OpVar || r.X.Op == fuse.OpConst) {
			continue
		}
		next = r
		break
	}
	if next == nil || next.Kind != fuse.SStore || next.Check < 0 {
		return false
	}
	// The store's index is t, or t masked to its low bits (exact code's
	// width check): either keeps limit, which fails the index check.
	at, mask := next.X, ^uint64(0)
	if at.Op == fuse.OpAnd && at.Args[1].Op == fuse.OpConst {
		at, mask = at.Args[0], at.Args[1].Imm
	}
	if at.Op != fuse.OpVar || int(at.Imm) != s.Var || mask&(mask+1) != 0 {
		return false
	}
	x := g.peelMask(s.X)
	if x.Op != fuse.OpCond || x.Check >= 0 {
		return false
	}
	c, v, k := x.Args[0], x.Args[1], x.Args[2]
	if c.Op != fuse.OpLt || c.Check >= 0 || k.Op != fuse.OpConst || k.Imm < uint64(g.f.Scratch[next.Arr].Len) || k.Imm >= 1<<63 || k.Imm > mask ||
		v.Op != fuse.OpVar || !sameExpr(c.Args[0], v) {
		return false
	}
	m := c.Args[1]
	if m.Op != fuse.OpVar && m.Op != fuse.OpConst {
		return false
	}
	a := g.a
	vr := rDX
	if o := g.slotRM(int(v.Imm)); o.isMem {
		a.load(rDX, o.m)
	} else {
		vr = o.r
	}
	g.failUnlessBelow(vr, m, rAX, next.Check, k.Imm)
	g.setSlot(s.Var, vr)
	// t is i, below len: below the lesser of their bounds.
	bv, bm := g.bound(v), g.bound(m)
	switch {
	case bv == 0:
		g.belowFit = bm
	case bm == 0:
		g.belowFit = bv
	default:
		g.belowFit = min(bv, bm)
	}
	return true
}

// addInPlace emits s, v = v + k of a variable v in a register and a
// constant k under Starlark's exact add (fuse.CheckAddExact), as an add
// into the register and a branch on its carry: out of line, v gets its
// value back and the check fails with k, the operand that
// CheckAddExact reports. It reports false, emitting nothing, where s is
// no such assignment.
func (g *amd64Gen) addInPlace(s *fuse.Stmt) bool {
	x := s.X
	if x.Op != fuse.OpAdd || x.Check < 0 || g.f.Checks[x.Check].Kind != fuse.CheckAddExact || g.slotReg[s.Var] < 0 {
		return false
	}
	v, k := x.Args[0], x.Args[1]
	if v.Op != fuse.OpVar || int(v.Imm) != s.Var || k.Op != fuse.OpConst || k.Imm > 1<<31-1 {
		return false
	}
	a, r, imm := g.a, poolRegs[g.slotReg[s.Var]], int32(k.Imm)
	a.aluI(aluAdd, R(r), imm)
	fail, ool := a.newLabel(), a.newLabel()
	g.fails = append(g.fails, failStub{label: fail, check: x.Check, value: rAX, hasValue: true})
	a.jcc(ccB, ool)
	g.later = append(g.later, func() {
		a.bind(ool)
		a.aluI(aluSub, R(r), imm)
		a.movRI(rAX, uint64(imm))
		a.jmp(fail)
	})
	return true
}

// addConstExact emits x, y + z or y - z under Starlark's exact add or
// subtract (fuse.CheckAddExact, fuse.CheckSubExact) where z is a
// constant or a variable in a register, as the add or subtract into y's
// register and a branch on its carry (the borrow of y < z) to fail the
// check, with z, the operand it reports: two instructions where the
// check alone took three before the op. It reports false, emitting
// nothing, where x is no such op.
func (g *amd64Gen) addConstExact(x *fuse.Expr) (reg, bool) {
	if x.Op != fuse.OpAdd && x.Op != fuse.OpSub || x.Check < 0 {
		return 0, false
	}
	kind, op := fuse.CheckAddExact, aluAdd
	if x.Op == fuse.OpSub {
		kind, op = fuse.CheckSubExact, aluSub
	}
	if g.f.Checks[x.Check].Kind != kind {
		return 0, false
	}
	z := x.Args[1]
	isConst := z.Op == fuse.OpConst && z.Imm <= 1<<31-1
	inReg := z.Op == fuse.OpVar && g.slotReg[z.Imm] >= 0
	if !isConst && !inReg {
		return 0, false
	}
	a := g.a
	d := g.expr(x.Args[0])
	if isConst {
		imm := int32(z.Imm)
		a.aluI(op, R(d), imm)
		fail, ool := a.newLabel(), a.newLabel()
		g.fails = append(g.fails, failStub{label: fail, check: x.Check, value: rAX, hasValue: true})
		a.jcc(ccB, ool)
		g.later = append(g.later, func() {
			a.bind(ool)
			a.movRI(rAX, uint64(imm))
			a.jmp(fail)
		})
		return d, true
	}
	zr := poolRegs[g.slotReg[z.Imm]]
	a.alu(op, d, R(zr))
	g.failIf(ccB, x.Check, zr, true)
	return d, true
}

// failUnlessBelow compares r with the bound m (a variable or a constant;
// tmp holds a constant past 2^31) and, where r is not below it (unsigned),
// fails check out of line with limit as its value.
func (g *amd64Gen) failUnlessBelow(r reg, m *fuse.Expr, tmp reg, check int, limit uint64) {
	a := g.a
	switch {
	case m.Op == fuse.OpVar:
		a.alu(aluCmp, r, g.slotRM(int(m.Imm)))
	case m.Imm <= 1<<31-1:
		a.aluI(aluCmp, R(r), int32(m.Imm))
	default:
		a.movRI(tmp, m.Imm)
		a.alu(aluCmp, r, R(tmp))
	}
	fail, ool := a.newLabel(), a.newLabel()
	g.fails = append(g.fails, failStub{label: fail, check: check, value: rAX, hasValue: true})
	a.jcc(ccAE, ool)
	g.later = append(g.later, func() {
		a.bind(ool)
		a.movRI(rAX, limit)
		a.jmp(fail)
	})
}
