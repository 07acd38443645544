package native

import (
	"maps"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Facts about the rows of tables, which let the loads of a loop over a
// row skip their checks (the loop invariants of a search such as
// `for piece, mask in PLACEMENTS[cell]`, which the compiler makes a range
// over the row's words, read two at a time):
//
//   - a row index that a load or a row's length checked, where that check
//     runs whenever its statement does, is below the row count from there
//     on (g.fits, as a width check's fact), so later loads of that row do
//     not compare it again;
//   - a variable assigned a row's length (rowLen) holds it until it or
//     the row's index is assigned again;
//   - in the body of a range loop from a start not below 0 by a positive
//     step to that length, where the body assigns neither the loop's
//     variable nor the row's index, the variable is below the row's length
//     (belowRow), so a load of that row at the variable needs no check of
//     the column; nor at the variable plus c, where every value of the
//     variable is rem mod step (g.stride), every row's length a multiple
//     of step, and rem + c < step.
//
// Tables do not change while the code runs, and a call does not assign its
// caller's variables, so only the assignments in the code end these facts.

// rowRef names a row: table, and the variable that indexes it.
type rowRef struct{ table, row int }

// rowVar returns the variable that row or column index x reads where x's
// value is that variable's: the variable itself, or the variable under
// Exact's width check of 63 bits (within63); else -1.
func (g *amd64Gen) rowVar(x *fuse.Expr) int {
	if x = g.within63(x); x.Op == fuse.OpVar {
		return int(x.Imm)
	}
	return -1
}

// within63 returns the operand of Exact's width check of 63 bits (an and
// with 2^63-1 that fails where its operand is negative), whose value is
// the check's where it passes; else x.
func (g *amd64Gen) within63(x *fuse.Expr) *fuse.Expr {
	if x.Op == fuse.OpAnd && x.Check >= 0 && x.Args[1].Op == fuse.OpConst && x.Args[1].Imm == 1<<63-1 &&
		g.f.Checks[x.Check].Kind == fuse.CheckFits && g.f.Checks[x.Check].Imm == 63 {
		return x.Args[0]
	}
	return x
}

// rowFacts updates the facts about rows for statement s, before it is
// emitted, and returns what to do after it: what s assigns is no longer
// known; a range loop's variable is below its row's length in the body;
// a variable assigned a row's length holds it after s. The facts made in
// a compound statement end with it.
func (g *amd64Gen) rowFacts(s *fuse.Stmt) func() {
	if len(g.rowLen) > 0 || len(g.belowRow) > 0 {
		forAssigned(s, func(v int) {
			for k, r := range g.rowLen {
				if k == v || r.row == v {
					delete(g.rowLen, k)
				}
			}
			for k, r := range g.belowRow {
				if k == v || r.row == v {
					delete(g.belowRow, k)
				}
			}
		})
	}
	switch {
	case s.Kind == fuse.SAssign:
		return func() {
			x := s.X
			if x.Op != fuse.OpRowLen {
				return
			}
			if r := g.rowVar(x.Args[0]); r >= 0 && r != s.Var {
				if g.rowLen == nil {
					g.rowLen = map[int]rowRef{}
				}
				g.rowLen[s.Var] = rowRef{int(x.Imm), r}
			}
		}
	case s.Kind == fuse.SIf || s.Kind == fuse.SLabeled || isLoop(s):
		lenBefore, belowBefore := maps.Clone(g.rowLen), maps.Clone(g.belowRow)
		if s.Kind == fuse.SForRange {
			if ref, ok := g.rangeOverRow(s); ok {
				if g.belowRow == nil {
					g.belowRow = map[int]rowRef{}
				}
				g.belowRow[s.Var] = ref
			}
		}
		return func() { g.rowLen, g.belowRow = lenBefore, belowBefore }
	}
	return func() {}
}

// rangeOverRow reports whether range loop s runs its variable from a start
// not below 0 by a positive step to the length of a row, where the body
// assigns neither the variable nor the row's index and the loop's bounds
// do not read the variable: the row.
func (g *amd64Gen) rangeOverRow(s *fuse.Stmt) (rowRef, bool) {
	if s.Z.Op != fuse.OpConst || int64(s.Z.Imm) <= 0 {
		return rowRef{}, false
	}
	if b := g.bound(s.X); b == 0 || b > 1<<63 {
		return rowRef{}, false
	}
	var ref rowRef
	y := g.within63(s.Y) // the length, not negative where the check passes
	switch {
	case y.Op == fuse.OpVar:
		r, ok := g.rowLen[int(y.Imm)]
		if !ok {
			return rowRef{}, false
		}
		ref = r
	case y.Op == fuse.OpRowLen && g.rowVar(y.Args[0]) >= 0:
		ref = rowRef{int(y.Imm), g.rowVar(y.Args[0])}
	default:
		return rowRef{}, false
	}
	if countVar([]fuse.Stmt{{Kind: fuse.SReturn, X: s.X, Y: s.Y, Z: s.Z}}, s.Var) > 0 {
		return rowRef{}, false
	}
	assigned := false
	for i := range s.Body {
		forAssigned(&s.Body[i], func(v int) { assigned = assigned || v == s.Var || v == ref.row })
	}
	return ref, !assigned && ref.row != s.Var
}

// rowChecked records, after load or row length x checked its row index
// and where that check runs whenever the statement does, that the row's
// variable is below the row count: a variable whose bound showed it not
// negative (the check compared it with the count alone), or one under
// Exact's width check of 63 bits.
func (g *amd64Gen) rowChecked(x *fuse.Expr, rows int) {
	r := g.rowVar(x.Args[0])
	if r < 0 || !g.uncond[x] {
		return
	}
	if b := g.bound(x.Args[0]); b == 0 || b > 1<<63 {
		return
	}
	if b, ok := g.fits[r]; !ok || uint64(rows) < b {
		g.fits[r] = uint64(rows)
	}
}

// colBelowRow reports whether load2 x reads its row at a column that is a
// range loop's variable below that row's length, or that variable plus a
// constant that stays below it (see the facts above).
func (g *amd64Gen) colBelowRow(x *fuse.Expr) bool {
	if len(g.belowRow) == 0 {
		return false
	}
	r := g.rowVar(x.Args[0])
	if r < 0 {
		return false
	}
	col, c := g.within63(x.Args[1]), uint64(0) // v or v + c
	if col.Op == fuse.OpAdd && col.Args[1].Op == fuse.OpConst && col.Args[0].Op == fuse.OpVar {
		c = col.Args[1].Imm
		col = col.Args[0]
	}
	if col.Op != fuse.OpVar {
		return false
	}
	ref, ok := g.belowRow[int(col.Imm)]
	if !ok || ref.table != int(x.Imm) || ref.row != r {
		return false
	}
	if c == 0 {
		return true
	}
	st, ok := g.stride[int(col.Imm)]
	if !ok || st[1]+c >= st[0] || c >= st[0] {
		return false
	}
	for _, row := range g.f.Tables[ref.table].Rows {
		if uint64(len(row))%st[0] != 0 {
			return false
		}
	}
	return true
}

// rowInLoop reports whether range loop s reads a row (load2) whose index
// variable its body does not assign: that row, whose address the loop may
// then keep in a slot of its own (hoistRow).
func (g *amd64Gen) rowInLoop(s *fuse.Stmt) (rowRef, bool) {
	assigned := map[int]bool{s.Var: true}
	for i := range s.Body {
		forAssigned(&s.Body[i], func(v int) { assigned[v] = true })
	}
	var ref rowRef
	found := false
	var walk func(x *fuse.Expr)
	walk = func(x *fuse.Expr) {
		if x == nil || found {
			return
		}
		if x.Op == fuse.OpLoad2 {
			if r := g.rowVar(x.Args[0]); r >= 0 && !assigned[r] {
				ref, found = rowRef{int(x.Imm), r}, true
				return
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	var stmts func(ss []fuse.Stmt)
	stmts = func(ss []fuse.Stmt) {
		for i := range ss {
			walk(ss[i].X)
			walk(ss[i].Y)
			walk(ss[i].Z)
			stmts(ss[i].Body)
			stmts(ss[i].Else)
		}
	}
	stmts(s.Body)
	return ref, found
}

// hoistRow, at the entry of range loop s, puts the address of the row its
// body reads (rowInLoop) in the loop's slot for it, where the row's index
// is known to be in range there (a check before showed it), and returns
// what ends that after the loop. The body's loads of that row then read
// from the slot (loadFromRowBase).
func (g *amd64Gen) hoistRow(s *fuse.Stmt) func() {
	ref, ok := g.rowBaseOf[s]
	h := g.loopSlot[s]
	if !ok || len(h) < 4 {
		return func() {}
	}
	rows := uint64(len(g.f.Tables[ref.table].Rows))
	if b := g.bound(&fuse.Expr{Op: fuse.OpVar, Imm: uint64(ref.row)}); b == 0 || b > rows {
		return func() {}
	}
	a := g.a
	g.getSlot(rDX, ref.row)
	a.load32(rAX, indexed(rDI, rDX, 8, int32(g.l.tables[ref.table])))
	a.alu(aluAdd, rAX, R(rDI))
	g.setSlot(h[3], rAX)
	before, had := g.rowBase[ref]
	if g.rowBase == nil {
		g.rowBase = map[rowRef]int{}
	}
	g.rowBase[ref] = h[3]
	return func() {
		if had {
			g.rowBase[ref] = before
		} else {
			delete(g.rowBase, ref)
		}
	}
}

// loadFromRowBase emits load2 x from the address of its row that a loop
// around it keeps (hoistRow), where its column needs no check; ok is false
// where it cannot.
func (g *amd64Gen) loadFromRowBase(x *fuse.Expr) (reg, bool) {
	if x.Op != fuse.OpLoad2 || len(g.rowBase) == 0 {
		return 0, false
	}
	slot, ok := g.rowBase[rowRef{int(x.Imm), g.rowVar(x.Args[0])}]
	if !ok {
		return 0, false
	}
	shortest := uint64(len(g.f.Tables[x.Imm].Rows[0]))
	for _, r := range g.f.Tables[x.Imm].Rows {
		shortest = min(shortest, uint64(len(r)))
	}
	if b := g.bound(x.Args[1]); !(b != 0 && b <= shortest) && !g.colBelowRow(x) {
		return 0, false
	}
	j := g.expr(x.Args[1])
	if r := g.slotReg[slot]; r >= 0 {
		g.a.load(j, indexed(poolRegs[r], j, 8, 0))
	} else {
		g.a.load(rAX, g.home(slot))
		g.a.load(j, indexed(rAX, j, 8, 0))
	}
	return j, true
}
