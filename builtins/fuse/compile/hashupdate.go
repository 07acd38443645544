package compile

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// More of what natural code does with a set or dict of words:
// d.setdefault(k, v), s.update(xs) and d.update(e) (written as the loops
// Starlark runs: for x in xs: s.add(x), for k, v in e.items(): d[k] = v),
// and s = set(xs) of a list, a list comprehension or another set.

// hashMethodMore compiles setdefault and update; it reports false for
// any other method.
func (c *compiler) hashMethodMore(h *hashTable, id *syntax.Ident, e *syntax.CallExpr, dot *syntax.DotExpr) (*fuse.Expr, bool, error) {
	at := e.Lparen
	switch name := dot.Name.Name; {
	case name == "setdefault" && h.dict && len(e.Args) == 2:
		kv, err := c.hashKey(h, e.Args[0])
		if err != nil {
			return nil, true, err
		}
		d, err := c.word(e.Args[1])
		if err != nil {
			return nil, true, err
		}
		dv := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: dv, X: c.biasedTo(d, 0)})
		if c.hashWritable(h, at) {
			return constExpr(0), true, nil
		}
		p, i := c.hashProbe(h, kv, at)
		r := c.newVar()
		insert, _ := c.nested(func() error {
			c.hashInsert(h, kv, p, i, at)
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: h.vals, X: varExpr(p), Y: varExpr(dv),
				Check: c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table")})
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: r, X: varExpr(dv)})
			return nil
		})
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)), Body: insert,
			Else: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: c.hashRead(h.vals, varExpr(p), at)}}})
		return varExpr(r), true, nil
	case name == "update" && len(e.Args) == 1:
		if _, ok := e.Args[0].(*syntax.BinaryExpr); ok && e.Args[0].(*syntax.BinaryExpr).Op == syntax.EQ {
			return nil, false, nil
		}
		if !c.discarded[e] {
			return nil, true, errAt(pos(e.Fn), "%s.update returns None, which is not a word: call it as a statement", id.Name)
		}
		return constExpr(0), true, c.hashUpdate(h, id, e.Args[0], at)
	}
	return nil, false, nil
}

// hashUpdate compiles the loop of h.update(x) (or of h = set(x), with h
// made empty): x is a list (or a list comprehension) of words for a set,
// a set or dict (its keys) for a set, a dict or a list of pairs for a
// dict.
func (c *compiler) hashUpdate(h *hashTable, id *syntax.Ident, x syntax.Expr, at syntax.Position) error {
	u := &syntax.Ident{NamePos: at, Name: " update"}
	v := &syntax.Ident{NamePos: at, Name: " update value"}
	method := func(recv *syntax.Ident, name string, args ...syntax.Expr) *syntax.CallExpr {
		return &syntax.CallExpr{Fn: &syntax.DotExpr{X: recv, Dot: at, NamePos: at, Name: &syntax.Ident{NamePos: at, Name: name}},
			Lparen: at, Args: args, Rparen: at}
	}
	if h.dict {
		var over syntax.Expr
		if g, _, err := c.hashNamed(x); err != nil {
			return err
		} else if g != nil && g.dict {
			over = method(unparen(x).(*syntax.Ident), "items")
		} else if _, _, ok := c.tupleListNamed(x); ok {
			over = x
		} else {
			return errAt(pos(x), "%s.update of %s is not allowed in a function run as machine code (a dict or a list of pairs)", id.Name, describe(x))
		}
		set := &syntax.AssignStmt{OpPos: at, Op: syntax.EQ, LHS: &syntax.IndexExpr{X: id, Lbrack: at, Y: u, Rbrack: at}, RHS: v}
		return c.stmt(&syntax.ForStmt{For: at, Vars: &syntax.TupleExpr{List: []syntax.Expr{u, v}}, X: over, Body: []syntax.Stmt{set}})
	}
	add := &syntax.ExprStmt{X: method(id, "add", u)}
	if g, _, err := c.hashNamed(x); err != nil {
		return err
	} else if g != nil {
		return c.stmt(&syntax.ForStmt{For: at, Vars: u, X: x, Body: []syntax.Stmt{add}})
	}
	ok, err := c.eachElement(x, func(elem *fuse.Expr) error {
		if _, err := c.bindVar(u); err != nil {
			return err
		}
		if err := c.assignVar(u, elem); err != nil {
			return err
		}
		return c.stmt(add)
	})
	if !ok && err == nil {
		err = errAt(pos(x), "%s.update of %s is not allowed in a function run as machine code (a list, a list comprehension, a set or a dict)", id.Name, describe(x))
	}
	return err
}

// setOf compiles name = set(x) for x a list, a list comprehension, or a
// set or dict: an empty set, then its update; it reports false where rhs
// is no such call.
func (c *compiler) setOf(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	call, ok := unparen(rhs).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || !c.opt.Exact {
		return false, nil
	}
	if kv, ok := call.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return false, nil
	}
	empty := &syntax.CallExpr{Fn: call.Fn, Lparen: call.Lparen, Rparen: call.Rparen}
	if dict, ok := c.madeHash(empty); !ok || dict {
		return false, nil
	}
	reads := false
	syntax.Walk(call.Args[0], func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Ident); ok && r.Name == id.Name {
			reads = true
		}
		return !reads
	})
	if reads {
		return true, errAt(call.Lparen, "%s = set(...) reads %s in a function run as machine code (use another name)", id.Name, id.Name)
	}
	if ok, err := c.hashAssign(id, empty); !ok || err != nil {
		return true, err
	}
	h, _, err := c.hashNamed(id)
	if err != nil {
		return true, err
	}
	return true, c.hashUpdate(h, id, call.Args[0], call.Lparen)
}

// distinctLen compiles len(set(x)): a set of the function's own (a hidden
// name, one per call site), filled as s = set(x), and its length; it
// reports false where arg is no such call.
func (c *compiler) distinctLen(arg syntax.Expr) (*fuse.Expr, bool, error) {
	call, ok := unparen(arg).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || !c.opt.Exact {
		return nil, false, nil
	}
	if name, ok := callee(call); !ok || name != "set" || !c.isBuiltin(name) {
		return nil, false, nil
	}
	at := call.Lparen
	tmp := &syntax.Ident{NamePos: at, Name: fmt.Sprintf(" set %d:%d", at.Line, at.Col)}
	ok, err := c.setOf(tmp, call)
	if !ok || err != nil {
		return nil, ok, err
	}
	h, _, err := c.hashNamed(tmp)
	if err != nil || h == nil {
		return nil, true, err
	}
	return c.hashLen(h), true, nil
}
