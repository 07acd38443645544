package fuse

import "fmt"

// GuardUnassigned makes every read of a variable that may not be assigned
// yet on some path fail as Starlark does ("local variable x referenced
// before assignment"), where a fused function would read 0: a flag
// variable, 0 on entry (after a Proc's leading guards) and 1 once the
// variable is assigned, and the read v becomes v + bsf(flag), whose check
// fails where the flag is 0. name gives a variable's Starlark name (proc
// -1: the function's body), pos a read's position in the source. Reads that are certainly preceded by an
// assignment, the common case, are left alone. compile.Func runs it before
// TailCalls, whose jumps set every variable but the parameters to 0.
func (f *Func) GuardUnassigned(name func(proc, v int) string, pos func(*Expr) (file string, line, col int)) {
	f.Body = f.guardUnit(f.Body, f.Params, 0, &f.Vars, func(v int) string { return name(-1, v) }, pos)
	for i := range f.Procs {
		p := &f.Procs[i]
		p.Body = f.guardUnit(p.Body, p.Params, p.Guards(), &p.Vars, func(v int) string { return name(i, v) }, pos)
	}
}

// guardUnit is GuardUnassigned for one body, whose first params variables
// are assigned on entry and whose first guards statements read only them.
func (f *Func) guardUnit(body []Stmt, params, guards int, vars *int, name func(int) string, pos func(*Expr) (string, int, int)) []Stmt {
	a := assigned{breaks: map[int][]bool{}, conts: map[int][]bool{}, seen: map[*Expr]bool{}}
	d := make([]bool, *vars)
	for i := 0; i < params; i++ {
		d[i] = true
	}
	a.stmts(body, d)
	if len(a.unset) == 0 {
		return body
	}
	flags := map[int]int{}
	var reset []Stmt
	for _, e := range a.unset {
		v := int(e.Imm)
		fv, ok := flags[v]
		if !ok {
			fv = *vars
			*vars++
			flags[v] = fv
			reset = append(reset, Stmt{Kind: SAssign, Var: fv, X: &Expr{Op: OpConst, Check: -1}})
		}
		file, line, col := pos(e)
		f.Checks = append(f.Checks, Check{Kind: CheckNonZero, Msg: fmt.Sprintf("local variable %s referenced before assignment", name(v)), File: file, Line: line, Col: col})
		*e = Expr{Op: OpAdd, Check: -1, Args: []*Expr{
			{Op: OpVar, Imm: uint64(v), Check: -1},
			{Op: OpBsf, Check: len(f.Checks) - 1, Args: []*Expr{{Op: OpVar, Imm: uint64(fv), Check: -1}}},
		}}
	}
	out := append(append(append([]Stmt(nil), body[:guards]...), reset...), setFlags(body[guards:], flags)...)
	return out
}

// setFlags returns ss with each assignment of a variable of flags followed
// by its flag's, and each loop over one starting with it.
func setFlags(ss []Stmt, flags map[int]int) []Stmt {
	set := func(v int) Stmt {
		return Stmt{Kind: SAssign, Var: flags[v], X: &Expr{Op: OpConst, Imm: 1, Check: -1}}
	}
	var out []Stmt
	for _, s := range ss {
		s.Body = setFlags(s.Body, flags)
		s.Else = setFlags(s.Else, flags)
		_, flagged := flags[s.Var]
		switch {
		case s.Kind == SAssign && flagged:
			out = append(out, s, set(s.Var))
			continue
		case (s.Kind == SForRange || s.Kind == SForSubsets || s.Kind == SForBits) && flagged:
			s.Body = append([]Stmt{set(s.Var)}, s.Body...)
		}
		out = append(out, s)
	}
	return out
}

// assigned tracks the variables certainly assigned at each point. A nil
// set stands for a point no run reaches (after a return).
type assigned struct {
	breaks map[int][]bool // per label: what the breaks out of it have assigned
	conts  map[int][]bool // per loop label: what its continues have assigned
	unset  []*Expr        // the reads of a variable that may not be assigned
	seen   map[*Expr]bool
}

func meet(a, b []bool) []bool {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := make([]bool, len(a))
	for i := range a {
		out[i] = a[i] && b[i]
	}
	return out
}

func (a *assigned) reads(e *Expr, d []bool) {
	if e == nil || d == nil {
		return
	}
	if e.Op == OpVar && !d[e.Imm] && !a.seen[e] {
		a.seen[e] = true
		a.unset = append(a.unset, e)
	}
	for _, x := range e.Args {
		a.reads(x, d)
	}
}

func (a *assigned) stmts(ss []Stmt, d []bool) []bool {
	for i := range ss {
		d = a.stmt(&ss[i], d)
	}
	return d
}

func (a *assigned) stmt(s *Stmt, d []bool) []bool {
	if d == nil {
		return nil
	}
	for _, e := range []*Expr{s.X, s.Y, s.Z} {
		a.reads(e, d)
	}
	switch s.Kind {
	case SAssign:
		d = append([]bool(nil), d...)
		d[s.Var] = true
		return d
	case SIf:
		return meet(a.stmts(s.Body, d), a.stmts(s.Else, d))
	case SWhile, SForRange, SForSubsets, SForBits:
		in := d
		if s.Kind != SWhile {
			in = append([]bool(nil), d...)
			in[s.Var] = true
		}
		out := a.stmts(s.Body, in)
		brk, cont := a.breaks[s.Label], a.conts[s.Label]
		delete(a.breaks, s.Label)
		delete(a.conts, s.Label)
		switch {
		case s.Kind == SWhile && isTrue(s.X):
			return brk // left by a break only
		case runsOnce(s):
			return meet(meet(out, cont), brk)
		}
		return d // the body may not run
	case SLabeled:
		out := meet(a.stmts(s.Body, d), a.breaks[s.Label])
		delete(a.breaks, s.Label)
		return out
	case SBreak: // (meet takes nil, a label not met yet, as no constraint)
		a.breaks[s.Label] = meet(a.breaks[s.Label], d)
		return nil
	case SContinue:
		a.conts[s.Label] = meet(a.conts[s.Label], d)
		return nil
	case SReturn, SFail:
		return nil
	}
	return d
}

// isTrue reports whether x is a constant true condition (while True).
func isTrue(x *Expr) bool {
	if x.Op == OpBool && len(x.Args) == 1 {
		x = x.Args[0]
	}
	return x.Op == OpConst && x.Imm != 0
}

// runsOnce reports whether loop s certainly runs its body at least once:
// a range of constants that is not empty, subsets(m) (whose first subset
// is 0), bits of a constant that is not 0.
func runsOnce(s *Stmt) bool {
	konst := func(x *Expr) (uint64, bool) {
		if x == nil {
			return 1, true
		}
		return x.Imm, x.Op == OpConst
	}
	switch s.Kind {
	case SForRange:
		lo, ok1 := konst(s.X)
		hi, ok2 := konst(s.Y)
		step, ok3 := konst(s.Z)
		return ok1 && ok2 && ok3 && int64(step) > 0 && int64(lo) < int64(hi)
	case SForSubsets:
		return s.Y == nil
	case SForBits:
		b, ok := konst(s.X)
		return ok && b != 0
	}
	return false
}
