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
// the frame of the function's body and a stack of frames for each Proc.
// A scratch array's elements carry the epoch at which they were written
// (an element of an older epoch reads Init), so that making an array fresh
// costs O(1); a Proc's frames at one depth reuse their arrays, whose epochs
// only grow.
type FlowState struct {
	f     *Func
	top   frame
	fr    *frame     // the frame running
	procs [][]*frame // each Proc's frames, by its own depth
	level []int      // each Proc's frames in use
	depth int        // calls in progress
	fuel  int
	poll  func() bool
	// ops are the operands of the next callout, callout who does it
	// (SetCallout).
	ops     [MaxCalloutOperands]uint64
	callout func(k int, ops []uint64) error
}

// A frame is one call's variables and scratch arrays.
type frame struct {
	vars []uint64
	arrs []*array
}

// An array is a scratch array of a frame.
type array struct {
	vals, epochs []uint64
	cur          uint64 // the epoch of the elements written since it was fresh
	init         uint64
}

func newArrays(ss []Scratch) []*array {
	arrs := make([]*array, len(ss))
	for i, s := range ss {
		arrs[i] = &array{vals: make([]uint64, s.Len), epochs: make([]uint64, s.Len), init: s.Init}
	}
	return arrs
}

// NewState returns a state for evaluating f. poll, called every PollEvery
// loop iterations and calls, returns true to stop the run (nil: never).
func (f *Func) NewState(poll func() bool) *FlowState {
	st := &FlowState{f: f, poll: poll, fuel: PollEvery}
	st.top = frame{vars: make([]uint64, f.Vars), arrs: newArrays(f.Scratch)}
	st.procs = make([][]*frame, len(f.Procs))
	st.level = make([]int, len(f.Procs))
	return st
}

// SetArray sets the elements of f's array parameter a (Func.Arrays) for
// the next runs; vals holds one word per element.
func (st *FlowState) SetArray(a int, vals []uint64) {
	arr := st.top.arrs[a]
	copy(arr.vals, vals)
	for i := range arr.epochs {
		arr.epochs[i] = arr.cur
	}
}

// SetElem sets element i of f's array parameter a to v for the next
// runs, leaving the other elements as they are.
func (st *FlowState) SetElem(a, i int, v uint64) {
	arr := st.top.arrs[a]
	arr.vals[i], arr.epochs[i] = v, arr.cur
}

// Array copies the elements of f's array parameter a into out, as the
// last run left them.
func (st *FlowState) Array(a int, out []uint64) {
	arr := st.top.arrs[a]
	for i := range out {
		out[i] = arr.init
		if arr.epochs[i] == arr.cur {
			out[i] = arr.vals[i]
		}
	}
}

// SetPoll replaces the poll of st (for a state reused by another run).
func (st *FlowState) SetPoll(poll func() bool) { st.poll, st.fuel = poll, PollEvery }

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
	st.fr = &st.top
	clear(st.top.vars)
	copy(st.top.vars, params)
	for _, a := range st.top.arrs[st.f.Arrays:] {
		a.cur++ // scratch arrays are fresh for every item
	}
	clear(st.level)
	st.depth = 0
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
		st.fr.vars[s.Var] = st.expr(s.X)
	case SStore:
		i := st.expr(s.X)
		a := st.fr.arrs[s.Arr]
		j, ok := Index(i, len(a.vals))
		if !ok {
			st.fail(s.Check, i)
		}
		v := st.expr(s.Y)
		a.vals[j] = v
		a.epochs[j] = a.cur
	case SFresh:
		st.fr.arrs[s.Arr].cur++
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
			st.fr.vars[s.Var] = x
			x += step
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SForSubsets:
		m := st.expr(s.X)
		if s.Y == nil {
			for x := uint64(0); ; {
				st.fr.vars[s.Var] = x
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
			st.fr.vars[s.Var] = 0
			fl, l, _ := st.loopBody(s, ret)
			return fl, l
		}
		for x, ok := subset.Lowest(m, int(k)), true; ok; {
			st.fr.vars[s.Var] = x
			x, ok = subset.Snoob(x, m)
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SForBits:
		for b := st.expr(s.X); b != 0; {
			st.fr.vars[s.Var] = uint64(bits.TrailingZeros64(b))
			b &= b - 1
			if fl, l, on := st.loopBody(s, ret); !on {
				return fl, l
			}
		}
	case SLabeled:
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
	case SOperand:
		st.ops[s.Var] = st.expr(s.X)
	case SCallout:
		err := error(ErrNoCallout)
		if st.callout != nil {
			err = st.callout(s.Arr, st.f.Callouts[s.Arr].View(st.ops[:]))
		}
		if err != nil {
			panic(evalSignal{err})
		}
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
		return st.fr.vars[e.Imm]
	case OpLoad:
		return st.element(e, st.f.Tables[e.Imm].Rows[0], st.expr(e.Args[0]))
	case OpLoad2:
		r := st.row(e, &st.f.Tables[e.Imm], st.expr(e.Args[0]))
		return st.element(e, r, st.expr(e.Args[1]))
	case OpRowLen:
		return uint64(len(st.row(e, &st.f.Tables[e.Imm], st.expr(e.Args[0]))))
	case OpScratch:
		i := st.expr(e.Args[0])
		a := st.fr.arrs[e.Imm]
		j, ok := Index(i, len(a.vals))
		if !ok {
			st.fail(e.Check, i)
		}
		if a.epochs[j] != a.cur {
			return a.init
		}
		return a.vals[j]
	case OpCall:
		return st.call(e)
	case OpDepth:
		return uint64(st.depth)
	case OpResult:
		return st.ops[0]
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
		if x, y, v, ok := Guarded(e.Op, c.Kind, a[:]); ok && !CheckOK(c.Kind, x, y, c.Imm) {
			st.fail(e.Check, v)
		}
	}
	return Eval1(Instr{Op: e.Op, Imm: e.Imm}, a[0], a[1], a[2])
}

// call runs a call of a Proc in a frame of its own.
func (st *FlowState) call(e *Expr) uint64 {
	p := &st.f.Procs[e.Imm]
	if st.depth >= st.f.MaxCalls() {
		st.fail(e.Check, uint64(st.depth))
	}
	st.tick()
	caller := st.fr
	lv := st.level[e.Imm]
	if lv == len(st.procs[e.Imm]) {
		fr := &frame{vars: make([]uint64, p.Vars), arrs: make([]*array, len(p.Scratch))}
		copy(fr.arrs[p.Arrays:], newArrays(p.Scratch[p.Arrays:]))
		st.procs[e.Imm] = append(st.procs[e.Imm], fr)
	}
	fr := st.procs[e.Imm][lv]
	// The arguments are evaluated in the caller's frame, before the callee's
	// frame (which a call of the same Proc at this level may still hold) changes.
	var small [8]uint64
	args := small[:0]
	for i := 0; i < p.Params; i++ {
		args = append(args, st.expr(e.Args[i]))
	}
	clear(fr.vars)
	copy(fr.vars, args)
	for i := 0; i < p.Arrays; i++ {
		fr.arrs[i] = caller.arrs[e.Args[p.Params+i].Imm]
	}
	st.level[e.Imm]++
	st.depth++
	st.fr = fr
	var ret uint64
	fl, _ := st.stmts(p.Body, &ret)
	st.fr = caller
	st.depth--
	st.level[e.Imm]--
	if fl != flowReturn {
		panic(evalSignal{errors.New("fused helper " + p.Name + " ended without return")})
	}
	return ret
}
