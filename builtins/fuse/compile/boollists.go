package compile

import (
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Lists of bools (Options.Exact): a scratch list made by [False] * N or
// [True] * N (visited, a sieve's is_prime) holds its bools as the words 0
// and 1. Its element is read as a bool (the word != 0, which Starlark
// types as a bool, so that fuse.Func.Exact allows it only where a bool
// may go: a condition, not, a comparison with a bool, a return, a bool
// local), and only a bool is stored in it. So that its elements are bools
// wherever the interpreter's would be, the name is used only in the ways
// boolListUses allows: indexed, stored into with = of a value that is a
// bool by its syntax, passed to len, and assigned [B] * N; a list that
// would leave the function (returned, passed, iterated, copied) keeps the
// function interpreted.

// isBoolRepeat reports whether e is [B] * N or N * [B], B True or False.
func isBoolRepeat(e syntax.Expr) bool {
	b, ok := unparen(e).(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.STAR {
		return false
	}
	l, ok := unparen(b.X).(*syntax.ListExpr)
	if !ok {
		l, ok = unparen(b.Y).(*syntax.ListExpr)
	}
	if !ok || len(l.List) != 1 {
		return false
	}
	id, ok := unparen(l.List[0]).(*syntax.Ident)
	return ok && (id.Name == "True" || id.Name == "False")
}

// isBoolSyntax reports whether e's value is a bool whatever its operands
// hold: True, False, a comparison, not x, bool(x), or an element of one
// of the lists of bools in lists.
func isBoolSyntax(e syntax.Expr, lists map[string]error) bool {
	switch e := unparen(e).(type) {
	case *syntax.Ident:
		return e.Name == "True" || e.Name == "False"
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE:
			return true
		}
	case *syntax.UnaryExpr:
		return e.Op == syntax.NOT
	case *syntax.CallExpr:
		name, ok := callee(e)
		return ok && name == "bool" && len(e.Args) == 1
	case *syntax.IndexExpr:
		id, ok := unparen(e.X).(*syntax.Ident)
		if ok {
			err, isList := lists[id.Name]
			return isList && err == nil
		}
	}
	return false
}

// boolListUses returns the names body assigns [B] * N, each with nil
// where every use of it is one a list of bools allows (see above), else
// the error that keeps the function interpreted.
func boolListUses(body []syntax.Stmt) map[string]error {
	var lists map[string]error
	walk := func(f func(n syntax.Node) bool) {
		for _, s := range body {
			syntax.Walk(s, f)
		}
	}
	walk(func(n syntax.Node) bool {
		if a, ok := n.(*syntax.AssignStmt); ok && a.Op == syntax.EQ && isBoolRepeat(a.RHS) {
			if id, ok := unparen(a.LHS).(*syntax.Ident); ok {
				if lists == nil {
					lists = map[string]error{}
				}
				lists[id.Name] = nil
			}
		}
		return true
	})
	if lists == nil {
		return nil
	}
	allowed := map[*syntax.Ident]bool{}
	fail := func(name string, err error) {
		if lists[name] == nil {
			lists[name] = err
		}
	}
	listIdent := func(e syntax.Expr) *syntax.Ident {
		if id, ok := unparen(e).(*syntax.Ident); ok {
			if _, isList := lists[id.Name]; isList {
				return id
			}
		}
		return nil
	}
	walk(func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			if id := listIdent(n.LHS); id != nil && n.Op == syntax.EQ && isBoolRepeat(n.RHS) {
				allowed[id] = true
			}
			if ix, ok := unparen(n.LHS).(*syntax.IndexExpr); ok {
				if id := listIdent(ix.X); id != nil {
					if n.Op != syntax.EQ {
						fail(id.Name, errAt(n.OpPos, "%s is a list of bools; a function run as machine code only stores bools in it (%s[i] = True)", id.Name, id.Name))
					} else if !isBoolSyntax(n.RHS, lists) {
						fail(id.Name, errAt(pos(n.RHS), "%s is a list of bools; a function run as machine code stores in it only True, False, a comparison, not x or bool(x)", id.Name))
					}
				}
			}
		case *syntax.IndexExpr:
			if id := listIdent(n.X); id != nil {
				allowed[id] = true
			}
		case *syntax.CallExpr:
			if name, ok := callee(n); ok && name == "len" && len(n.Args) == 1 {
				if id := listIdent(n.Args[0]); id != nil {
					allowed[id] = true
				}
			}
		}
		return true
	})
	walk(func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && !allowed[id] {
			if _, isList := lists[id.Name]; isList {
				fail(id.Name, errAt(id.NamePos, "%s is a list of bools; a function run as machine code only indexes it, stores bools in it and takes its len", id.Name))
			}
		}
		return true
	})
	return lists
}

// boolRead is the read raw of a list of bools: the word != 0, a bool.
func boolRead(raw *fuse.Expr) *fuse.Expr {
	return &fuse.Expr{Op: fuse.OpNe, Args: []*fuse.Expr{raw, constExpr(0)}, Check: -1}
}

// boolWord is the word a list of bools holds for the bool x: x ? 1 : 0,
// whose condition fuse.Func.Exact types as one.
func boolWord(x *fuse.Expr) *fuse.Expr {
	if x.Op == fuse.OpBool && x.Args[0].Op == fuse.OpConst {
		return constExpr(x.Args[0].Imm) // True, False
	}
	return &fuse.Expr{Op: fuse.OpCond, Args: []*fuse.Expr{x, constExpr(1), constExpr(0)}, Check: -1}
}

// boolStored returns the word a list of bools (named aid) holds for x,
// the value of rhs: a bool as it compiled too (a comparison, a not,
// True or False, an element of a list of bools), not only by its syntax
// (a module's own bool() returns what it likes).
func (c *compiler) boolStored(x *fuse.Expr, aid *syntax.Ident, rhs syntax.Expr) (*fuse.Expr, error) {
	switch x.Op {
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe, fuse.OpLNot, fuse.OpBool:
		if !c.madeExact[x] {
			return boolWord(x), nil
		}
	}
	return nil, errAt(pos(rhs), "%s is a list of bools; a function run as machine code stores in it only True, False, a comparison, not x or bool(x)", aid.Name)
}

// isBoolArray reports whether the unit's scratch array id is a list of
// bools.
func (c *compiler) isBoolArray(id int) bool {
	return c.boolArrays[arrayOf{c.proc, id}]
}

// markBoolArray records the scratch array name holds (just assigned
// [B] * N) as a list of bools.
func (c *compiler) markBoolArray(name string) {
	b, ok := c.scope.names[name]
	if !ok || b.kind != bScratch {
		return
	}
	if c.boolArrays == nil {
		c.boolArrays = map[arrayOf]bool{}
	}
	c.boolArrays[arrayOf{c.proc, b.id}] = true
}
