package fuse

// HoistInvariants moves the loop-invariant expressions of an exact
// function's range loops out of them: an expression of the body whose
// variables the body does not assign, that reads no scratch array and
// calls nothing, and that carries a check or a multiply, a division or a
// load, is computed once into a new variable before the loop, and the body
// reads the variable (the code motion of compilers: Aho, Lam, Sethi and
// Ullman, "Compilers", 2nd ed., section 9.5, and Muchnick, "Advanced
// Compiler Design and Implementation", section 13.2).
//
// Its checks keep their failures exact: the expression is hoisted only
// where the first pass of the body computes it before anything that may
// leave the loop (it is in a statement of the body's top level, outside
// the branches of a conditional, and the statements before it hold no
// break, continue, return or loop), and only where the loop runs at all
// (the assignment before it is guarded by the range being non-empty). A
// check that fails there is the check that the first pass would fail, with
// the same operands; what the first pass did before it is undone, since a
// failed run of an exact function is run again by the interpreter
// (Func.Exact). Only loops whose step is a constant and whose bounds read
// no scratch array and call nothing are changed: the guard computes them
// once more just before the loop's own header does, so that a check of
// theirs fails there as the header's would.
func (f *Func) HoistInvariants() {
	if !f.IsExact {
		return
	}
	f.beforeRangeLoops(hoistLoop)
}

// beforeRangeLoops puts before each range loop of the function's bodies
// (its own and its Procs', inner loops first) the statements that loop
// returns for it, which may change it; loop numbers the new variables of
// each body from its Vars on.
func (f *Func) beforeRangeLoops(loop func(s *Stmt, vars *int) []Stmt) {
	var walk func(ss []Stmt, vars *int) []Stmt
	walk = func(ss []Stmt, vars *int) []Stmt {
		var out []Stmt
		for i := range ss {
			s := ss[i]
			s.Body = walk(s.Body, vars)
			s.Else = walk(s.Else, vars)
			if s.Kind == SForRange {
				out = append(out, loop(&s, vars)...)
			}
			out = append(out, s)
		}
		return out
	}
	f.Body = walk(f.Body, &f.Vars)
	for i := range f.Procs {
		p := &f.Procs[i]
		p.Body = walk(p.Body, &p.Vars)
	}
}

// hoistLoop hoists the invariants of loop s (changed in place) and
// returns the statement to run before it.
func hoistLoop(s *Stmt, vars *int) []Stmt {
	if s.Z.Op != OpConst || s.Z.Imm == 0 || !pureExpr(s.X) || !pureExpr(s.Y) {
		return nil
	}
	invariant := func(x *Expr) bool { return invariantExpr(x, s.Body, s.Var) }
	var pre []Stmt
	for k := range s.Body {
		st := &s.Body[k]
		if st.isLoop() {
			break
		}
		rewrite := func(x *Expr) *Expr {
			y, _ := hoistIn(x, invariant, vars, &pre)
			return y
		}
		st.X, st.Y, st.Z = rewrite(st.X), rewrite(st.Y), rewrite(st.Z)
		if leaves(st) {
			break
		}
	}
	if len(pre) == 0 {
		return nil
	}
	// The range is not empty: start < stop for a positive step, start >
	// stop for a negative one, the bounds read as signed words
	// (RangeLen).
	sign := constExpr(1 << 63)
	a, b := folded(OpXor, s.X, sign), folded(OpXor, s.Y, sign)
	if int64(s.Z.Imm) < 0 {
		a, b = b, a
	}
	return []Stmt{{Kind: SIf, X: binary(OpLt, a, b), Body: pre, Check: -1}}
}

// hoistIn replaces in x the largest invariant expressions worth a variable
// with new variables, appending their assignments to pre; it returns x, or
// a copy of it where it changed. The branches of a conditional (OpCond,
// OpAndThen, OpOrElse) are left alone: they run only on some passes.
func hoistIn(x *Expr, invariant func(*Expr) bool, vars *int, pre *[]Stmt) (*Expr, bool) {
	if x == nil {
		return nil, false
	}
	if invariant(x) && worthHoisting(x) {
		v := *vars
		*vars++
		*pre = append(*pre, Stmt{Kind: SAssign, Var: v, X: x, Check: -1})
		return varExpr(v), true
	}
	n := len(x.Args)
	switch x.Op {
	case OpAndThen, OpOrElse, OpCond:
		n = 1
	}
	var args []*Expr
	for j := range n {
		if y, changed := hoistIn(x.Args[j], invariant, vars, pre); changed {
			if args == nil {
				args = append([]*Expr(nil), x.Args...)
			}
			args[j] = y
		}
	}
	if args == nil {
		return x, false
	}
	y := *x
	y.Args = args
	return &y, true
}

// invariantExpr reports whether x computes the same word at every pass of
// body, a loop over variable loopVar: it reads only constants, tables and
// variables that body does not assign.
func invariantExpr(x *Expr, body []Stmt, loopVar int) bool {
	if x.Op == OpVar {
		return int(x.Imm) != loopVar && !assigns(body, int(x.Imm))
	}
	if !pureOp(x.Op) {
		return false
	}
	for _, a := range x.Args {
		if !invariantExpr(a, body, loopVar) {
			return false
		}
	}
	return true
}

// pureOp reports whether op computes its word from its operands (and
// read-only tables) alone.
func pureOp(op Op) bool {
	switch op {
	case OpScratch, OpCall, OpArray, OpResult, OpDepth:
		return false
	}
	return true
}

// pureExpr reports whether x can be computed twice with the same word, or
// the same failure: no impure op in it.
func pureExpr(x *Expr) bool {
	if !pureOp(x.Op) {
		return false
	}
	for _, a := range x.Args {
		if !pureExpr(a) {
			return false
		}
	}
	return true
}

// worthHoisting reports whether x costs more than the register that would
// hold it: it carries a check, or multiplies, divides or loads. A variable
// masked by a constant (Exact's width check of a row or column index, an
// and and a branch) is not: the generator knows facts about the variable
// (a row index below the row count, amd64_rows.go) that a new variable
// would not carry, and the loads it indexes would check again.
func worthHoisting(x *Expr) bool {
	if x.Op == OpAnd && x.Args[0].Op == OpVar && x.Args[1].Op == OpConst {
		return false
	}
	if x.Check >= 0 {
		return true
	}
	switch x.Op {
	case OpMul, OpDiv, OpMod, OpMulHi, OpLoad, OpLoad2, OpRowLen:
		return true
	}
	for _, a := range x.Args {
		if worthHoisting(a) {
			return true
		}
	}
	return false
}

// leaves reports whether s (nested statements included) may leave the
// loop it is in, or end the run, other than by a failed check: a break,
// a continue or a return.
func leaves(s *Stmt) bool {
	found := false
	eachStmt([]Stmt{*s}, func(t *Stmt) {
		switch t.Kind {
		case SBreak, SContinue, SReturn, SWhile, SForRange, SForSubsets, SForBits:
			found = true
		}
	})
	return found
}
