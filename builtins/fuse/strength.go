package fuse

// StrengthReduce turns the products of a range loop's variable by a wide
// constant into running sums: in
//
//	for i in range(start, stop, step): ... (mul C i) ...
//
// with C a constant that no 32-bit immediate holds (a hash's multiplier)
// and the product unchecked (a word mod 2^64: the Exact pass left it no
// check, since only its low word is read), the product becomes a new
// variable s, set before the loop to C*start - C*step and raised by
// C*step at the head of each iteration; the same for the affine
// (add (mul C i) K) with K a constant, whose sum s then holds. Words wrap
// mod 2^64, a ring, so s equals the product (or the sum) at every point of
// every iteration whatever the words: the loop's variable is bound to
// start, start+step, ... mod 2^64 (FlowState.Eval) and must not be
// assigned in the body. It is the strength reduction of compilers (Aho,
// Lam, Sethi and Ullman, "Compilers", 2nd ed., section 9.7.6, induction
// variables): one add for the multiply of 64 bits and its two wide
// constants. Only loops whose start and step are constants or variables
// the body does not assign are reduced; products by small constants are
// left to the engines (an LEA or a multiply by an immediate, and the
// bounds the x86-64 generator derives from them to drop index checks).
func (f *Func) StrengthReduce() {
	f.beforeRangeLoops(strengthLoop)
}

// A reduction is one running sum of a loop: s holds C*i + K.
type reduction struct {
	c, k uint64
	s    int
}

// strengthLoop reduces the products of loop s's variable in its body (s is
// changed in place) and returns the assignments to run before it.
func strengthLoop(s *Stmt, vars *int) []Stmt {
	if !invariantLeaf(s.X, s.Body) || !invariantLeaf(s.Z, s.Body) || assigns(s.Body, s.Var) {
		return nil
	}
	var found []reduction
	sumOf := func(c, k uint64) *Expr {
		for _, r := range found {
			if r.c == c && r.k == k {
				return varExpr(r.s)
			}
		}
		found = append(found, reduction{c: c, k: k, s: *vars})
		*vars++
		return varExpr(found[len(found)-1].s)
	}
	var rewrite func(x *Expr) *Expr
	rewrite = func(x *Expr) *Expr {
		if x == nil {
			return nil
		}
		if c, ok := wideProduct(x, s.Var); ok {
			return sumOf(c, 0)
		}
		if x.Op == OpAdd && x.Check < 0 && len(x.Args) == 2 {
			for j := range 2 {
				if c, ok := wideProduct(x.Args[j], s.Var); ok && x.Args[1-j].Op == OpConst {
					return sumOf(c, x.Args[1-j].Imm)
				}
			}
		}
		var args []*Expr
		for j, a := range x.Args {
			if b := rewrite(a); b != a {
				if args == nil {
					args = append([]*Expr(nil), x.Args...)
				}
				args[j] = b
			}
		}
		if args == nil {
			return x
		}
		y := *x
		y.Args = args
		return &y
	}
	s.Body = rewriteStmts(s.Body, rewrite)
	if len(found) == 0 {
		return nil
	}
	var pre, head []Stmt
	for _, r := range found {
		// s = C*start + K - C*step before the loop; s += C*step first in
		// each iteration, so that a continue needs nothing.
		step := mulBy(r.c, s.Z)
		if step.Op != OpConst || int64(step.Imm) != int64(int32(step.Imm)) {
			v := *vars
			*vars++
			pre = append(pre, Stmt{Kind: SAssign, Var: v, X: step, Check: -1})
			step = varExpr(v)
		}
		init := folded(OpSub, folded(OpAdd, mulBy(r.c, s.X), constExpr(r.k)), mulBy(r.c, s.Z))
		pre = append(pre, Stmt{Kind: SAssign, Var: r.s, X: init, Check: -1})
		head = append(head, Stmt{Kind: SAssign, Var: r.s, X: folded(OpAdd, varExpr(r.s), step), Check: -1})
	}
	s.Body = append(head, s.Body...)
	return pre
}

// wideProduct reports whether x is an unchecked product of variable v by a
// constant C that no sign-extended 32-bit immediate holds, and gives C.
func wideProduct(x *Expr, v int) (uint64, bool) {
	if x.Op != OpMul || x.Check >= 0 || len(x.Args) != 2 {
		return 0, false
	}
	for j := range 2 {
		c, y := x.Args[j], x.Args[1-j]
		if c.Op == OpConst && y.Op == OpVar && int(y.Imm) == v && int64(c.Imm) != int64(int32(c.Imm)) {
			return c.Imm, true
		}
	}
	return 0, false
}

// invariantLeaf reports whether x is a constant or a variable that body
// does not assign.
func invariantLeaf(x *Expr, body []Stmt) bool {
	return x != nil && x.Check < 0 && (x.Op == OpConst || x.Op == OpVar && !assigns(body, int(x.Imm)))
}

// assigns reports whether a statement of ss (nested ones included) binds
// variable v: an assignment, or a loop over it.
func assigns(ss []Stmt, v int) bool {
	found := false
	eachStmt(ss, func(s *Stmt) {
		switch s.Kind {
		case SAssign, SForRange, SForSubsets, SForBits:
			found = found || s.Var == v
		}
	})
	return found
}

// rewriteStmts returns ss with each expression x replaced by rewrite(x),
// copying the statements it changes; ss itself is not changed.
func rewriteStmts(ss []Stmt, rewrite func(*Expr) *Expr) []Stmt {
	out := make([]Stmt, len(ss))
	for i, s := range ss {
		s.X, s.Y, s.Z = rewrite(s.X), rewrite(s.Y), rewrite(s.Z)
		s.Body = rewriteStmts(s.Body, rewrite)
		s.Else = rewriteStmts(s.Else, rewrite)
		out[i] = s
	}
	return out
}

// mulBy returns C*x, folded where x is a constant.
func mulBy(c uint64, x *Expr) *Expr {
	if x.Op == OpConst {
		return constExpr(c * x.Imm)
	}
	return folded(OpMul, constExpr(c), x)
}

// folded returns the unchecked op of x and y, folded where both are
// constants (op is OpAdd, OpSub, OpMul or OpXor: words mod 2^64).
func folded(op Op, x, y *Expr) *Expr {
	if x.Op == OpConst && y.Op == OpConst {
		switch op {
		case OpAdd:
			return constExpr(x.Imm + y.Imm)
		case OpSub:
			return constExpr(x.Imm - y.Imm)
		case OpMul:
			return constExpr(x.Imm * y.Imm)
		case OpXor:
			return constExpr(x.Imm ^ y.Imm)
		}
	}
	return binary(op, x, y)
}
