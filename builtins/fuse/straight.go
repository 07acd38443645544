package fuse

import (
	"errors"
	"fmt"
)

// maxStraight bounds the statements of a straight line, loops unrolled: a
// longer function runs as a Func, with real loops.
const maxStraight = 1 << 14

// maxUnroll bounds the iterations of a loop that a straight line unrolls.
const maxUnroll = 64

// StraightLine lowers f to a straight line, a Line for the block
// executor and the straight-line GPU kernel, where f is one: its body
// assigns words, branches, returns and fails, and loops only over ranges
// of constant bounds of at most 64 iterations (which it unrolls); it reads
// no tables, keeps no scratch arrays, calls no helpers and computes only
// the ops of a Line. Where f is not one, the error says what stops it.
//
// Control flow becomes predication: a mask is the 0/1 value of "this item
// executes the code being lowered", both sides of a branch are computed
// and selects merge them, and every check of the function carries the
// mask of the items that really execute it, so that the Line computes
// for each item what Eval computes, and fails at the same check.
func (f *Func) StraightLine() (*Line, error) {
	switch {
	case f.Params < 1 || f.Params > 3:
		return nil, fmt.Errorf("a straight line takes 1 to 3 parameters, not %d", f.Params)
	case len(f.Procs) > 0:
		return nil, errors.New("a function that calls helpers is not a straight line")
	case len(f.Tables) > 0:
		return nil, errors.New("a function that reads tables is not a straight line")
	case len(f.Scratch) > 0:
		return nil, errors.New("a function with scratch arrays is not a straight line")
	}
	l := &lowering{f: f, b: NewBuilder(f.Params), vars: make([]Value, f.Vars), mask: NoMask}
	for i := range l.vars {
		l.vars[i] = NoMask // not assigned yet: reads 0
	}
	for i := 0; i < f.Params; i++ {
		l.vars[i] = l.b.Param(i)
	}
	l.done, l.ret = l.b.Const(0), l.b.Const(0)
	if err := l.stmts(f.Body); err != nil {
		return nil, err
	}
	return l.b.Finish(l.ret), nil
}

// lowering is the state of StraightLine: mask is the mask of the code
// being lowered (NoMask: every item), done the 0/1 value of "this item has
// returned", ret the results of those that have.
type lowering struct {
	f    *Func
	b    *Builder
	vars []Value
	mask Value
	done Value
	ret  Value
	// work counts the statements lowered, unrolled loops counting each
	// iteration: past maxStraight the function is not a straight line.
	work int
}

// and returns the 0/1 mask "a and b", where NoMask is all ones.
func (l *lowering) and(a, b Value) Value {
	if a == NoMask {
		return b
	}
	if b == NoMask {
		return a
	}
	for _, p := range [][2]Value{{a, b}, {b, a}} {
		if k, ok := l.b.IsConst(p[0]); ok {
			if k == 0 {
				return p[0]
			}
			return p[1]
		}
	}
	return l.b.Op2(OpAnd, a, b, 0)
}

// live is the mask of the items that execute the current statement: those
// of mask that have not returned.
func (l *lowering) live() Value {
	if k, ok := l.b.IsConst(l.done); ok && k == 0 {
		return l.mask
	}
	return l.and(l.mask, l.b.Op1(OpLNot, l.done, 0))
}

func (l *lowering) stmts(ss []Stmt) error {
	for i := range ss {
		if l.work++; l.work > maxStraight {
			return fmt.Errorf("the function is too long for a straight line (%d statements, loops unrolled)", maxStraight)
		}
		if err := l.stmt(&ss[i]); err != nil {
			return err
		}
	}
	return nil
}

// assign sets variable v to x for the live items.
func (l *lowering) assign(v int, x Value) {
	m := l.live()
	if k, ok := l.b.IsConst(m); m == NoMask || ok && k != 0 {
		l.vars[v] = x
		return
	}
	l.vars[v] = l.b.Op3(OpSelect, m, x, l.read(v), 0)
}

// read returns the value of variable v (0 before an assignment).
func (l *lowering) read(v int) Value {
	if l.vars[v] == NoMask {
		return l.b.Const(0)
	}
	return l.vars[v]
}

func (l *lowering) stmt(s *Stmt) error {
	saved := l.mask
	defer func() { l.mask = saved }()
	l.mask = l.live()
	switch s.Kind {
	case SAssign:
		x, err := l.expr(s.X)
		if err != nil {
			return err
		}
		l.assign(s.Var, x)
		return nil
	case SIf:
		cond, err := l.expr(s.X)
		if err != nil {
			return err
		}
		outer := l.mask
		l.mask = l.and(outer, l.b.Op1(OpBool, cond, 0))
		if err := l.stmts(s.Body); err != nil {
			return err
		}
		l.mask = l.and(outer, l.b.Op1(OpLNot, cond, 0))
		return l.stmts(s.Else)
	case SForRange:
		if s.X.Op != OpConst || s.Y.Op != OpConst || s.Z.Op != OpConst || s.Z.Imm == 0 {
			return errors.New("a loop whose range is not constant is not a straight line")
		}
		start, stop, step := s.X.Imm, s.Y.Imm, s.Z.Imm
		n := RangeLen(start, stop, step)
		if n > maxUnroll {
			return fmt.Errorf("a loop of %d iterations is not a straight line (at most %d)", n, maxUnroll)
		}
		if hasBranch(s.Body, s.Label) {
			return errors.New("a loop left by break or continue is not a straight line")
		}
		outer := l.mask
		for x := start; n > 0; n, x = n-1, x+step {
			l.mask = l.and(outer, l.b.Op1(OpLNot, l.done, 0))
			l.assign(s.Var, l.b.Const(x))
			if err := l.stmts(s.Body); err != nil {
				return err
			}
		}
		return nil
	case SReturn:
		v, err := l.expr(s.X)
		if err != nil {
			return err
		}
		m := l.mask
		if m == NoMask {
			m = l.b.Const(1)
		}
		l.ret = l.b.Op3(OpSelect, m, v, l.ret, 0)
		l.done = l.b.Op2(OpOr, l.done, m, 0)
		return nil
	case SFail:
		c := l.f.Checks[s.Check]
		if s.X != nil {
			if _, err := l.expr(s.X); err != nil {
				return err
			}
		}
		if c.Kind == CheckReturned {
			// The items that reach it have not returned: A is done.
			l.b.Check(Check{Kind: CheckReturned, A: l.done, Mask: saved, Msg: c.Msg, File: c.File, Line: c.Line, Col: c.Col})
			return nil
		}
		// Every item that reaches it fails.
		l.b.Check(Check{Kind: CheckNonZero, A: l.b.Const(0), Mask: l.mask, Msg: c.Msg, File: c.File, Line: c.Line, Col: c.Col})
		return nil
	}
	return fmt.Errorf("a function with %s statements is not a straight line", stmtNames[s.Kind])
}

// hasBranch reports whether a break or continue of label is in ss.
func hasBranch(ss []Stmt, label int) bool {
	for i := range ss {
		s := &ss[i]
		if (s.Kind == SBreak || s.Kind == SContinue) && s.Label == label || hasBranch(s.Body, label) || hasBranch(s.Else, label) {
			return true
		}
	}
	return false
}

func (l *lowering) expr(e *Expr) (Value, error) {
	switch e.Op {
	case OpConst:
		return l.b.Const(e.Imm), nil
	case OpVar:
		return l.read(int(e.Imm)), nil
	case OpAndThen, OpOrElse:
		// Args[1] runs only where Args[0] does not decide: x and y is x
		// where x is 0, y elsewhere; x or y is x where x is not 0.
		x, err := l.expr(e.Args[0])
		if err != nil {
			return 0, err
		}
		outer := l.mask
		defer func() { l.mask = outer }()
		xb := l.b.Op1(OpBool, x, 0)
		if e.Op == OpOrElse {
			xb = l.b.Op1(OpLNot, x, 0)
		}
		l.mask = l.and(outer, xb)
		y, err := l.expr(e.Args[1])
		if err != nil {
			return 0, err
		}
		return l.b.Op3(OpSelect, xb, y, x, 0), nil
	case OpCond:
		cond, err := l.expr(e.Args[0])
		if err != nil {
			return 0, err
		}
		outer := l.mask
		defer func() { l.mask = outer }()
		l.mask = l.and(outer, l.b.Op1(OpBool, cond, 0))
		t, err := l.expr(e.Args[1])
		if err != nil {
			return 0, err
		}
		l.mask = l.and(outer, l.b.Op1(OpLNot, cond, 0))
		f, err := l.expr(e.Args[2])
		if err != nil {
			return 0, err
		}
		return l.b.Op3(OpSelect, cond, t, f, 0), nil
	}
	if e.Op == OpParam || e.Op >= NumOps || len(e.Args) != e.Op.Arity() {
		return 0, fmt.Errorf("%s is not an op of a straight line", e.Op)
	}
	args := [3]Value{-1, -1, -1}
	for i, a := range e.Args {
		v, err := l.expr(a)
		if err != nil {
			return 0, err
		}
		args[i] = v
	}
	if e.Check >= 0 {
		c := l.f.Checks[e.Check]
		a, b, _, ok := Guarded(e.Op, c.Kind, args[:len(e.Args)])
		if !ok {
			return 0, fmt.Errorf("a check of kind %d on %s is not one of a straight line", c.Kind, e.Op)
		}
		l.b.Check(Check{Kind: c.Kind, A: a, B: b, Imm: c.Imm, Mask: l.mask, Msg: c.Msg, File: c.File, Line: c.Line, Col: c.Col})
	}
	return l.b.Op3(e.Op, args[0], args[1], args[2], e.Imm), nil
}
