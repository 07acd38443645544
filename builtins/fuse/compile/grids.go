package compile

import (
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Nested scratch lists (Options.Exact): board = [[V] * C for _ in
// range(R)], R and C constants, V a constant int or bool, is one scratch
// array of R * C words, row after row; board[r][c] reads and stores its
// word r * C + c, where r < R and c < C (else the run fails, and the
// interpreter gives its error). Each row is a list of its own in
// Starlark, as the array's rows are words of their own; [[V] * C] * R,
// whose rows are one list, is not such a grid. So that no row leaves the
// function, the name is used only as board[r][c] (gridUses): a row read
// as a value, the grid returned, passed, looped over or measured with len
// keeps the function interpreted.

// gridShape returns R, C and [V] * C where e is [[V] * C for _ in
// range(R)], R and C int literals or names of the module bound to ints.
func (c *compiler) gridShape(e syntax.Expr) (rows, cols uint64, row syntax.Expr, ok bool) {
	comp, isComp := unparen(e).(*syntax.Comprehension)
	if !isComp || comp.Curly || len(comp.Clauses) != 1 {
		return 0, 0, nil, false
	}
	f, isFor := comp.Clauses[0].(*syntax.ForClause)
	if !isFor {
		return 0, 0, nil, false
	}
	if _, isID := unparen(f.Vars).(*syntax.Ident); !isID {
		return 0, 0, nil, false
	}
	call, isCall := unparen(f.X).(*syntax.CallExpr)
	if !isCall || len(call.Args) != 1 {
		return 0, 0, nil, false
	}
	if name, isName := callee(call); !isName || name != "range" {
		return 0, 0, nil, false
	}
	rows, ok = c.constWord(c.scope, call.Args[0])
	if !ok {
		return 0, 0, nil, false
	}
	b, isBin := unparen(comp.Body).(*syntax.BinaryExpr)
	if !isBin || b.Op != syntax.STAR {
		return 0, 0, nil, false
	}
	l, isList := unparen(b.X).(*syntax.ListExpr)
	if !isList || len(l.List) != 1 {
		return 0, 0, nil, false
	}
	if _, isID := unparen(l.List[0]).(*syntax.Ident); !isID {
		if lit, isLit := unparen(l.List[0]).(*syntax.Literal); !isLit || lit.Token != syntax.INT {
			return 0, 0, nil, false
		}
	}
	cols, ok = c.constWord(c.scope, b.Y)
	if !ok || rows > MaxScratch || cols > MaxScratch || rows*cols > MaxScratch {
		return 0, 0, nil, false
	}
	return rows, cols, b, true
}

// gridUses returns nil where every use of the name in body is name[r][c]
// (read, stored into, updated; for a grid of bools, bools stored with =
// only, as in a list of bools) or an assignment of a grid to it, else
// the error that keeps the function interpreted.
func gridUses(body []syntax.Stmt, name string, isGrid func(syntax.Expr) bool, bools bool, lists map[string]error) error {
	var err error
	allowed := map[*syntax.Ident]bool{}
	walk := func(f func(n syntax.Node) bool) {
		for _, s := range body {
			syntax.Walk(s, f)
		}
	}
	walk(func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			if id, ok := unparen(n.LHS).(*syntax.Ident); ok && id.Name == name && n.Op == syntax.EQ && isGrid(n.RHS) {
				allowed[id] = true
			}
			if ix, ok := unparen(n.LHS).(*syntax.IndexExpr); ok && bools && err == nil {
				inner, ok := unparen(ix.X).(*syntax.IndexExpr)
				if id, isID := unparen(inner.X).(*syntax.Ident); ok && isID && id.Name == name && (n.Op != syntax.EQ || !isBoolSyntax(n.RHS, lists)) {
					err = errAt(n.OpPos, "%s is a list of lists of bools; a function run as machine code stores in it only True, False, a comparison, not x or bool(x)", name)
				}
			}
		case *syntax.IndexExpr:
			if inner, ok := unparen(n.X).(*syntax.IndexExpr); ok {
				if id, ok := unparen(inner.X).(*syntax.Ident); ok && id.Name == name {
					allowed[id] = true
				}
			}
		}
		return true
	})
	walk(func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && id.Name == name && !allowed[id] && err == nil {
			err = errAt(id.NamePos, "%s is a list of lists; a function run as machine code only reads and stores %s[r][c]", name, name)
		}
		return true
	})
	return err
}

// gridAssign compiles name = [[V] * C for _ in range(R)].
func (c *compiler) gridAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	if !c.opt.Exact {
		return false, nil
	}
	rows, cols, row, ok := c.gridShape(rhs)
	if !ok {
		return false, nil
	}
	isGrid := func(e syntax.Expr) bool {
		r, k, _, ok := c.gridShape(e)
		return ok && r == rows && k == cols
	}
	b := row.(*syntax.BinaryExpr)
	if err := gridUses(c.scope.src.Body, id.Name, isGrid, isBoolRepeat(b), c.scope.boolLists); err != nil {
		return true, err
	}
	flat := &syntax.BinaryExpr{Op: syntax.STAR, OpPos: b.OpPos, X: b.X,
		Y: &syntax.Literal{Token: syntax.INT, TokenPos: pos(b.Y), Value: int64(rows * cols)}}
	if _, err := c.scratchAssign(id, flat); err != nil {
		return true, err
	}
	if isBoolRepeat(flat) {
		c.markBoolArray(id.Name)
	}
	sb := c.scope.names[id.Name]
	if c.grids == nil {
		c.grids = map[arrayOf][2]uint64{}
	}
	c.grids[arrayOf{c.proc, sb.id}] = [2]uint64{rows, cols}
	return true, nil
}

// gridIndex returns the grid name[r][c] indexes (ix is the outer index),
// its binding, and the word of r * C + c, or r * C + c past the array
// where r >= R or c >= C; ok is false where ix indexes no grid.
func (c *compiler) gridIndex(ix *syntax.IndexExpr) (*syntax.Ident, binding, *fuse.Expr, bool, error) {
	inner, ok := unparen(ix.X).(*syntax.IndexExpr)
	if !ok || !c.opt.Exact {
		return nil, binding{}, nil, false, nil
	}
	id, ok := unparen(inner.X).(*syntax.Ident)
	if !ok {
		return nil, binding{}, nil, false, nil
	}
	b, ok := c.scope.names[id.Name]
	if !ok || b.kind != bScratch {
		return nil, binding{}, nil, false, nil
	}
	shape, ok := c.grids[arrayOf{c.proc, b.id}]
	if !ok {
		return nil, binding{}, nil, false, nil
	}
	rows, cols := shape[0], shape[1]
	r, err := c.word(inner.Y)
	if err != nil {
		return nil, b, nil, true, err
	}
	r = c.below(r, constExpr(rows), int(rows))
	rv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: rv, X: r})
	k, err := c.word(ix.Y)
	if err != nil {
		return nil, b, nil, true, err
	}
	kv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: kv, X: k})
	at := &fuse.Expr{Op: fuse.OpAdd, Args: []*fuse.Expr{
		&fuse.Expr{Op: fuse.OpMul, Args: []*fuse.Expr{varExpr(rv), constExpr(cols)}, Check: -1}, varExpr(kv)}, Check: -1}
	c.madeExact[at] = true
	c.madeExact[at.Args[0]] = true
	flat := &fuse.Expr{Op: fuse.OpCond, Args: []*fuse.Expr{c.mk(fuse.OpLt, varExpr(kv), constExpr(cols)), at, constExpr(rows * cols)}, Check: -1}
	return id, b, flat, true, nil
}
