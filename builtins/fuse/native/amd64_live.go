package native

import (
	"github.com/bitsh/bitsh/builtins/fuse"
)

// Which variables a call must keep: the live intervals (amd64_regs.go)
// stretch a variable over every loop it occurs in, which is right for
// giving registers but says too much around a call in a loop: a variable
// the rest of the iteration assigns before it reads it is dead there, yet
// its interval spans the call. varLiveness is the classic backward
// dataflow over the structured statements, loops to a fixed point: for a
// statement, the variables some path reads, after its own expressions are
// evaluated, before any assignment.

// varSet is a set of variables, a bit each.
type varSet []uint64

func (s varSet) has(v int) bool { return s[v>>6]>>(v&63)&1 != 0 }

func (s varSet) with(v int) varSet {
	t := append(varSet(nil), s...)
	t[v>>6] |= 1 << (v & 63)
	return t
}

func (s varSet) without(v int) varSet {
	t := append(varSet(nil), s...)
	t[v>>6] &^= 1 << (v & 63)
	return t
}

func (s varSet) union(o varSet) varSet {
	t := append(varSet(nil), s...)
	for i := range t {
		t[i] |= o[i]
	}
	return t
}

func (s varSet) equal(o varSet) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

type varLiveness struct {
	vars int
	// after holds, for the statements whose expressions may call, the
	// variables live once those expressions are evaluated: after an
	// assignment's value, an if's condition, a return's value (none), a
	// loop's condition or bounds.
	after     map[*fuse.Stmt]varSet
	brk, cont map[int]varSet
}

// liveVars computes varLiveness for body over vars variables.
func liveVars(body []fuse.Stmt, vars int) *varLiveness {
	lv := &varLiveness{vars: vars, after: map[*fuse.Stmt]varSet{}, brk: map[int]varSet{}, cont: map[int]varSet{}}
	lv.stmts(body, lv.empty())
	return lv
}

func (lv *varLiveness) empty() varSet { return make(varSet, (lv.vars+63)/64) }

// uses adds to s the variables x reads.
func (lv *varLiveness) uses(s varSet, xs ...*fuse.Expr) varSet {
	var walk func(x *fuse.Expr)
	walk = func(x *fuse.Expr) {
		if x == nil {
			return
		}
		if x.Op == fuse.OpVar && int(x.Imm) < lv.vars && !s.has(int(x.Imm)) {
			s = s.with(int(x.Imm))
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	for _, x := range xs {
		walk(x)
	}
	return s
}

// stmts returns the variables live before ss, given those live after.
func (lv *varLiveness) stmts(ss []fuse.Stmt, out varSet) varSet {
	for i := len(ss) - 1; i >= 0; i-- {
		out = lv.stmt(&ss[i], out)
	}
	return out
}

func (lv *varLiveness) stmt(s *fuse.Stmt, out varSet) varSet {
	switch s.Kind {
	case fuse.SAssign:
		// The variable assigned counts as live after the value's calls:
		// the generator may compute the value in its register.
		if s.Var >= lv.vars {
			return lv.all()
		}
		lv.after[s] = out.with(s.Var)
		return lv.uses(out.without(s.Var), s.X)
	case fuse.SStore:
		lv.after[s] = out
		return lv.uses(out, s.X, s.Y)
	case fuse.SOperand:
		lv.after[s] = out
		return lv.uses(out, s.X)
	case fuse.SFresh, fuse.SCallout:
		return out
	case fuse.SIf:
		after := lv.stmts(s.Body, out).union(lv.stmts(s.Else, out))
		lv.after[s] = after
		return lv.uses(after, s.X)
	case fuse.SLabeled:
		lv.brk[s.Label] = out
		return lv.stmts(s.Body, out)
	case fuse.SBreak:
		if b, ok := lv.brk[s.Label]; ok {
			return b
		}
		return lv.all()
	case fuse.SContinue:
		if c, ok := lv.cont[s.Label]; ok {
			return c
		}
		return lv.all()
	case fuse.SReturn, fuse.SFail:
		lv.after[s] = lv.empty()
		return lv.uses(lv.empty(), s.X)
	case fuse.SWhile:
		// head: before the condition, which every iteration runs.
		head := lv.uses(out, s.X)
		for {
			lv.brk[s.Label], lv.cont[s.Label] = out, head
			body := lv.stmts(s.Body, head)
			next := lv.uses(out.union(body), s.X)
			lv.after[s] = out.union(body)
			if next.equal(head) {
				return head
			}
			head = next
		}
	case fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
		// The bounds run once; each iteration sets the loop variable. It
		// is live through the loop: where the body does not assign it,
		// the generator steps it as the loop's cursor (rangePlan.induct).
		v := s.Var
		if v >= lv.vars {
			return lv.all()
		}
		head := out.with(v)
		for {
			lv.brk[s.Label], lv.cont[s.Label] = out, head
			next := out.union(lv.stmts(s.Body, head)).with(v)
			if next.equal(head) {
				break
			}
			head = next
		}
		lv.after[s] = head
		return lv.uses(head, s.X, s.Y, s.Z)
	}
	return lv.all() // a statement this analysis does not know: everything
}

func (lv *varLiveness) all() varSet {
	s := lv.empty()
	for v := 0; v < lv.vars; v++ {
		s[v>>6] |= 1 << (v & 63)
	}
	return s
}
