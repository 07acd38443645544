package compile

import (
	"fmt"
	"math/big"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// fcomp translates one def or lambda into the IR. Control flow becomes
// predication: mask is the 0/1 value of "this item executes the code being
// compiled" (NoMask: every item), done says which items have returned, ret
// holds their results.
type fcomp struct {
	b      *fuse.Builder
	env    map[string]fuse.Value
	locals map[string]bool
	// free resolves a name that is neither a parameter nor a local.
	free func(name string) (starlark.Value, bool)
	// callable reports whether name, called, is bitsh's builtin (and not a
	// script's own function of the same name).
	callable func(name string) bool
	// known reports whether name is one of bitsh's builtins at all.
	known func(name string) bool
	mask  fuse.Value
	done  fuse.Value
	ret   fuse.Value
	// work counts the statements compiled, unrolled loops counting each
	// iteration: past maxStraight the function is not a straight line.
	work int
	stop func() error // Options.Stop
}

// maxStraight bounds the statements a straight line compiles (loops
// unrolled): a longer function compiles as a Func, with real loops.
const maxStraight = 1 << 14

// Program compiles src into a straight line of word operations (a Program
// for the block executor), or fails when src uses anything beyond the
// straight-line subset (loops other than range with constant bounds of at
// most 64 steps, tables, scratch arrays, helpers, ...): Func compiles those.
func Program(src *Source, opt Options) (*fuse.Program, error) {
	params, body, end := src.Params, src.Body, src.End
	if len(params) < 1 || len(params) > 3 {
		return nil, fmt.Errorf("a fused function takes 1 to 3 parameters, not %d", len(params))
	}
	c := &fcomp{b: fuse.NewBuilder(len(params)), env: map[string]fuse.Value{}, locals: map[string]bool{},
		free: src.Free, callable: src.Builtin, known: opt.Known, mask: fuse.NoMask, stop: opt.Stop}
	if c.callable == nil {
		c.callable = func(string) bool { return true }
	}
	c.done, c.ret = c.b.Const(0), c.b.Const(0)
	for i, p := range params {
		c.env[p.Name] = c.b.Param(i)
		c.locals[p.Name] = true
	}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				if id, ok := n.LHS.(*syntax.Ident); ok {
					c.locals[id.Name] = true
				}
			case *syntax.ForStmt:
				if id, ok := n.Vars.(*syntax.Ident); ok {
					c.locals[id.Name] = true
				}
			case *syntax.LambdaExpr, *syntax.DefStmt:
				return false
			}
			return true
		})
	}
	if err := c.stmts(body); err != nil {
		return nil, err
	}
	if k, ok := c.b.IsConst(c.done); !ok || k == 0 {
		c.b.Check(fuse.Check{Kind: fuse.CheckReturned, A: c.done, Mask: fuse.NoMask,
			Msg: "the function ended without return (None is not a word)", Line: int(end.Line), Col: int(end.Col)})
	}
	return c.b.Finish(c.ret), nil
}

// and returns the 0/1 mask "a and b", where NoMask is all ones.
func (c *fcomp) and(a, b fuse.Value) fuse.Value {
	if a == fuse.NoMask {
		return b
	}
	if b == fuse.NoMask {
		return a
	}
	for _, p := range [][2]fuse.Value{{a, b}, {b, a}} {
		if k, ok := c.b.IsConst(p[0]); ok {
			if k == 0 {
				return p[0]
			}
			return p[1]
		}
	}
	return c.b.Op2(fuse.OpAnd, a, b, 0)
}

// live is the mask of the items that execute the current statement: those
// of mask that have not returned.
func (c *fcomp) live() fuse.Value {
	if k, ok := c.b.IsConst(c.done); ok && k == 0 {
		return c.mask
	}
	return c.and(c.mask, c.b.Op1(fuse.OpLNot, c.done, 0))
}

func (c *fcomp) stmts(ss []syntax.Stmt) error {
	for _, s := range ss {
		if c.work++; c.work > maxStraight {
			return errAt(pos(s), "the function is too long for a straight line (%d statements, loops unrolled)", maxStraight)
		}
		if c.work%256 == 0 && c.stop != nil {
			if err := c.stop(); err != nil {
				return err
			}
		}
		if err := c.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

func (c *fcomp) assign(name string, v fuse.Value) {
	m := c.live()
	if k, ok := c.b.IsConst(m); m == fuse.NoMask || ok && k != 0 {
		c.env[name] = v
		return
	}
	old, ok := c.env[name]
	if !ok {
		old = c.b.Const(0)
	}
	c.env[name] = c.b.Op3(fuse.OpSelect, m, v, old, 0)
}

func (c *fcomp) stmt(s syntax.Stmt) error {
	saved := c.mask
	defer func() { c.mask = saved }()
	c.mask = c.live()
	switch s := s.(type) {
	case *syntax.ExprStmt:
		if lit, ok := s.X.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			return nil // a docstring
		}
		_, err := c.expr(s.X)
		return err
	case *syntax.AssignStmt:
		id, ok := s.LHS.(*syntax.Ident)
		if !ok {
			return errAt(pos(s.LHS), "assignment to %s is not allowed in a fused function (assign to a name)", describe(s.LHS))
		}
		var v fuse.Value
		var err error
		if s.Op == syntax.EQ {
			v, err = c.expr(s.RHS)
		} else {
			op := map[syntax.Token]syntax.Token{syntax.PLUS_EQ: syntax.PLUS, syntax.MINUS_EQ: syntax.MINUS,
				syntax.STAR_EQ: syntax.STAR, syntax.SLASHSLASH_EQ: syntax.SLASHSLASH, syntax.PERCENT_EQ: syntax.PERCENT,
				syntax.AMP_EQ: syntax.AMP, syntax.PIPE_EQ: syntax.PIPE, syntax.CIRCUMFLEX_EQ: syntax.CIRCUMFLEX,
				syntax.LTLT_EQ: syntax.LTLT, syntax.GTGT_EQ: syntax.GTGT}[s.Op]
			if op == 0 {
				return errAt(s.OpPos, "%s is not allowed in a fused function", s.Op)
			}
			v, err = c.binary(op, s.OpPos, s.LHS, s.RHS)
		}
		if err != nil {
			return err
		}
		c.assign(id.Name, v)
		return nil
	case *syntax.IfStmt:
		cond, err := c.expr(s.Cond)
		if err != nil {
			return err
		}
		cb := c.b.Op1(fuse.OpBool, cond, 0)
		outer := c.mask
		c.mask = c.and(outer, cb)
		if err := c.stmts(s.True); err != nil {
			return err
		}
		c.mask = c.and(outer, c.b.Op1(fuse.OpLNot, cond, 0))
		return c.stmts(s.False)
	case *syntax.ForStmt:
		id, ok := s.Vars.(*syntax.Ident)
		if !ok {
			return errAt(pos(s.Vars), "a for loop over %s is not allowed in a fused function (use one name)", describe(s.Vars))
		}
		lo, hi, step, err := c.constRange(s.X)
		if err != nil {
			return err
		}
		outer := c.mask
		for i := lo; step > 0 && i < hi || step < 0 && i > hi; i += step {
			c.mask = c.and(outer, c.b.Op1(fuse.OpLNot, c.done, 0))
			c.assign(id.Name, c.b.Const(uint64(i)))
			if err := c.stmts(s.Body); err != nil {
				return err
			}
		}
		return nil
	case *syntax.ReturnStmt:
		if s.Result == nil {
			return errAt(s.Return, "return without a value is not allowed in a fused function (it returns a word)")
		}
		v, err := c.expr(s.Result)
		if err != nil {
			return err
		}
		m := c.mask
		if m == fuse.NoMask {
			m = c.b.Const(1)
		}
		c.ret = c.b.Op3(fuse.OpSelect, m, v, c.ret, 0)
		c.done = c.b.Op2(fuse.OpOr, c.done, m, 0)
		return nil
	case *syntax.BranchStmt:
		if s.Token == syntax.PASS {
			return nil
		}
		return errAt(s.TokenPos, "%s is not allowed in a fused function", s.Token)
	case *syntax.DefStmt:
		return errAt(s.Def, "def is not allowed in a fused function")
	case *syntax.WhileStmt:
		return errAt(s.While, "while is not allowed in a fused function (use for i in range(A, B))")
	case *syntax.LoadStmt:
		return errAt(s.Load, "load is not allowed in a fused function")
	}
	start, _ := s.Span()
	return errAt(start, "this statement is not allowed in a fused function")
}

// constRange reads range(A), range(A, B) or range(A, B, C) with constant
// bounds and at most 64 steps.
func (c *fcomp) constRange(x syntax.Expr) (lo, hi, step int64, err error) {
	call, ok := x.(*syntax.CallExpr)
	if id, isID := callee(call); !ok || !isID || id != "range" || len(call.Args) < 1 || len(call.Args) > 3 {
		return 0, 0, 0, errAt(pos(x), "a for loop over %s is not allowed in a fused function (only range with constant bounds)", describe(x))
	}
	var vals []int64
	for _, a := range call.Args {
		v, err := c.expr(a)
		if err != nil {
			return 0, 0, 0, err
		}
		k, ok := c.b.IsConst(v)
		if !ok {
			return 0, 0, 0, errAt(pos(a), "range bounds in a fused function must be constants")
		}
		vals = append(vals, int64(k))
	}
	lo, step = 0, 1
	switch len(vals) {
	case 1:
		hi = vals[0]
	case 2:
		lo, hi = vals[0], vals[1]
	case 3:
		lo, hi, step = vals[0], vals[1], vals[2]
	}
	if step == 0 {
		return 0, 0, 0, errAt(pos(x), "range step is 0")
	}
	n := int64(0)
	if step > 0 && hi > lo {
		n = (hi - lo + step - 1) / step
	} else if step < 0 && lo > hi {
		n = (lo - hi - step - 1) / -step
	}
	if n > 64 {
		return 0, 0, 0, errAt(pos(x), "a loop in a fused function has at most 64 steps, not %d", n)
	}
	return lo, hi, step, nil
}

func (c *fcomp) expr(e syntax.Expr) (fuse.Value, error) {
	switch e := e.(type) {
	case *syntax.Literal:
		if e.Token != syntax.INT {
			return 0, errAt(e.TokenPos, "%s is not allowed in a fused function (values are words)", describe(e))
		}
		var x starlark.Int
		switch v := e.Value.(type) {
		case int64:
			x = starlark.MakeInt64(v)
		case *big.Int:
			x = starlark.MakeBigInt(v)
		}
		w, ok := WordOf(x)
		if !ok {
			return 0, errAt(e.TokenPos, "%s does not fit in 64 bits", shortInt(x))
		}
		return c.b.Const(w), nil
	case *syntax.Ident:
		switch e.Name {
		case "True":
			return c.b.Const(1), nil
		case "False":
			return c.b.Const(0), nil
		}
		if v, ok := c.env[e.Name]; ok {
			return v, nil
		}
		if c.locals[e.Name] {
			return 0, errAt(e.NamePos, "%s is used before it is assigned", e.Name)
		}
		v, ok := c.free(e.Name)
		if !ok {
			if WordBuiltins[e.Name] {
				return 0, errAt(e.NamePos, "%s is a builtin: call it, %s(x)", e.Name, e.Name)
			}
			if c.known != nil && c.known(e.Name) {
				return 0, errAt(e.NamePos, "%s is not allowed in a fused function", e.Name)
			}
			return 0, errAt(e.NamePos, "%s is not defined", e.Name)
		}
		w, ok := WordOf(v)
		if !ok {
			if _, isInt := v.(starlark.Int); isInt {
				return 0, errAt(e.NamePos, "%s = %s does not fit in 64 bits", e.Name, shortInt(v))
			}
			return 0, errAt(e.NamePos, "%s is a %s; a fused function may only read ints and bools", e.Name, v.Type())
		}
		return c.b.Const(w), nil
	case *syntax.ParenExpr:
		return c.expr(e.X)
	case *syntax.UnaryExpr:
		if e.X == nil {
			return 0, errAt(e.OpPos, "%s is not allowed in a fused function", e.Op)
		}
		x, err := c.expr(e.X)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case syntax.MINUS:
			return c.b.Op1(fuse.OpNeg, x, 0), nil
		case syntax.PLUS:
			return x, nil
		case syntax.TILDE:
			return c.b.Op1(fuse.OpNot, x, 0), nil
		case syntax.NOT:
			return c.b.Op1(fuse.OpLNot, x, 0), nil
		}
		return 0, errAt(e.OpPos, "unary %s is not allowed in a fused function", e.Op)
	case *syntax.BinaryExpr:
		return c.binary(e.Op, e.OpPos, e.X, e.Y)
	case *syntax.CondExpr:
		cond, err := c.expr(e.Cond)
		if err != nil {
			return 0, err
		}
		outer := c.mask
		defer func() { c.mask = outer }()
		c.mask = c.and(outer, c.b.Op1(fuse.OpBool, cond, 0))
		t, err := c.expr(e.True)
		if err != nil {
			return 0, err
		}
		c.mask = c.and(outer, c.b.Op1(fuse.OpLNot, cond, 0))
		f, err := c.expr(e.False)
		if err != nil {
			return 0, err
		}
		return c.b.Op3(fuse.OpSelect, cond, t, f, 0), nil
	case *syntax.CallExpr:
		return c.call(e)
	}
	return 0, errAt(pos(e), "%s is not allowed in a fused function", describe(e))
}

func (c *fcomp) binary(op syntax.Token, at syntax.Position, xe, ye syntax.Expr) (fuse.Value, error) {
	x, err := c.expr(xe)
	if err != nil {
		return 0, err
	}
	if op == syntax.AND || op == syntax.OR {
		// y runs only where x does not decide: x and y is x when x is
		// false, y otherwise; x or y is x when x is true.
		outer := c.mask
		defer func() { c.mask = outer }()
		xb := c.b.Op1(fuse.OpBool, x, 0)
		if op == syntax.OR {
			xb = c.b.Op1(fuse.OpLNot, x, 0)
		}
		c.mask = c.and(outer, xb)
		y, err := c.expr(ye)
		if err != nil {
			return 0, err
		}
		return c.b.Op3(fuse.OpSelect, xb, y, x, 0), nil
	}
	o, ok := binOps[op]
	if !ok {
		return 0, errAt(at, "%s is not allowed in a fused function", op)
	}
	y, err := c.expr(ye)
	if err != nil {
		return 0, err
	}
	switch o {
	case fuse.OpDiv:
		c.b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: y, Mask: c.mask, Msg: "integer division by zero", Line: int(at.Line), Col: int(at.Col)})
	case fuse.OpMod:
		c.b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: y, Mask: c.mask, Msg: "integer modulo by zero", Line: int(at.Line), Col: int(at.Col)})
	}
	return c.b.Op2(o, x, y, 0), nil
}

// call compiles a call of a word builtin. Keyword arguments are accepted
// by the builtins' own parameter names.
func (c *fcomp) call(e *syntax.CallExpr) (fuse.Value, error) {
	name, ok := callee(e)
	if !ok {
		return 0, errAt(pos(e.Fn), "calling %s is not allowed in a fused function", describe(e.Fn))
	}
	if !WordBuiltins[name] || !c.callable(name) {
		return 0, errAt(pos(e.Fn), "%s is not allowed in a fused function", name)
	}
	names, required := builtinParams(name)
	args := make([]syntax.Expr, len(names))
	for i, a := range e.Args {
		key := ""
		val := a
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			key = kv.X.(*syntax.Ident).Name
			val = kv.Y
		}
		j := i
		if key != "" {
			j = -1
			for k, n := range names {
				if n == key {
					j = k
				}
			}
			if j < 0 {
				return 0, errAt(pos(a), "%s has no parameter %s", name, key)
			}
		}
		if j >= len(names) {
			return 0, errAt(pos(a), "%s takes at most %d arguments", name, len(names))
		}
		if args[j] != nil {
			return 0, errAt(pos(a), "%s: %s given twice", name, names[j])
		}
		args[j] = val
	}
	vals := make([]fuse.Value, len(names))
	for i, a := range args {
		if a == nil {
			continue
		}
		v, err := c.expr(a)
		if err != nil {
			return 0, err
		}
		vals[i] = v
	}
	at := pos(e.Fn)
	for i := 0; i < required; i++ {
		if args[i] == nil {
			return 0, errAt(at, "%s: missing argument %s", name, names[i])
		}
	}
	check := func(kind fuse.CheckKind, a, b fuse.Value, imm uint64, msg string) {
		c.b.Check(fuse.Check{Kind: kind, A: a, B: b, Imm: imm, Mask: c.mask, Msg: msg, Line: int(at.Line), Col: int(at.Col)})
	}
	constArg := func(i int, def uint64) (uint64, error) {
		if args[i] == nil {
			return def, nil
		}
		k, ok := c.b.IsConst(vals[i])
		if !ok {
			return 0, errAt(pos(args[i]), "%s: %s must be a constant in a fused function", name, names[i])
		}
		return k, nil
	}
	width := func(i int) (uint64, error) {
		w, err := constArg(i, 64)
		if err != nil {
			return 0, err
		}
		if w != 8 && w != 16 && w != 32 && w != 64 {
			return 0, errAt(pos(args[i]), "%s: width = %d is not 8, 16, 32 or 64", name, w)
		}
		check(fuse.CheckFits, vals[0], 0, w, fmt.Sprintf("%s: x does not fit in %d bits", name, w))
		return w, nil
	}
	x := vals[0]
	switch name {
	case "popcount":
		return c.b.Op1(fuse.OpPopcount, x, 0), nil
	case "bsf", "bsr":
		check(fuse.CheckNonZero, x, 0, 0, name+": x = 0 has no one bit")
		if name == "bsf" {
			return c.b.Op1(fuse.OpBsf, x, 0), nil
		}
		return c.b.Op1(fuse.OpBsr, x, 0), nil
	case "lsb":
		return c.b.Op1(fuse.OpLsb, x, 0), nil
	case "parity":
		return c.b.Op1(fuse.OpParity, x, 0), nil
	case "gray":
		return c.b.Op1(fuse.OpGray, x, 0), nil
	case "gray_inverse":
		return c.b.Op1(fuse.OpGrayInv, x, 0), nil
	case "pdep":
		return c.b.Op2(fuse.OpPdep, x, vals[1], 0), nil
	case "pext":
		return c.b.Op2(fuse.OpPext, x, vals[1], 0), nil
	case "delta_swap":
		check(fuse.CheckDelta, vals[1], vals[2], 0, "delta_swap: delta must be 0..63 and mask << delta must neither overflow nor overlap mask")
		return c.b.Op3(fuse.OpDeltaSwap, x, vals[1], vals[2], 0), nil
	case "rotl", "rotr":
		w, err := width(2)
		if err != nil {
			return 0, err
		}
		op := fuse.OpRotl
		if name == "rotr" {
			op = fuse.OpRotr
		}
		return c.b.Op2(op, x, vals[1], w), nil
	case "reverse_bits", "swap_bytes":
		w, err := width(1)
		if err != nil {
			return 0, err
		}
		op := fuse.OpReverse
		if name == "swap_bytes" {
			op = fuse.OpSwapBytes
		}
		return c.b.Op1(op, x, w), nil
	case "debruijn_bsf":
		magic, err := constArg(1, debruijn.Default64)
		if err != nil {
			return 0, err
		}
		w, err := width(2)
		if err != nil {
			return 0, err
		}
		if magic>>w != 0 && w < 64 {
			return 0, errAt(pos(args[1]), "debruijn_bsf: magic = %#x does not fit in %d bits", magic, w)
		}
		if _, ok := debruijn.NewScanner(magic, int(w)); !ok {
			return 0, errAt(at, "debruijn_bsf: magic = %#x is not a De Bruijn magic of width %d", magic, w)
		}
		// A valid magic scans exactly as bsf does.
		check(fuse.CheckNonZero, x, 0, 0, "debruijn_bsf: x = 0 has no one bit")
		return c.b.Op1(fuse.OpBsf, x, 0), nil
	}
	return 0, errAt(at, "%s is not allowed in a fused function", name)
}
