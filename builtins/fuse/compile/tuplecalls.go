package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// This file compiles a, b = helper(...), where the helper returns a tuple
// of words on every path (return q, r): the helper is inlined, and each
// of its returns assigns the tuple's words to variables the caller's
// names then get.

// tupleHelper reports whether call calls a function of the module (or,
// for the checker, a def of the script) whose every return is a tuple of
// n values written out.
func (c *compiler) tupleHelper(call *syntax.CallExpr, n int) bool {
	name, ok := callee(call)
	if !ok {
		return false
	}
	if _, local := c.scope.names[name]; local || c.scope.locals[name] {
		return false
	}
	if c.opt.CheckOnly && c.opt.Defs != nil {
		if src, ok := c.opt.Defs(name); ok {
			return returnsTuples(src, n)
		}
	}
	v, ok := c.scope.src.Free(name)
	fn, isFn := v.(*starlark.Function)
	if !ok || !isFn || c.opt.CheckOnly || c.opt.Helper == nil {
		return false
	}
	src, err := c.opt.Helper(fn)
	if err != nil {
		return false
	}
	return returnsTuples(src, n)
}

// returnsTuples reports whether every return of src returns a tuple of n
// values written out (and there is one).
func returnsTuples(src *Source, n int) bool {
	r := returnsOf(src.Body)
	if r.values > 0 || r.bare > 0 || len(r.tuples) == 0 {
		return false
	}
	for _, k := range r.tuples {
		if k != n {
			return false
		}
	}
	return true
}

// tupleCall compiles call, a helper that returns tuples of n words
// (tupleHelper), inlined, and returns the variables that hold the words
// of the tuple it returned.
func (c *compiler) tupleCall(call *syntax.CallExpr, n int) ([]int, error) {
	if c.wantTuple == nil {
		c.wantTuple = map[*syntax.CallExpr][]int{}
	}
	vars := make([]int, n)
	for i := range vars {
		vars[i] = c.newVar()
	}
	c.wantTuple[call] = vars
	defer delete(c.wantTuple, call)
	x, err := c.expr(call)
	if err != nil {
		return nil, err
	}
	if x.Op != fuse.OpConst {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.newVar(), X: x})
	}
	return vars, nil
}

// tupleReturn compiles return a, b of an inlined helper whose caller
// unpacks its tuple (scope.tupleVars): every element, then their
// assignment to the caller's variables, then the helper's end.
func (c *compiler) tupleReturn(s *syntax.ReturnStmt, t *syntax.TupleExpr) error {
	if len(t.List) != len(c.scope.tupleVars) {
		return errAt(s.Return, "the helper returns a tuple of %d values; its caller unpacks %d", len(t.List), len(c.scope.tupleVars))
	}
	tmps := make([]*fuse.Expr, len(t.List))
	for i, e := range t.List {
		x, err := c.word(e)
		if err != nil {
			return err
		}
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
		tmps[i] = varExpr(v)
	}
	for i, x := range tmps {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.scope.tupleVars[i], X: x})
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.scope.retVar, X: constExpr(0)})
	c.emit(fuse.Stmt{Kind: fuse.SBreak, Label: c.scope.retLabel})
	return nil
}
