package native

import (
	"slices"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Register allocation for the amd64 engine: linear scan over the live
// intervals of slots in the order the code is emitted. A slot's interval
// runs from its first to its last occurrence, stretched over every loop it
// occurs in (a value may cross the back edge); slots that live through
// the whole function (the item counter, the fuel, the epochs,
// and variables that may be read before they are assigned, whose stale
// value must survive) take the whole function. Where more intervals are
// live than there are registers, the lightest goes to its home in memory.

type interval struct{ start, end int }

// liveness numbers occurrences: a read at statement p is at 2p, a write at
// 2p+1, so a slot whose last read is at a statement may hand its register
// to one written there.
type liveness struct {
	g     *amd64Gen
	pos   int
	iv    []interval
	loops []interval
	// inLoops[s] lists the loops (indices into loops) s occurs in.
	inLoops [][]int
	open    []int // the loops around the current statement
	// fresh[l] has the variables loop l assigns before any other
	// occurrence in every pass (leadingAssigned): dead at its head.
	fresh []map[int]bool
}

// leadingAssigned returns the variables that carry nothing across loop
// s's back edge: each occurs in the body only within one list of
// statements (the body's own, or a branch of an if or the body of a block
// in it, not of a loop), where its first occurrence is an assignment that
// does not read it, and the loop's own variable and bounds do not name it.
// Every path into that list enters at its start (a break or a continue
// only leaves it), so every read of the variable follows the assignment
// in the same pass: the variable is dead at the loop's head.
func leadingAssigned(s *fuse.Stmt) map[int]bool {
	header := map[int]bool{}
	for _, x := range []*fuse.Expr{s.X, s.Y, s.Z} {
		exprVars(x, func(v int) { header[v] = true })
	}
	if s.Kind != fuse.SWhile {
		header[s.Var] = true
	}
	total := map[int]int{}
	stmtVars(s.Body, func(v int) { total[v]++ })
	lead := map[int]bool{}
	var within func(ss []fuse.Stmt)
	within = func(ss []fuse.Stmt) {
		here := map[int]int{}
		stmtVars(ss, func(v int) { here[v]++ })
		seen := map[int]bool{}
		for i := range ss {
			t := &ss[i]
			if t.Kind == fuse.SAssign && !seen[t.Var] && !header[t.Var] && here[t.Var] == total[t.Var] {
				readsIt := false
				exprVars(t.X, func(v int) { readsIt = readsIt || v == t.Var })
				if !readsIt {
					lead[t.Var] = true
				}
			}
			if isLoop(t) && t.Kind != fuse.SWhile && !seen[t.Var] && !header[t.Var] && here[t.Var] == total[t.Var] {
				// A for loop's own variable that nothing outside the loop
				// names: the loop assigns it before its body reads it, and
				// nothing reads it after.
				inside, readsIt := 0, false
				stmtVars(ss[i:i+1], func(v int) {
					if v == t.Var {
						inside++
					}
				})
				for _, x := range []*fuse.Expr{t.X, t.Y, t.Z} {
					exprVars(x, func(v int) { readsIt = readsIt || v == t.Var })
				}
				if inside == total[t.Var] && !readsIt {
					lead[t.Var] = true
				}
			}
			if whileTrue(t) {
				// Entered, its body's leading assignments run first (a
				// set's or dict's probe: the slot, then its entry).
				for j := range t.Body {
					u := &t.Body[j]
					if u.Kind != fuse.SAssign {
						break
					}
					if !seen[u.Var] && !header[u.Var] && here[u.Var] == total[u.Var] {
						readsIt := false
						exprVars(u.X, func(v int) { readsIt = readsIt || v == u.Var })
						if !readsIt {
							lead[u.Var] = true
						}
					}
					stmtVars(t.Body[j:j+1], func(v int) { seen[v] = true })
				}
			}
			stmtVars(ss[i:i+1], func(v int) { seen[v] = true })
			switch t.Kind {
			case fuse.SIf:
				within(t.Body)
				within(t.Else)
			case fuse.SLabeled:
				within(t.Body)
			}
		}
	}
	within(s.Body)
	return lead
}

// exprVars calls f with each variable x reads, once a read.
func exprVars(x *fuse.Expr, f func(v int)) {
	if x == nil {
		return
	}
	if x.Op == fuse.OpVar {
		f(int(x.Imm))
	}
	for _, a := range x.Args {
		exprVars(a, f)
	}
}

// stmtVars calls f with each variable ss reads or assigns, once an
// occurrence.
func stmtVars(ss []fuse.Stmt, f func(v int)) {
	for i := range ss {
		t := &ss[i]
		exprVars(t.X, f)
		exprVars(t.Y, f)
		exprVars(t.Z, f)
		switch t.Kind {
		case fuse.SAssign, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
			f(t.Var)
		}
		stmtVars(t.Body, f)
		stmtVars(t.Else, f)
	}
}

func (lv *liveness) at(s, p int) {
	if lv.iv[s].start < 0 || p < lv.iv[s].start {
		lv.iv[s].start = p
	}
	lv.iv[s].end = max(lv.iv[s].end, p)
	for _, l := range lv.open {
		if !slices.Contains(lv.inLoops[s], l) {
			lv.inLoops[s] = append(lv.inLoops[s], l)
		}
	}
}

func (lv *liveness) expr(x *fuse.Expr) {
	if x == nil {
		return
	}
	switch x.Op {
	case fuse.OpVar:
		lv.at(int(x.Imm), 2*lv.pos)
	case fuse.OpScratch, fuse.OpArray:
		lv.array(int(x.Imm))
	}
	for _, a := range x.Args {
		lv.expr(a)
	}
}

// array marks a use of scratch array arr's slots.
func (lv *liveness) array(arr int) {
	if !lv.g.steady[arr] {
		lv.at(lv.g.sEpoch[arr], 2*lv.pos)
	}
	if lv.g.sPtr != nil && lv.g.fixedOf(arr) < 0 {
		lv.at(lv.g.sPtr[arr], 2*lv.pos)
	}
}

func (lv *liveness) stmts(ss []fuse.Stmt) {
	for i := range ss {
		s := &ss[i]
		lv.pos++
		lv.g.posOf[s] = lv.pos
		if isLoop(s) {
			lv.expr(s.X)
			lv.expr(s.Y)
			lv.expr(s.Z)
			lv.pos++
			l := len(lv.loops)
			lv.loops = append(lv.loops, interval{2 * lv.pos, 0})
			lv.fresh = append(lv.fresh, leadingAssigned(s))
			lv.open = append(lv.open, l)
			for _, h := range lv.g.loopSlot[s] {
				lv.at(h, 2*lv.pos+1)
			}
			if s.Kind != fuse.SWhile {
				lv.at(s.Var, 2*lv.pos+1)
			}
			lv.expr(s.X) // a while's condition runs every iteration
			lv.stmts(s.Body)
			lv.pos++
			lv.at(lv.g.sFuel, 2*lv.pos)
			lv.loops[l].end = 2*lv.pos + 1
			lv.open = lv.open[:len(lv.open)-1]
			continue
		}
		lv.expr(s.X)
		lv.expr(s.Y)
		lv.expr(s.Z)
		switch s.Kind {
		case fuse.SAssign:
			lv.at(s.Var, 2*lv.pos+1)
		case fuse.SStore, fuse.SFresh:
			lv.array(s.Arr)
		}
		lv.stmts(s.Body)
		lv.stmts(s.Else)
	}
}

// definite finds the variables some read may reach before any assignment
// in the item (the compiler checks names lexically, so an assignment in
// one branch of an if makes a later read legal).
func definite(f *fuse.Func) (maybeUnset []bool) {
	maybeUnset = make([]bool, f.Vars)
	type set = []bool
	all := func() set { // unreachable code: every variable is "set"
		s := make(set, f.Vars)
		for i := range s {
			s[i] = true
		}
		return s
	}
	meet := func(a, b set) set {
		c := make(set, len(a))
		for i := range a {
			c[i] = a[i] && b[i]
		}
		return c
	}
	var reads func(x *fuse.Expr, in set)
	reads = func(x *fuse.Expr, in set) {
		if x == nil {
			return
		}
		if x.Op == fuse.OpVar && !in[x.Imm] {
			maybeUnset[x.Imm] = true
		}
		for _, a := range x.Args {
			reads(a, in)
		}
	}
	exits := map[int]set{} // the sets at the breaks of each block
	var stmts func(ss []fuse.Stmt, in set) set
	stmts = func(ss []fuse.Stmt, in set) set {
		cur := slices.Clone(in)
		for i := range ss {
			s := &ss[i]
			switch s.Kind {
			case fuse.SAssign:
				reads(s.X, cur)
				cur[s.Var] = true
			case fuse.SStore, fuse.SReturn, fuse.SFail:
				reads(s.X, cur)
				reads(s.Y, cur)
				if s.Kind != fuse.SStore {
					cur = all()
				}
			case fuse.SOperand:
				reads(s.X, cur)
			case fuse.SIf:
				reads(s.X, cur)
				cur = meet(stmts(s.Body, cur), stmts(s.Else, cur))
			case fuse.SWhile, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
				reads(s.X, cur)
				reads(s.Y, cur)
				reads(s.Z, cur)
				body := slices.Clone(cur)
				if s.Kind != fuse.SWhile {
					body[s.Var] = true
				}
				if whileTrue(s) {
					// The body runs, and only its breaks leave the loop
					// (a set's or dict's probe): after it, what held at
					// every break.
					exits[s.Label] = all()
					stmts(s.Body, body)
					cur = exits[s.Label]
					break
				}
				stmts(s.Body, body)
				// after the loop: what held before it (the body may not run)
			case fuse.SLabeled:
				exits[s.Label] = all()
				end := stmts(s.Body, cur)
				cur = meet(end, exits[s.Label])
			case fuse.SBreak:
				if e, ok := exits[s.Label]; ok {
					exits[s.Label] = meet(e, cur)
				}
				cur = all()
			case fuse.SContinue:
				cur = all()
			}
		}
		return cur
	}
	in := make(set, f.Vars)
	for p := 0; p < f.Params; p++ {
		in[p] = true
	}
	stmts(f.Body, in)
	return maybeUnset
}

// allocate gives registers (indices into poolRegs, below maxSlotRegs) to
// slots by linear scan, and reports which slots live through the whole
// function. With calls, the item counter stays in memory and the fuel in
// memory or in a register of its own (fuelReg), so they take none of these.
func (g *amd64Gen) allocate() {
	lv := &liveness{g: g, iv: make([]interval, g.nSlots), inLoops: make([][]int, g.nSlots)}
	for s := range lv.iv {
		lv.iv[s] = interval{-1, -1}
	}
	for p := 0; p < g.f.Params; p++ {
		lv.at(p, 1)
	}
	lv.stmts(g.f.Body)
	end := 2*lv.pos + 2
	for s := range lv.iv {
		// A variable that occurs only within a loop where it is dead at
		// the head (leadingAssigned) carries no value across the back
		// edge of that loop or of any loop around it.
		first, last := lv.iv[s].start, lv.iv[s].end
		within := -1
		for _, l := range lv.inLoops[s] {
			if s < g.f.Vars && lv.fresh[l][s] && first >= lv.loops[l].start && last <= lv.loops[l].end &&
				(within < 0 || lv.loops[l].start > lv.loops[within].start) {
				within = l
			}
		}
		for _, l := range lv.inLoops[s] {
			if within >= 0 && lv.loops[l].start <= lv.loops[within].start && lv.loops[l].end >= lv.loops[within].end {
				continue
			}
			lv.iv[s].start = min(lv.iv[s].start, lv.loops[l].start)
			lv.iv[s].end = max(lv.iv[s].end, lv.loops[l].end)
		}
	}
	g.iv = lv.iv
	g.whole = make([]bool, g.nSlots)
	for _, s := range append(append([]int{g.sIt, g.sFuel}, g.sEpoch...), g.sPtr...) {
		if s >= 0 {
			g.whole[s] = true
		}
	}
	for v, unset := range definite(g.f) {
		if unset {
			g.whole[v] = true
		}
	}
	order := []int{}
	for s := range lv.iv {
		if g.whole[s] {
			lv.iv[s] = interval{0, end}
		}
		if g.calls != nil && (s == g.sIt || s == g.sFuel) {
			continue
		}
		if lv.iv[s].start >= 0 && g.weight[s] > 0 {
			order = append(order, s)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return lv.iv[a].start - lv.iv[b].start })
	var active []int // slots holding registers
	freeRegs := make([]bool, maxSlotRegs)
	if g.fuelInReg() {
		freeRegs = freeRegs[:maxSlotRegs-1] // fuelReg leaves the expressions one less
	}
	for i := range freeRegs {
		freeRegs[i] = true
	}
	for _, s := range order {
		live := active[:0]
		for _, t := range active {
			if lv.iv[t].end < lv.iv[s].start {
				freeRegs[g.slotReg[t]] = true
			} else {
				live = append(live, t)
			}
		}
		active = live
		if r := slices.Index(freeRegs, true); r >= 0 {
			freeRegs[r] = false
			g.slotReg[s] = r
			active = append(active, s)
			continue
		}
		// Spill the lightest of the live slots and s.
		light := s
		for _, t := range active {
			if g.weight[t] < g.weight[light] {
				light = t
			}
		}
		if light != s {
			g.slotReg[s] = g.slotReg[light]
			g.slotReg[light] = -1
			active[slices.Index(active, light)] = s
		}
	}
}

// whileTrue reports whether s is a while loop whose condition is a
// constant other than 0: its body runs at least once, and it ends only
// by a break (or a return, or a failure).
func whileTrue(s *fuse.Stmt) bool {
	return s.Kind == fuse.SWhile && s.X != nil && s.X.Op == fuse.OpConst && s.X.Imm != 0
}

func isLoop(s *fuse.Stmt) bool {
	return s.Kind == fuse.SWhile || s.Kind == fuse.SForRange || s.Kind == fuse.SForSubsets || s.Kind == fuse.SForBits
}
