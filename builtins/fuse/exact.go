package fuse

import "fmt"

// Exact makes f compute Starlark's integers exactly, or fail: after it, a
// run of f that returns a word returns the integer the same body computes
// on Starlark's unbounded ints (with every parameter a word), and a run
// whose integers would leave [0, 2^64), or whose body would fail in
// Starlark, fails with one of f's checks. It is what lets bitsh run a plain
// function as machine code (docs/performance.md, "Plain functions as
// machine code"): a failed run is run again by the interpreter.
//
// Each expression is typed by where it is used:
//   - exact (the default: assigned, returned, passed, compared, a shift
//     count, an index, a divisor): + - * << get a check (CheckAddExact and
//     the others); & needs one exact operand, the other may be modular; ~
//     and unary - are refused (their integer is negative);
//   - modular (the other operand of such an &, and the operands of + - *
//     | ^ & ~ and unary - within it, and the shifted operand of <<): the
//     word equals the integer mod 2^64, which is all an & with an exact
//     word reads; the count of a << is exact and below 512 even there
//     (Starlark fails on any other, whatever the & would read);
//   - a condition (if, while, and, or, not, a conditional's test):
//     comparisons and not, which Starlark types as bools, are allowed only
//     there (x and y, x or y of ints are ints), and so are the variables
//     that may hold one.
//
// An index must be below 2^63 (a negative index counts from the end in a
// fused function, never in a plain one), the count of >> and the bounds
// of a range must fit in Starlark's int32 and int, and the argument of abs
// must be below 2^63. Exact
// reports the first construct it cannot make exact; f is then unusable.
//
// madeExact are expressions the compiler made whose words are exact by
// construction (a chess attack lookup, whose magic multiply wraps on
// purpose): they get no check and no typing, and their operands that are
// not among them are typed as exact.
//
// at gives the source position (file, line and column; the file "" for
// the function's own) of an expression, or "", 0, 0, for the messages; a
// check Exact adds carries the position of the expression it checks, so
// that a failed run can say where its int left the words.
func (f *Func) Exact(madeExact map[*Expr]bool, at func(*Expr) (file string, line, col int)) error {
	if madeExact == nil {
		madeExact = map[*Expr]bool{}
	}
	x := exacter{f: f, madeExact: madeExact, at: at, top: true}
	x.bools = map[int]bool{}
	x.boolVars(f.Body)
	switch x.returns(f.Body) {
	case someBool:
		return fmt.Errorf("the function returns a bool on some paths and an int on others")
	case allBool:
		f.ReturnsBool = true
	}
	if err := x.unit(f.Body); err != nil {
		return err
	}
	x.top = false
	for i := range f.Procs {
		p := &f.Procs[i]
		if err := x.unit(p.Body); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	f.IsExact = true
	return nil
}

// unit types the body of the function or of a Proc: first the variables
// that may hold a bool (assigned a comparison, a not, or such a variable,
// anywhere in the body: a loop may read one before the assignment), which
// only conditions may read, then every statement.
func (x *exacter) unit(body []Stmt) error {
	x.boolVars(body)
	x.only = map[int]bool{}
	if x.top {
		x.only = x.boolOnly(body)
	}
	return x.stmts(body)
}

// Results of returns: whether the returned values are bools.
const (
	noBool = iota
	someBool
	allBool
)

// returns says whether the returns of body give bools: all of them
// certainly do (comparisons, not, True, False, variables holding nothing
// else), none may, or some do.
func (x *exacter) returns(body []Stmt) int {
	only := x.boolOnly(body)
	bools, ints := 0, 0
	var scan func(ss []Stmt)
	scan = func(ss []Stmt) {
		for i := range ss {
			s := &ss[i]
			if s.Kind == SReturn {
				switch {
				case x.certainBool(s.X, only):
					bools++
				case x.mayBeBool(s.X):
					bools++
					ints++
				default:
					ints++
				}
			}
			scan(s.Body)
			scan(s.Else)
		}
	}
	scan(body)
	switch {
	case bools == 0:
		return noBool
	case ints == 0:
		return allBool
	}
	return someBool
}

// certainBool reports whether e's Starlark value is a bool, where the
// variables of only hold bools only.
func (x *exacter) certainBool(e *Expr, only map[int]bool) bool {
	switch e.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpLNot, OpBool:
		return !x.madeExact[e]
	case OpResult:
		return e.Imm == 1
	case OpVar:
		return only[int(e.Imm)]
	case OpAndThen, OpOrElse:
		return x.certainBool(e.Args[0], only) && x.certainBool(e.Args[1], only)
	case OpCond:
		return x.certainBool(e.Args[1], only) && x.certainBool(e.Args[2], only)
	}
	return false
}

// boolOnly returns the variables of the function's body that hold bools
// only: every assignment to them is a comparison, a not, True, False, or
// another such variable, and they are neither parameters (but those of
// BoolParams) nor loop variables (which hold ints: x = x keeps one).
func (x *exacter) boolOnly(body []Stmt) map[int]bool {
	only := map[int]bool{}
	ints := map[int]bool{}
	for v := 0; v < x.f.Params; v++ {
		ints[v] = true
	}
	for v, b := range x.f.BoolParams {
		if b {
			delete(ints, v)
			only[v] = true
		}
	}
	var assigns []*Stmt
	var scan func(ss []Stmt)
	scan = func(ss []Stmt) {
		for i := range ss {
			switch ss[i].Kind {
			case SAssign:
				assigns = append(assigns, &ss[i])
				only[ss[i].Var] = true
			case SForRange, SForSubsets, SForBits:
				ints[ss[i].Var] = true
			}
			scan(ss[i].Body)
			scan(ss[i].Else)
		}
	}
	scan(body)
	for v := range ints {
		delete(only, v)
	}
	for changed := true; changed; {
		changed = false
		for _, s := range assigns {
			if only[s.Var] && !x.certainBool(s.X, only) {
				only[s.Var], changed = false, true
			}
		}
	}
	return only
}

// boolVars sets x.bools to the variables of body that may hold a bool
// (the function's bool parameters among them).
func (x *exacter) boolVars(body []Stmt) {
	x.bools = map[int]bool{}
	if x.top {
		for v, b := range x.f.BoolParams {
			if b {
				x.bools[v] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		var scan func(ss []Stmt)
		scan = func(ss []Stmt) {
			for i := range ss {
				s := &ss[i]
				if s.Kind == SAssign && !x.bools[s.Var] && x.mayBeBool(s.X) {
					x.bools[s.Var], changed = true, true
				}
				scan(s.Body)
				scan(s.Else)
			}
		}
		scan(body)
	}
}

// mayBeBool reports whether e's Starlark value may be a bool.
func (x *exacter) mayBeBool(e *Expr) bool {
	switch e.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpLNot, OpBool:
		return !x.madeExact[e]
	case OpResult:
		return e.Imm == 1
	case OpVar:
		return x.bools[int(e.Imm)]
	case OpAndThen, OpOrElse:
		return x.mayBeBool(e.Args[0]) || x.mayBeBool(e.Args[1])
	case OpCond:
		return x.mayBeBool(e.Args[1]) || x.mayBeBool(e.Args[2])
	}
	return false
}

type typing uint8

const (
	exactly typing = iota
	modular
	condition
)

type exacter struct {
	f         *Func
	madeExact map[*Expr]bool
	at        func(*Expr) (file string, line, col int)
	checks    map[checkKey]int
	bools     map[int]bool // the unit's variables that may hold a bool
	only      map[int]bool // the function's variables that hold bools only (none in a Proc)
	top       bool         // the unit is the function's body, not a Proc's
	// done holds the expressions mulShr made: typed and checked already.
	done map[*Expr]bool
}

// A checkKey is what makes two exact checks one: their kind, Imm and
// source position.
type checkKey struct {
	kind      CheckKind
	imm       uint64
	file      string
	line, col int
}

// exactMsg says what a failed exact check found, for reports of the calls
// the interpreter ran (the interpreter gives the script its own answer).
func exactMsg(k CheckKind, imm uint64) string {
	switch k {
	case CheckAddExact:
		return "an int beyond 64 bits (+)"
	case CheckSubExact:
		return "a negative int (-)"
	case CheckMulExact:
		return "an int beyond 64 bits (*)"
	case CheckShlExact:
		return "an int beyond 64 bits (<<)"
	}
	return fmt.Sprintf("an int of more than %d bits where the code takes fewer (an index, a shift count, a range bound)", imm)
}

// check returns the index of f's check of kind k (Imm imm) for e, made
// once for each kind, Imm and position of e.
func (x *exacter) check(k CheckKind, imm uint64, e *Expr) int {
	key := checkKey{kind: k, imm: imm}
	if x.at != nil {
		key.file, key.line, key.col = x.at(e)
	}
	if i, ok := x.checks[key]; ok {
		return i
	}
	if x.checks == nil {
		x.checks = map[checkKey]int{}
	}
	x.f.Checks = append(x.f.Checks, Check{Kind: k, Imm: imm, Msg: exactMsg(k, imm), File: key.file, Line: key.line, Col: key.col})
	x.checks[key] = len(x.f.Checks) - 1
	return len(x.f.Checks) - 1
}

// below wraps e in a check that it is below 2^w (its value unchanged).
func (x *exacter) below(e *Expr, w uint64) *Expr {
	if e.Op == OpConst && e.Imm>>w == 0 {
		return e
	}
	// Given: the check's own and, whose operand is typed exact (as a
	// plain and with a constant, it would read it as modular).
	b := &Expr{Op: OpAnd, Args: []*Expr{e, {Op: OpConst, Imm: 1<<w - 1, Check: -1}}, Check: x.check(CheckFits, w, e)}
	x.madeExact[b] = true
	return b
}

func (x *exacter) stmts(ss []Stmt) error {
	for i := range ss {
		if err := x.stmt(&ss[i]); err != nil {
			return err
		}
	}
	return nil
}

func (x *exacter) stmt(s *Stmt) error {
	var err error
	switch s.Kind {
	case SAssign:
		if x.bools[s.Var] {
			err = x.expr(s.X, condition)
		} else {
			err = x.expr(s.X, exactly)
		}
	case SReturn:
		if x.f.ReturnsBool && x.top {
			err = x.expr(s.X, condition)
		} else {
			err = x.expr(s.X, exactly)
		}
	case SStore:
		s.X = x.below(s.X, 63)
		if err = x.expr(s.X, exactly); err == nil {
			err = x.expr(s.Y, exactly)
		}
	case SIf, SWhile:
		err = x.expr(s.X, condition)
	case SForRange:
		// Starlark's range takes bounds that fit in an int, and so do the
		// engines, which read them as signed words. A negative constant
		// step counts down, to a stop of -1 at the lowest, so that the
		// loop's variable stays a word (range(n - 1, -1, -1)).
		down := s.Z != nil && negConst(s.Z)
		for _, p := range []**Expr{&s.X, &s.Y, &s.Z} {
			switch {
			case *p == nil || err != nil:
			case down && p == &s.Z, down && p == &s.Y && negOne(s.Y):
				x.madeExact[*p] = true
			default:
				*p = x.below(*p, 63)
				err = x.expr(*p, exactly)
			}
		}
	case SForSubsets, SForBits:
		// subsets(m, k) has none where k > popcount(m), in both.
		if err = x.expr(s.X, exactly); err == nil && s.Y != nil {
			err = x.expr(s.Y, exactly)
		}
	case SFail:
		if s.X != nil {
			err = x.expr(s.X, modular)
		}
	case SOperand:
		err = x.operand(s)
	case SFresh, SLabeled, SBreak, SContinue, SCallout:
	default:
		return fmt.Errorf("statement %s is not run as machine code", stmtNames[s.Kind])
	}
	if err != nil {
		return err
	}
	if err := x.stmts(s.Body); err != nil {
		return err
	}
	return x.stmts(s.Else)
}

// negConst reports whether e is -k, k a constant in [1, 2^63].
func negConst(e *Expr) bool {
	return e.Op == OpNeg && e.Args[0].Op == OpConst && e.Args[0].Imm-1 < 1<<63
}

// negOne reports whether e is -1.
func negOne(e *Expr) bool { return negConst(e) && e.Args[0].Imm == 1 }

// boolName names an op that Starlark types as a bool, for messages.
func boolName(op Op) string {
	switch op {
	case OpLNot:
		return "not x"
	case OpBool:
		return "True or False"
	}
	return "a comparison"
}

// errAt is an error at e's position, where at knows it.
func errAt(at func(*Expr) (file string, line, col int), e *Expr, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if at != nil {
		if _, line, col := at(e); line > 0 {
			return fmt.Errorf("%d:%d: %w", line, col, err)
		}
	}
	return err
}

// difference rewrites a - b == c as a >= b and (a - b) == c, and a - b
// != c as a < b or (a - b) != c, with the subtraction on words: the
// integer a - b may be negative (to - fr == 16 or fr - to == 16 tests a
// double pawn push), and then it equals no word c. Only where a and b are
// variables or constants, which are read twice, and where c cannot fail:
// Starlark evaluates c also where a < b, and fails there if c does.
func (x *exacter) difference(e *Expr) {
	for i, d := range e.Args {
		if d.Op != OpSub || x.madeExact[d] || !simple(d.Args[0]) || !simple(d.Args[1]) || !x.cannotFail(e.Args[1-i]) {
			continue
		}
		a, b := d.Args[0], d.Args[1]
		sub := &Expr{Op: OpSub, Args: []*Expr{a, b}, Check: -1}
		x.madeExact[sub] = true
		args := []*Expr{sub, e.Args[1-i]}
		if i == 1 {
			args = []*Expr{e.Args[0], sub}
		}
		if e.Op == OpEq {
			*e = Expr{Op: OpAndThen, Check: -1, Args: []*Expr{{Op: OpGe, Args: []*Expr{a, b}, Check: -1}, {Op: OpEq, Args: args, Check: -1}}}
		} else {
			*e = Expr{Op: OpOrElse, Check: -1, Args: []*Expr{{Op: OpLt, Args: []*Expr{a, b}, Check: -1}, {Op: OpNe, Args: args, Check: -1}}}
		}
		return
	}
}

func simple(e *Expr) bool { return e.Op == OpVar || e.Op == OpConst }

// cannotFail reports whether e, typed exact, gets no check and holds none:
// variables (not bools), constants, and | ^ of them, & of them, >> of them
// by a constant count of an int32 (the words of such ints are the ints).
func (x *exacter) cannotFail(e *Expr) bool {
	switch e.Op {
	case OpVar:
		return !x.bools[int(e.Imm)]
	case OpConst:
		return true
	case OpAnd, OpOr, OpXor:
		return e.Check < 0 && !x.madeExact[e] && x.cannotFail(e.Args[0]) && x.cannotFail(e.Args[1])
	case OpShr:
		return e.Check < 0 && !x.madeExact[e] && e.Args[1].Op == OpConst && e.Args[1].Imm < 1<<31 && x.cannotFail(e.Args[0])
	}
	return false
}

// exactFree reports whether e's word is exact with no check of its own
// (so that the other operand of an & may be modular).
func exactFree(e *Expr) bool {
	switch e.Op {
	case OpAdd, OpSub, OpMul, OpShl, OpNot, OpNeg, OpAnd, OpOr, OpXor:
		return false
	}
	return true
}

func (x *exacter) all(args []*Expr, t typing) error {
	for _, a := range args {
		if err := x.expr(a, t); err != nil {
			return err
		}
	}
	return nil
}

func (x *exacter) expr(e *Expr, t typing) error {
	if x.done[e] {
		return nil // (rewritten by mulShr, its operands typed)
	}
	if x.madeExact[e] {
		// The operands of a given not, or comparison of bools (a pawn
		// attack's white), are conditions: their truth is all it reads.
		at := exactly
		switch e.Op {
		case OpLNot:
			at = condition
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			if x.certainBool(e.Args[0], x.only) && x.certainBool(e.Args[1], x.only) {
				at = condition
			}
		}
		for _, a := range e.Args {
			if err := x.expr(a, at); err != nil {
				return err
			}
		}
		return nil
	}
	if t == condition {
		switch e.Op {
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
			// Bools compared with bools (white == WHITE, a < b): their
			// words are 0 and 1, ordered as Starlark orders False and
			// True.
			if x.certainBool(e.Args[0], x.only) && x.certainBool(e.Args[1], x.only) {
				return x.all(e.Args, condition)
			}
		}
		switch e.Op {
		case OpEq, OpNe:
			x.difference(e)
			if e.Op == OpAndThen || e.Op == OpOrElse {
				return x.all(e.Args, condition)
			}
			return x.all(e.Args, exactly)
		case OpLt, OpLe, OpGt, OpGe:
			return x.all(e.Args, exactly)
		case OpLNot, OpBool, OpAndThen, OpOrElse:
			return x.all(e.Args, condition)
		case OpVar, OpResult:
			return nil
		case OpCond:
			if err := x.expr(e.Args[0], condition); err != nil {
				return err
			}
			return x.all(e.Args[1:], condition)
		}
		// An int's truth: exact (a modular 0 may be 2^64).
		t = exactly
	}
	switch e.Op {
	case OpVar:
		if x.bools[int(e.Imm)] {
			return errAt(x.at, e, "a variable that may hold a bool is used as an int")
		}
		return nil
	case OpConst, OpDepth, OpArray:
		return nil
	case OpResult:
		if e.Imm == 1 {
			return errAt(x.at, e, "a call's result that is a bool is used as an int")
		}
		return nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpLNot, OpBool:
		return errAt(x.at, e, "%s is a bool in Starlark, used here as an int", boolName(e.Op))
	case OpAndThen, OpOrElse:
		// x and y, x or y of ints: x where it decides, else y (an int).
		if err := x.expr(e.Args[0], exactly); err != nil {
			return err
		}
		return x.expr(e.Args[1], t)
	case OpCond:
		if err := x.expr(e.Args[0], condition); err != nil {
			return err
		}
		return x.all(e.Args[1:], t)
	case OpAdd, OpSub, OpMul, OpShl:
		if t == modular && e.Op == OpShl {
			// The word is x << n mod 2^64, but the count is Starlark's
			// own: below 0, at 512 or more or at 2^31 or more x << n
			// fails, whatever an & of it would read.
			e.Args[1] = x.below(e.Args[1], 9)
			if err := x.expr(e.Args[0], modular); err != nil {
				return err
			}
			return x.expr(e.Args[1], exactly)
		}
		if t == modular {
			return x.all(e.Args, modular)
		}
		kind := map[Op]CheckKind{OpAdd: CheckAddExact, OpSub: CheckSubExact, OpMul: CheckMulExact, OpShl: CheckShlExact}[e.Op]
		switch {
		case e.Check < 0:
			e.Check = x.check(kind, 0, e)
		case x.f.Checks[e.Check].Kind != kind: // (an expression shared, met again: checked already)
			return errAt(x.at, e, "%s with a check of its own", e.Op)
		}
		return x.all(e.Args, exactly)
	case OpOr, OpXor:
		return x.all(e.Args, t)
	case OpAnd:
		if t == modular {
			return x.all(e.Args, modular)
		}
		ex, mod := e.Args[1], e.Args[0]
		if !exactFree(ex) && (exactFree(mod) || ex.Op == OpNot || ex.Op == OpNeg) {
			ex, mod = mod, ex
		}
		if err := x.expr(ex, exactly); err != nil {
			return err
		}
		return x.expr(mod, modular)
	case OpNot, OpNeg:
		if t == modular {
			return x.all(e.Args, modular)
		}
		return errAt(x.at, e, "%s of a word is a negative int in Starlark (an & with a word reads its low 64 bits: y & ~x)", map[Op]string{OpNot: "~x", OpNeg: "-x"}[e.Op])
	case OpShr:
		if mulHi(e) {
			return x.expr(e, t)
		}
		if m := x.mulShr(e); m != nil {
			return x.all(m.Args, exactly)
		}
		e.Args[1] = x.below(e.Args[1], 31)
		return x.all(e.Args, exactly)
	case OpAbs:
		e.Args[0] = x.below(e.Args[0], 63)
		return x.all(e.Args, exactly)
	case OpLoad, OpLoad2, OpScratch, OpRowLen:
		for i := range e.Args {
			e.Args[i] = x.below(e.Args[i], 63)
		}
		return x.all(e.Args, exactly)
	case OpDiv, OpMod, OpMin, OpMax, OpCall, OpMulHi,
		OpPopcount, OpBsf, OpBsr, OpLsb, OpRotl, OpRotr, OpReverse, OpSwapBytes,
		OpPdep, OpPext, OpDeltaSwap, OpParity, OpGray, OpGrayInv:
		return x.all(e.Args, exactly)
	}
	return errAt(x.at, e, "%s is not run as machine code", e.Op)
}

// mulHi rewrites e, (a * b) >> k with a constant k >= 64 and a product
// that has no check yet, as the high word of the 128-bit product shifted
// right by k - 64 (OpMulHi; e itself when k is 64), and reports whether it
// did; k must be below 2^31, as Starlark's count of >> is an int32. The
// operands are typed exact, so they are words, and the integer product of
// two words is below 2^128: its bits from k up are the result,
// with no check (a shift by 64 or more gives 0, as k >= 128 does in
// Starlark). The operands stay computed, with their own checks.
func mulHi(e *Expr) bool {
	m, k := e.Args[0], e.Args[1]
	if e.Check >= 0 || m.Op != OpMul || m.Check >= 0 || k.Op != OpConst || k.Imm < 64 || k.Imm >= 1<<31 {
		// (a count of 2^31 or more fails in Starlark, an int32)
		return false
	}
	hi := &Expr{Op: OpMulHi, Args: []*Expr{m.Args[0], m.Args[1]}, Check: -1}
	if k.Imm == 64 {
		*e = *hi
		return true
	}
	e.Args = []*Expr{hi, {Op: OpConst, Imm: k.Imm - 64, Check: -1}}
	return true
}

// mulShr rewrites e, (a * b) >> k with a constant k from 1 to 63, a
// product that has no check yet and operands that are variables or
// constants (cheap to read twice), as the bits from k up of the 128-bit
// product: (hi << (64 - k)) | (lo >> k), hi and lo its high and low words,
// with a check that hi < 2^k, which holds exactly where Starlark's result
// is a word. It returns the product, whose operands are still to be typed,
// or nil where it rewrote nothing.
func (x *exacter) mulShr(e *Expr) *Expr {
	m, k := e.Args[0], e.Args[1]
	if e.Check >= 0 || m.Op != OpMul || m.Check >= 0 || k.Op != OpConst || k.Imm == 0 || k.Imm >= 64 {
		return nil
	}
	for _, a := range m.Args {
		if a.Op != OpVar && a.Op != OpConst {
			return nil
		}
	}
	c := Check{Kind: CheckFits, Imm: k.Imm, Msg: fmt.Sprintf("an int beyond 64 bits ((a * b) >> %d)", k.Imm)}
	if x.at != nil {
		c.File, c.Line, c.Col = x.at(e)
	}
	x.f.Checks = append(x.f.Checks, c)
	hi := &Expr{Op: OpMulHi, Args: []*Expr{m.Args[0], m.Args[1]}, Check: -1}
	up := &Expr{Op: OpShl, Args: []*Expr{hi, {Op: OpConst, Imm: 64 - k.Imm, Check: -1}}, Check: len(x.f.Checks) - 1}
	lo := &Expr{Op: OpMul, Args: []*Expr{m.Args[0], m.Args[1]}, Check: -1}
	down := &Expr{Op: OpShr, Args: []*Expr{lo, {Op: OpConst, Imm: k.Imm, Check: -1}}, Check: -1}
	*e = Expr{Op: OpOr, Args: []*Expr{up, down}, Check: -1}
	if x.done == nil {
		x.done = map[*Expr]bool{}
	}
	for _, d := range []*Expr{e, up, down, hi, lo} {
		x.done[d] = true
	}
	return m
}

// operand types the operand of a callout: a bool (a comparison, not,
// True, False, a variable holding bools only) as a condition, which the
// callout writes as True or False (its parts say so: Bool), an int as
// exact; an operand that may be either is refused, and so is a bool that
// a verb other than 's' writes (Starlark's "%d" % True fails).
func (x *exacter) operand(s *Stmt) error {
	c := &x.f.Callouts[s.Arr]
	switch {
	case x.certainBool(s.X, x.only):
		for i := range c.Parts {
			if p := &c.Parts[i]; p.Operand == s.Var {
				if p.Verb != 's' {
					return errAt(x.at, s.X, "%%%c of a bool fails in Starlark", p.Verb)
				}
				p.Bool = true
			}
		}
		return x.expr(s.X, condition)
	case x.mayBeBool(s.X):
		return errAt(x.at, s.X, "a value printed may be a bool or an int")
	}
	return x.expr(s.X, exactly)
}
