package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// More of natural code: abs of a difference (a distance, abs(i - j)) and
// of a local holding a negative int, q, r = divmod(a, b), xs.index(v)
// of a scratch list, and xs.remove(v), xs.extend(ys) and xs.clear() of a
// list built by append.

// absOf compiles abs(x - y) as the difference of the larger and the
// smaller (no negative int in between), and abs(d) of a biased local;
// it reports false for any other abs.
func (c *compiler) absOf(e *syntax.CallExpr) (*fuse.Expr, bool, error) {
	if len(e.Args) != 1 || !c.opt.Exact {
		return nil, false, nil
	}
	if kv, ok := e.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return nil, false, nil
	}
	var x, y *fuse.Expr
	switch a := unparen(e.Args[0]).(type) {
	case *syntax.BinaryExpr:
		if a.Op != syntax.MINUS || c.wideSite(a.Op, a.X, a.Y) {
			return nil, false, nil
		}
		var err error
		if x, err = c.word(a.X); err != nil {
			return nil, true, err
		}
		mark := len(*c.out)
		if y, err = c.word(a.Y); err != nil {
			return nil, true, err
		}
		x = c.before(x, mark)
	case *syntax.Ident:
		if b, ok := c.scope.names[a.Name]; !ok || b.kind != bVar || b.bias == 0 {
			return nil, false, nil // (a word's abs is itself; a bool's, Starlark's error)
		}
		v, err := c.word(a)
		if err != nil {
			return nil, true, err
		}
		raw, k := c.biasOf(v)
		if k == 0 {
			return c.mk(fuse.OpAbs, v), true, nil
		}
		// The int raw - k: its absolute value.
		x, y = raw, constExpr(k)
		if raw.Op == fuse.OpConst {
			return constExpr(k - raw.Imm), true, nil
		}
	default:
		return nil, false, nil
	}
	// Both biased alike (a biased int, a negative constant), their
	// difference is the words'.
	_, kx := c.biasOf(x)
	_, ky := c.biasOf(y)
	k := max(kx, ky)
	a, b := c.newVar(), c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: a, X: c.biasedTo(x, k)})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b, X: c.biasedTo(y, k)})
	r := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpGe, varExpr(a), varExpr(b)),
		Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: c.exactExpr(mk(fuse.OpSub, varExpr(a), varExpr(b)))}},
		Else: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: c.exactExpr(mk(fuse.OpSub, varExpr(b), varExpr(a)))}}})
	return varExpr(r), true, nil
}

// divmodAssign compiles q, r = divmod(a, b) of the builtin; it reports
// false where rhs is no such call.
func (c *compiler) divmodAssign(lhs []syntax.Expr, rhs syntax.Expr) (bool, error) {
	call, ok := unparen(rhs).(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 || len(lhs) != 2 || !c.opt.Exact {
		return false, nil
	}
	if name, ok := callee(call); !ok || name != "divmod" || !c.isBuiltin(name) {
		return false, nil
	}
	var vals [2]*fuse.Expr
	for i, a := range call.Args {
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			return false, nil
		}
		x, err := c.word(a)
		if err != nil {
			return true, err
		}
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
		vals[i] = varExpr(v)
	}
	q, err := c.arith(syntax.SLASHSLASH, call.Lparen, vals[0], vals[1])
	if err != nil {
		return true, err
	}
	r, err := c.arith(syntax.PERCENT, call.Lparen, vals[0], vals[1])
	if err != nil {
		return true, err
	}
	qv, rv := c.newVar(), c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: qv, X: q})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: rv, X: r})
	return true, c.assignNames(lhs, func(i int) *fuse.Expr { return varExpr([]int{qv, rv}[i]) })
}

// listSearch compiles xs.index(v) of a scratch list: the first index
// holding v (where none does, Starlark's error sends the call back); it
// reports false for other calls.
func (c *compiler) listSearch(e *syntax.CallExpr, dot *syntax.DotExpr) (*fuse.Expr, bool, error) {
	name := dot.Name.Name
	if name != "index" || len(e.Args) != 1 || !c.opt.Exact {
		return nil, false, nil
	}
	b, _, n, ok := c.scratchNamed(dot.X)
	if !ok {
		return nil, false, nil
	}
	if kv, ok := e.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return nil, false, nil
	}
	x, err := c.word(e.Args[0])
	if err != nil {
		return nil, true, err
	}
	xv := c.newVar()
	k := c.biased[x]
	if k != 0 {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: xv, X: x.Args[0]})
	} else {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: xv, X: x})
	}
	nv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: nv, X: n})
	r := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: r, X: constExpr(0)})
	i := c.newVar()
	label := c.newLabel()
	elem := c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{varExpr(i)},
		Check: c.check(fuse.CheckIndex, 0, e.Lparen, "index out of range")})
	found := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: found, X: constExpr(0)})
	hit := []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: varExpr(i)}, {Kind: fuse.SAssign, Var: found, X: constExpr(1)},
		{Kind: fuse.SBreak, Label: label}}
	body, err := c.nested(func() error {
		eq, err := c.arith(syntax.EQL, e.Lparen, c.biasedRead(varExpr(xv), k), elem)
		if err != nil {
			return err
		}
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: eq, Body: hit})
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	c.emit(fuse.Stmt{Kind: fuse.SForRange, Label: label, Var: i, X: constExpr(0), Y: varExpr(nv), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, e.Lparen, "range: step argument must not be zero"), Body: body})
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(found), constExpr(0)), Body: []fuse.Stmt{
		{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, e.Lparen, "%s: value not in list", name)}}})
	return varExpr(r), true, nil
}

// forZip compiles for a, b in zip(xs, ys) over scratch lists (or slices
// of them): a loop to the shortest's length; it reports false where s is
// no such loop. The body may not change the lists.
func (c *compiler) forZip(s *syntax.ForStmt) (bool, error) {
	call, ok := unparen(s.X).(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || !c.opt.Exact {
		return false, nil
	}
	if name, ok := callee(call); !ok || name != "zip" || !c.isBuiltin(name) {
		return false, nil
	}
	vars, ok := exprList(unparen(s.Vars))
	if !ok || len(vars) != len(call.Args) {
		return false, nil
	}
	lists := make([]binding, len(call.Args))
	n := c.newVar()
	for i, a := range call.Args {
		b, _, length, ok := c.scratchNamed(a)
		if !ok {
			return false, nil
		}
		lists[i] = b
		if i == 0 {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: length})
		} else {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: mk(fuse.OpMin, varExpr(n), length)})
		}
	}
	at := pos(s.X)
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: varExpr(n), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero")}
	head, err := c.nested(func() error {
		for j, v := range vars {
			id, ok := unparen(v).(*syntax.Ident)
			if !ok {
				return errAt(pos(v), "a for loop over zip binds names in a function run as machine code")
			}
			x := c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(lists[j].id), Args: []*fuse.Expr{varExpr(i)},
				Check: c.check(fuse.CheckIndex, 0, at, "index out of range")})
			if err := c.assignVar(id, x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	ids := make([]int, len(lists))
	for j, b := range lists {
		ids[j] = b.id
	}
	return true, c.loopOver(st, head, s.Body, ids...)
}

// negIndex returns k where e is a negative int literal -k (xs[-1]).
func negIndex(e syntax.Expr) (uint64, bool) {
	v, ok := intLiteral(e)
	if !ok {
		return 0, false
	}
	i, ok := v.(starlark.Int).Int64()
	if !ok || i >= 0 || i == -1<<63 {
		return 0, false
	}
	return uint64(-i), true
}

// fromEnd returns the index of xs[-k] of the scratch array b: its length
// less k, or the array's length (out of range) where the list is shorter
// than k.
func (c *compiler) fromEnd(b binding, k uint64) *fuse.Expr {
	n := constExpr(uint64(c.proc.Scratch[b.id].Len))
	if b.count != 0 {
		n = varExpr(b.count - 1)
	}
	v := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
		mk(fuse.OpGe, n, constExpr(k)), c.exactExpr(mk(fuse.OpSub, n, constExpr(k))), constExpr(uint64(c.proc.Scratch[b.id].Len))}}})
	return varExpr(v)
}
