package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// Tuple locals. A local whose every assignment is a tuple of k values
// written out (start = (0, 0), nb = (r + dr, c + dc)) or a tuple read
// from a list of tuples (cur = q.pop(0), p = q[i]), and whose every for
// loop runs over such a list (for p in pairs), holds its k words in k
// variables: unpacked (r, c = cur), appended to a list of tuples
// (q.append(nb), q = [start]), and used as a key of a set or dict
// (nb in seen, dist[nb] = d). Any other use of it (returned, compared,
// an int) leaves the function interpreted.

// bTupleLocal is the binding of a name to a tuple: id indexes
// compiler.tupleLocals.
const bTupleLocal = bHash + 2

// tupleLocalNamed returns the variables of the tuple local e names.
func (c *compiler) tupleLocalNamed(e syntax.Expr) ([]int, bool) {
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return nil, false
	}
	b, ok := c.scope.names[id.Name]
	if !ok || b.kind != bTupleLocal {
		return nil, false
	}
	return c.tupleLocals[b.id], true
}

// tupleLocalVars returns the variables of the tuple local name, making
// them where it has none yet; ok is false where name holds no tuple.
func (c *compiler) tupleLocalVars(id *syntax.Ident) ([]int, bool, error) {
	k, ok := c.tupleNames().locals[id.Name]
	if !ok || !c.opt.Exact {
		return nil, false, nil
	}
	c.unhide(id.Name)
	if b, ok := c.scope.names[id.Name]; ok {
		if b.kind != bTupleLocal {
			return nil, true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
		}
		return c.tupleLocals[b.id], true, nil
	}
	vars := make([]int, k)
	for i := range vars {
		vars[i] = c.newVar()
		c.varNames[[2]int{c.unit, vars[i]}] = id.Name
	}
	c.tupleLocals = append(c.tupleLocals, vars)
	c.scope.names[id.Name] = binding{kind: bTupleLocal, id: len(c.tupleLocals) - 1}
	return vars, true, nil
}

// tupleLocalAssign compiles name = (a, b), name = q[i] and name =
// q.pop(); it reports false where name is no tuple local.
func (c *compiler) tupleLocalAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	k, ok := c.tupleNames().locals[id.Name]
	if !ok || !c.opt.Exact {
		return false, nil
	}
	var vals []*fuse.Expr
	if t, ok := unparen(rhs).(*syntax.TupleExpr); ok {
		var err error
		if vals, err = c.tupleWords(t); err != nil {
			return true, err
		}
	} else {
		var ok bool
		var err error
		vals, ok, err = c.tupleListRead(rhs, k)
		if err != nil {
			return true, err
		}
		if !ok {
			return true, errAt(pos(rhs), "%s holds a tuple; a fused function assigns it a tuple or a list's tuple", id.Name)
		}
	}
	vars, _, err := c.tupleLocalVars(id)
	if err != nil {
		return true, err
	}
	if len(vals) != len(vars) {
		return true, errAt(pos(rhs), "%s holds tuples of %d values, not %d", id.Name, len(vars), len(vals))
	}
	for i, v := range vals {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vars[i], X: v})
	}
	return true, nil
}

// isTupleExpr reports whether e is a tuple written out.
func isTupleExpr(e syntax.Expr) bool {
	_, ok := unparen(e).(*syntax.TupleExpr)
	return ok
}

// tupleOfWords returns the words of the tuple e, a tuple written out or
// a tuple local, each evaluated, in order, into a variable of its own;
// ok is false where e is neither.
func (c *compiler) tupleOfWords(e syntax.Expr) ([]*fuse.Expr, bool, error) {
	if t, ok := unparen(e).(*syntax.TupleExpr); ok {
		vals, err := c.tupleWords(t)
		return vals, true, err
	}
	vars, ok := c.tupleLocalNamed(e)
	if !ok {
		return nil, false, nil
	}
	vals := make([]*fuse.Expr, len(vars))
	for i, v := range vars {
		// A copy: the tuple's words as they are now.
		t := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: varExpr(v)})
		vals[i] = varExpr(t)
	}
	return vals, true, nil
}

// tupleEq compiles x == y and x != y where x or y is a tuple (written
// out, or a tuple local): equal where both are tuples of the same length
// and equal ints; a tuple and an int are never equal. It reports false
// where neither side is a tuple.
func (c *compiler) tupleEq(op syntax.Token, at syntax.Position, xe, ye syntax.Expr) (*fuse.Expr, bool, error) {
	_, xl := c.tupleLocalNamed(xe)
	_, yl := c.tupleLocalNamed(ye)
	xt, yt := xl || isTupleExpr(xe), yl || isTupleExpr(ye)
	if !xt && !yt || !c.opt.Exact {
		return nil, false, nil
	}
	words := func(e syntax.Expr, tuple bool) ([]*fuse.Expr, error) {
		if tuple {
			vals, _, err := c.tupleOfWords(e)
			return vals, err
		}
		x, err := c.word(e)
		if err != nil {
			return nil, err
		}
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.newVar(), X: x})
		return nil, nil
	}
	xs, err := words(xe, xt)
	if err != nil {
		return nil, true, err
	}
	ys, err := words(ye, yt)
	if err != nil {
		return nil, true, err
	}
	var eq *fuse.Expr
	if xt && yt && len(xs) == len(ys) {
		for i := range xs {
			e := mk(fuse.OpEq, xs[i], ys[i])
			if eq == nil {
				eq = e
			} else {
				eq = mk(fuse.OpAndThen, eq, e)
			}
		}
	} else {
		eq = boolConst(false)
	}
	if op == syntax.NEQ {
		return mk(fuse.OpLNot, eq), true, nil
	}
	return eq, true, nil
}
