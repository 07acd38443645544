package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// Slices of a scratch list with no step: xs[a:b], xs[a:], xs[:b], with
// Starlark's bounds (a negative constant -k counts from the end; each is
// clamped to [0, len(xs)]; an end before the start is an empty slice),
// looped over (for v in xs[1:]), reduced (sum(xs[:k])) or bound to a
// name (ys = xs[i:j], xs = xs[1:]).

// sliceOf returns the list a slice e takes, and its bounds as variables,
// where e is a slice of a scratch list without a step; ok is false where
// it is not.
func (c *compiler) sliceOf(e syntax.Expr) (b binding, lo, hi int, ok bool, err error) {
	sl, isSlice := unparen(e).(*syntax.SliceExpr)
	if !isSlice || sl.Step != nil || !c.opt.Exact {
		return binding{}, 0, 0, false, nil
	}
	b, _, n, isList := c.scratchNamed(sl.X)
	if !isList {
		return binding{}, 0, 0, false, nil
	}
	nv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: nv, X: n})
	bound := func(x syntax.Expr, dflt *fuse.Expr) (int, error) {
		v := c.newVar()
		if x == nil {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: dflt})
			return v, nil
		}
		w, k, err := c.listIndexArg(x)
		if err != nil {
			return 0, err
		}
		if w == nil {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
				mk(fuse.OpGe, varExpr(nv), constExpr(k)), c.exactExpr(mk(fuse.OpSub, varExpr(nv), constExpr(k))), constExpr(0)}}})
			return v, nil
		}
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: w})
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: mk(fuse.OpMin, varExpr(v), varExpr(nv))})
		return v, nil
	}
	if lo, err = bound(sl.Lo, constExpr(0)); err != nil {
		return binding{}, 0, 0, true, err
	}
	if hi, err = bound(sl.Hi, varExpr(nv)); err != nil {
		return binding{}, 0, 0, true, err
	}
	// An end before the start: an empty slice.
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: hi, X: mk(fuse.OpMax, varExpr(lo), varExpr(hi))})
	return b, lo, hi, true, nil
}

// eachOfSlice is eachElement over a slice; it reports false where x is no
// slice of a scratch list.
func (c *compiler) eachOfSlice(x syntax.Expr, each func(elem *fuse.Expr) error) (bool, error) {
	b, lo, hi, ok, err := c.sliceOf(x)
	if !ok || err != nil {
		return ok, err
	}
	at := unparen(x).(*syntax.SliceExpr).Lbrack
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: varExpr(lo), Y: varExpr(hi), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero")}
	body, err := c.nested(func() error {
		return each(c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{varExpr(i)},
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}))
	})
	if err != nil {
		return true, err
	}
	st.Body = body
	c.emit(st)
	return true, nil
}

// forSlice compiles for v in xs[a:b]; it reports false where s is no such
// loop. The body may not change xs (a slice is a copy in Starlark: the
// function stays interpreted).
func (c *compiler) forSlice(s *syntax.ForStmt) (bool, error) {
	id, isID := s.Vars.(*syntax.Ident)
	b, lo, hi, ok, err := c.sliceOf(s.X)
	if !ok || err != nil {
		return ok, err
	}
	if !isID {
		return true, errAt(pos(s.Vars), "a for loop over a slice takes one name in a function run as machine code")
	}
	at := unparen(s.X).(*syntax.SliceExpr).Lbrack
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: varExpr(lo), Y: varExpr(hi), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero")}
	v, err := c.bindVar(id)
	if err != nil {
		return true, err
	}
	elem := c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{varExpr(i)},
		Check: c.check(fuse.CheckIndex, 0, at, "index out of range")})
	return true, c.loopOver(st, []fuse.Stmt{{Kind: fuse.SAssign, Var: v, X: elem}}, s.Body, b.id)
}

// sliceAssign compiles name = xs[a:b]; it reports false where rhs is no
// slice of a scratch list.
func (c *compiler) sliceAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	sl, ok := unparen(rhs).(*syntax.SliceExpr)
	if !ok || sl.Step != nil || !c.scope.appended[id.Name] || !c.opt.Exact {
		return false, nil
	}
	if _, _, _, ok := c.scratchNamed(sl.X); !ok {
		return false, nil
	}
	return true, c.buildList(id, sl, sl.Lbrack, func(fill func(*fuse.Expr) error) error {
		_, err := c.eachOfSlice(sl, fill)
		return err
	})
}

// buildList binds name to a fresh list built by append of the words
// fill gives, in order (compAssign's list); where x, what fill reads,
// reads the name, the words go to a list of their own first.
func (c *compiler) buildList(id *syntax.Ident, x syntax.Node, at syntax.Position, fill func(func(*fuse.Expr) error) error) error {
	reads := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Ident); ok && r.Name == id.Name {
			reads = true
		}
		return !reads
	})
	empty := &syntax.ListExpr{Lbrack: at, Rbrack: at}
	if !reads {
		if ok, err := c.growAssign(id, empty); !ok || err != nil {
			return err
		}
		b := c.scope.names[id.Name]
		return fill(func(x *fuse.Expr) error { return c.appendWord(id, b, x, at) })
	}
	if old, ok := c.scope.names[id.Name]; ok && old.kind == bScratch && c.proc.Scratch[old.id].Bias != 0 {
		return errAt(at, "%s, a list of negative ints, is assigned a list made from itself in a function run as machine code (use another name)", id.Name)
	}
	tmp := &syntax.Ident{NamePos: id.NamePos, Name: " new " + id.Name}
	c.scope.appended[tmp.Name] = true
	if ok, err := c.growAssign(tmp, empty); !ok || err != nil {
		return err
	}
	t := c.scope.names[tmp.Name]
	if err := fill(func(x *fuse.Expr) error { return c.appendWord(id, t, x, at) }); err != nil {
		return err
	}
	if ok, err := c.growAssign(id, empty); !ok || err != nil {
		return err
	}
	b := c.scope.names[id.Name]
	c.copyArray(b.id, t.id, c.proc.Scratch[t.id].Len, varExpr(t.count-1), at)
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: varExpr(t.count - 1)})
	return nil
}
