package native

import (
	"maps"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Divisions by a power of two that only the run knows: Gosper's hack
// (HAKMEM 175) divides by c = x & -x, the lowest set bit of x. Where every
// assignment of a variable gives it a power of two or 0 (x & -x, lsb(x),
// 1 << k, such a word masked or shifted right, a constant power of two),
// y // c is y >> tzcnt(c) and y % c is y & (c - 1) for every c but 0, which
// the division's check or its test for 0 sets apart as before: a TZCNT and
// a SHRX in place of a DIV of 64 bits (35 to 88 cycles of latency on Intel
// cores before Ice Lake, Agner Fog's instruction tables).

// findPow2 sets g.pow2: the variables of g's body that hold a power of two
// or 0 wherever they are read (those never assigned read 0). Parameters
// and loop variables are not among them.
func (g *amd64Gen) findPow2() {
	g.pow2 = map[int]bool{}
	assigned := map[int][]*fuse.Expr{}
	bound := map[int]bool{}
	var walk func(ss []fuse.Stmt)
	walk = func(ss []fuse.Stmt) {
		for i := range ss {
			s := &ss[i]
			switch s.Kind {
			case fuse.SAssign:
				assigned[s.Var] = append(assigned[s.Var], s.X)
			case fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
				bound[s.Var] = true
			}
			walk(s.Body)
			walk(s.Else)
		}
	}
	walk(g.f.Body)
	for v := range assigned {
		if v >= g.f.Params && !bound[v] {
			g.pow2[v] = true
		}
	}
	// The greatest fixed point: a variable leaves the set when one of its
	// assignments may give another word.
	for changed := true; changed; {
		changed = false
		for v := range g.pow2 {
			for _, x := range assigned[v] {
				if !g.pow2Expr(x) {
					delete(g.pow2, v)
					changed = true
					break
				}
			}
		}
	}
}

// pow2Expr reports whether x gives a power of two or 0.
func (g *amd64Gen) pow2Expr(x *fuse.Expr) bool {
	switch x.Op {
	case fuse.OpConst:
		return x.Imm&(x.Imm-1) == 0
	case fuse.OpVar:
		return g.pow2[int(x.Imm)] || g.pow2Here[int(x.Imm)]
	case fuse.OpLsb:
		return true
	case fuse.OpShl:
		return x.Args[0].Op == fuse.OpConst && x.Args[0].Imm == 1 || g.pow2Expr(x.Args[0])
	case fuse.OpShr:
		return g.pow2Expr(x.Args[0])
	case fuse.OpAnd:
		a, b := x.Args[0], x.Args[1]
		if b.Op == fuse.OpNeg && sameValue(a, b.Args[0]) && callFree(a) || a.Op == fuse.OpNeg && sameValue(b, a.Args[0]) && callFree(b) {
			return true
		}
		return g.pow2Expr(a) || g.pow2Expr(b)
	case fuse.OpCond:
		return g.pow2Expr(x.Args[1]) && g.pow2Expr(x.Args[2])
	}
	return false
}

// pow2Facts keeps g.pow2Here, the variables that hold a power of two or 0
// where the code is (a top-level loop's globals are parameters, which
// findPow2 leaves out: toplevel's c = x & -x): what statement s assigns
// is no longer known, on every pass where s is a loop; an assignment of
// such a word makes it known after s; what a compound statement learns
// inside stays there. Call it before emitting s, and the function it
// returns after.
func (g *amd64Gen) pow2Facts(s *fuse.Stmt) func() {
	pow := s.Kind == fuse.SAssign && g.pow2Expr(s.X) // (the old value's facts)
	if len(g.pow2Here) > 0 {
		forAssigned(s, func(v int) { delete(g.pow2Here, v) })
	}
	switch {
	case pow:
		return func() {
			if g.pow2Here == nil {
				g.pow2Here = map[int]bool{}
			}
			g.pow2Here[s.Var] = true
		}
	case s.Kind == fuse.SIf || s.Kind == fuse.SLabeled || isLoop(s):
		known := maps.Clone(g.pow2Here)
		return func() { g.pow2Here = known }
	}
	return func() {}
}

// pow2Divisor reports whether x, a // or a %, divides by a power of two
// or 0 (g.pow2Expr of its divisor).
func (g *amd64Gen) pow2Divisor(x *fuse.Expr) bool {
	return g.pow2Expr(x.Args[1])
}

// divPow2 emits d = d // c (d % c for OpMod) for c, a register holding a
// power of two (not 0).
func (g *amd64Gen) divPow2(op fuse.Op, d, c reg) {
	a := g.a
	if op == fuse.OpDiv {
		a.tzcnt(rAX, c)
		a.shrx(d, d, rAX)
		return
	}
	a.lea(rAX, at(c, -1))
	a.alu(aluAnd, d, R(rAX))
}

// callFree reports whether x makes no call and reads no callout's result:
// two evaluations of it in one expression give the same word.
func callFree(x *fuse.Expr) bool {
	if x.Op == fuse.OpCall || x.Op == fuse.OpResult {
		return false
	}
	for _, a := range x.Args {
		if !callFree(a) {
			return false
		}
	}
	return true
}

// sameValue reports whether x and y compute the same word: the same ops
// on the same operands (their checks aside: where one fails, the run
// ends).
func sameValue(x, y *fuse.Expr) bool {
	if x.Op != y.Op || x.Imm != y.Imm || len(x.Args) != len(y.Args) {
		return false
	}
	for i := range x.Args {
		if !sameValue(x.Args[i], y.Args[i]) {
			return false
		}
	}
	return true
}

// shiftByVar emits an unchecked x << v or x >> v with the count v a
// variable in a register, read there (hash64's h >> (32 - bits), the
// count hoisted out of the loop), and reports whether it did.
func (g *amd64Gen) shiftByVar(x *fuse.Expr) (reg, bool) {
	if x.Op != fuse.OpShl && x.Op != fuse.OpShr || x.Check >= 0 {
		return 0, false
	}
	k, ok := g.varReg(x.Args[1])
	if !ok {
		return 0, false
	}
	a := g.a
	shift := a.shrx
	if x.Op == fuse.OpShl {
		shift = a.shlx
	}
	var d reg
	if v, ok := g.varReg(x.Args[0]); ok {
		d = g.alloc()
		shift(d, v, k)
	} else {
		d = g.expr(x.Args[0])
		shift(d, d, k)
	}
	if b := g.bound(x.Args[1]); b == 0 || b > 64 {
		// A shift by 64 or more gives 0.
		a.movRI(rAX, 0)
		a.aluI(aluCmp, R(k), 64)
		a.cmov(ccAE, d, rAX)
	}
	return d, true
}
