package fuse

import (
	"errors"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/subset"
)

// A FlowError is a check of a Func that failed on an item: Checks[Check],
// with Value the offending word (an index, a divisor, ...).
type FlowError struct {
	Check int
	Value uint64
}

func (e *FlowError) Error() string { return "fused check failed" }

// ErrStopped is what a run of a Func returns when its poll asked it to stop.
var ErrStopped = errors.New("fused run stopped")

// PollEvery is how many loop iterations a Func runs between two polls for
// cancellation, on every back end.
const PollEvery = 1 << 16

// A FlowState is what one worker needs to evaluate a Func item by item:
// its variables and its scratch arrays, each element with the epoch at
// which it was written (an element of an older epoch reads Init), so that
// making a scratch array fresh costs O(1).
type FlowState struct {
	f      *Func
	vars   []uint64
	vals   [][]uint64
	epochs [][]uint64
	cur    []uint64 // the current epoch of each scratch array
	fuel   int
	poll   func() bool
}

// NewState returns a state for evaluating f. poll, called every PollEvery
// loop iterations, returns true to stop the run (nil: never).
func (f *Func) NewState(poll func() bool) *FlowState {
	st := &FlowState{f: f, vars: make([]uint64, f.Vars), poll: poll, fuel: PollEvery}
	for _, s := range f.Scratch {
		st.vals = append(st.vals, make([]uint64, s.Len))
		st.epochs = append(st.epochs, make([]uint64, s.Len))
		st.cur = append(st.cur, 0)
	}
	return st
}

type flow uint8

const (
	flowNext flow = iota
	flowBreak
	flowContinue
	flowReturn
)

// evalSignal carries a failed check or a stop out of the recursion.
type evalSignal struct{ err error }

// Eval runs f on one item: params holds the parameters. It returns the
// result, a *FlowError, ErrStopped, or an error when the body ends without
// return (a Func's compiler ends every body with an SFail for that).
func (st *FlowState) Eval(params []uint64) (res uint64, err error) {
	clear(st.vars)
	copy(st.vars, params)
	for i := range st.cur {
		st.cur[i]++ // scratch arrays are fresh for every item
	}
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(evalSignal)
			if !ok {
				panic(r)
			}
			res, err = 0, s.err
		}
	}()
	var ret uint64
	if fl, _ := st.stmts(st.f.Body, &ret); fl == flowReturn {
		return ret, nil
	}
	return 0, errors.New("fused function ended without return")
}

func (st *FlowState) fail(check int, v uint64) {
	panic(evalSignal{&FlowError{Check: check, Value: v}})
}

// tick counts a loop iteration and polls now and then.
func (st *FlowState) tick() {
	st.fuel--
	if st.fuel <= 0 {
		st.fuel = PollEvery
		if st.poll != nil && st.poll() {
			panic(evalSignal{ErrStopped})
		}
	}
}

// stmts runs ss; a break or continue returns with the label it targets.
func (st *FlowState) stmts(ss []Stmt, ret *uint64) (flow, int) {
	for i := range ss {
		if fl, l := st.stmt(&ss[i], ret); fl != flowNext {
			return fl, l
		}
	}
	return flowNext, 0
}

// loopBody runs a loop's body and says whether the loop goes on; fl is
// flowNext to go on, or what leaves the loop.
func (st *FlowState) loopBody(s *Stmt, ret *uint64) (fl flow, l int, goOn bool) {
	fl, l = st.stmts(s.Body, ret)
	st.tick()
	switch {
	case fl == flowNext, fl == flowContinue && l == s.Label:
		return flowNext, 0, true
	case fl == flowBreak && l == s.Label:
		return flowNext, 0, false
	}
	return fl, l, false
}

func (st *FlowState) stmt(s *Stmt, ret *uint64) (flow, int) {
	switch s.Kind {
	case SAssign:
		st.vars[s.Var] = st.expr(s.X)
	case SStore:
		i := st.expr(s.X)
		j, ok := Index(i, st.f.Scratch[s.Arr].Len)
		if !ok {
			st.fail(s.Check, i)
		}
		v := st.expr(s.Y)
		st.vals[s.Arr][j] = v
		st.epochs[s.Arr][j] = st.cur[s.Arr]
	case SFresh:
		st.cur[s.Arr]++
	case SIf:
		if st.expr(s.X) != 0 {
			return st.stmts(s.Body, ret)
		}
		return st.stmts(s.Else, ret)
	case SWhile:
		for st.expr(s.X) != 0 {
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SForRange:
		start, stop, step := st.expr(s.X), st.expr(s.Y), st.expr(s.Z)
		if step == 0 {
			st.fail(s.Check, 0)
		}
		for n, x := RangeLen(start, stop, step), start; n > 0; n-- {
			st.vars[s.Var] = x
			x += step
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SForSubsets:
		m := st.expr(s.X)
		if s.Y == nil {
			for x := uint64(0); ; {
				st.vars[s.Var] = x
				x = (x - m) & m
				if fl, l, on := st.loopBody(s, ret); !on {
					return fl, l
				}
				if x == 0 {
					break
				}
			}
			break
		}
		k := st.expr(s.Y)
		if k > uint64(bits.OnesCount64(m)) {
			break
		}
		if k == 0 {
			st.vars[s.Var] = 0
			fl, l, _ := st.loopBody(s, ret)
			return fl, l
		}
		for x, ok := subset.Lowest(m, int(k)), true; ok; {
			st.vars[s.Var] = x
			x, ok = subset.Snoob(x, m)
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SForBits:
		for b := st.expr(s.X); b != 0; {
			st.vars[s.Var] = uint64(bits.TrailingZeros64(b))
			b &= b - 1
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SBlock:
		fl, l := st.stmts(s.Body, ret)
		if fl == flowBreak && l == s.Label {
			return flowNext, 0
		}
		return fl, l
	case SBreak:
		return flowBreak, s.Label
	case SContinue:
		return flowContinue, s.Label
	case SReturn:
		*ret = st.expr(s.X)
		return flowReturn, 0
	case SFail:
		var v uint64
		if s.X != nil {
			v = st.expr(s.X)
		}
		st.fail(s.Check, v)
	}
	return flowNext, 0
}

// Element returns element i of table t's row r (r is ignored for a flat
// table), or fails naming the index.
func (st *FlowState) element(e *Expr, row []uint64, i uint64) uint64 {
	j, ok := Index(i, len(row))
	if !ok {
		st.fail(e.Check, i)
	}
	return row[j]
}

// row returns row i of table t, or fails naming the index.
func (st *FlowState) row(e *Expr, t *Table, i uint64) []uint64 {
	j, ok := Index(i, len(t.Rows))
	if !ok {
		st.fail(e.Check, i)
	}
	return t.Rows[j]
}

func (st *FlowState) expr(e *Expr) uint64 {
	switch e.Op {
	case OpConst:
		return e.Imm
	case OpVar:
		return st.vars[e.Imm]
	case OpLoad:
		return st.element(e, st.f.Tables[e.Imm].Rows[0], st.expr(e.Args[0]))
	case OpLoad2:
		r := st.row(e, &st.f.Tables[e.Imm], st.expr(e.Args[0]))
		return st.element(e, r, st.expr(e.Args[1]))
	case OpRowLen:
		return uint64(len(st.row(e, &st.f.Tables[e.Imm], st.expr(e.Args[0]))))
	case OpScratch:
		i := st.expr(e.Args[0])
		j, ok := Index(i, st.f.Scratch[e.Imm].Len)
		if !ok {
			st.fail(e.Check, i)
		}
		if st.epochs[e.Imm][j] != st.cur[e.Imm] {
			return st.f.Scratch[e.Imm].Init
		}
		return st.vals[e.Imm][j]
	case OpAndThen:
		if x := st.expr(e.Args[0]); x == 0 {
			return x
		}
		return st.expr(e.Args[1])
	case OpOrElse:
		if x := st.expr(e.Args[0]); x != 0 {
			return x
		}
		return st.expr(e.Args[1])
	case OpCond:
		if st.expr(e.Args[0]) != 0 {
			return st.expr(e.Args[1])
		}
		return st.expr(e.Args[2])
	}
	var a [3]uint64
	for i, x := range e.Args {
		a[i] = st.expr(x)
	}
	if e.Check >= 0 {
		c := &st.f.Checks[e.Check]
		if x, y, v, ok := guarded(e.Op, c.Kind, a[:]); ok && !checkOK(c.Kind, x, y, c.Imm) {
			st.fail(e.Check, v)
		}
	}
	return Eval1(Instr{Op: e.Op, Imm: e.Imm}, a[0], a[1], a[2])
}
