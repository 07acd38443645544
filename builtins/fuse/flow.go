package fuse

import (
	"fmt"
	"strings"
)

// A Func is a fused function with control flow (docs/fuse.md, "Fused
// searches"): statements over word variables, with loops, read-only tables
// and scratch arrays. Where a Line is one straight line run a block of
// items at a time, a Func runs item by item as native code (package
// builtins/fuse/native), as C or CUDA C (package builtins/fuse/cgen), or
// under Eval, which is the definition the others must agree with.
//
// Variables 0 .. Params-1 hold the parameters; every variable is a word.
type Func struct {
	Params  int
	Vars    int       // variables in all, parameters included
	Tables  []Table   // read-only tables
	Scratch []Scratch // scratch arrays, fresh at every execution of their Fresh statement
	Checks  []Check   // the messages of checks; only Kind, Imm, Msg, Line and Col are used
	Body    []Stmt
	Labels  int // the number of labels (loops and blocks) in Body
	// Procs are the helpers that run as calls (OpCall) rather than
	// inlined: those that recurse, directly or through others.
	Procs []Proc
	// Depth is the deepest chain of calls a run allows (DepthFor).
	Depth int
	// Inlined is the most calls of inlined helpers in progress at once
	// in the Func's body or a Proc's: the frames Starlark's own calls of
	// them would take beyond the function's (package compile sets it).
	Inlined int
	// IsExact, set by Exact, says that the function computes Starlark's
	// ints exactly: a plain function's call, or a loop of a script's top
	// level, one item a run.
	IsExact bool
	// ReturnsBool, set by Exact, says that the function's Starlark results
	// are bools: 1 stands for True, 0 for False.
	ReturnsBool bool
	// BoolParams, where not nil, says which of the parameters (variables
	// 0 .. Params-1) hold bools, 1 for True and 0 for False; Exact types
	// them as the variables that hold bools.
	BoolParams []bool
	// Arrays are the function's array parameters: Scratch[:Arrays] are the
	// caller's, filled before a run (FlowState.SetArray, the native
	// Worker's SetArray), read and written in place, never made fresh,
	// and read back after it.
	Arrays int
	// Results, where not 0, says that the function returns a tuple of that
	// many words, held by its last array parameter when a run returns
	// (its word result is then 0). Only exact compilation makes one.
	Results int
	// ReturnsList says that the tuple of Results words is a new list
	// (biased as its array says). Only exact compilation makes one.
	ReturnsList bool
	// ReturnsParam, where not 0, says that the function returns its array
	// parameter ReturnsParam-1, the list its caller gave (its word result
	// is 0). Only exact compilation makes one.
	ReturnsParam int
	// ReturnsNone says that the function returns None (it has no return
	// with a value); its word result is 0. Only exact compilation makes
	// one.
	ReturnsNone bool
	// ResultBias, where not 0, says that the word result is the int the
	// function returns plus ResultBias (a return of -k, of d.get(key, -k):
	// ints from -ResultBias on). Only exact compilation makes one.
	ResultBias uint64
	// Callouts are the operations the function's code hands to whoever
	// runs it (a print: callout.go), each made by an SCallout statement
	// of the body or of a Proc. Only exact compilation makes them.
	Callouts []Callout
}

// A Proc is a helper that runs as a call, each call with a frame of its
// own: its variables (the word parameters first) and its own scratch
// arrays, fresh at O(1) per call. Its array parameters are the caller's
// arrays, read and written in place: Scratch[:Arrays] describe them (a
// Proc is compiled for one length and value of each), the rest are the
// frame's own. Statements and expressions in Body number variables and
// scratch arrays within the Proc; tables and checks are the Func's.
type Proc struct {
	Name    string
	Params  int // word parameters: variables 0 .. Params-1
	Arrays  int // array parameters: Scratch[0 .. Arrays-1]
	Vars    int // variables in all, parameters included
	Scratch []Scratch
	Body    []Stmt
	Labels  int
}

// FrameWords returns the words of p's own scratch arrays per frame (each
// element is a value and an epoch).
func (p *Proc) FrameWords() int {
	n := 0
	for _, s := range p.Scratch[p.Arrays:] {
		n += 2 * s.Len
	}
	return n
}

// MaxDepth is the deepest a chain of calls of a Func's Procs may go: a
// call past it fails the run with the check of that call.
const MaxDepth = 10000

// MaxCalls returns the deepest chain of calls a run of f allows: Depth, or
// MaxDepth where Depth is not set.
func (f *Func) MaxCalls() int {
	if f.Depth > 0 {
		return f.Depth
	}
	return MaxDepth
}

// DepthFor returns the call depth f's runs may allow: MaxDepth, or less
// where that many frames of f's largest Proc would hold more than words
// words of scratch arrays (values and epochs).
func (f *Func) DepthFor(words int) int {
	d := MaxDepth
	for i := range f.Procs {
		if w := f.Procs[i].FrameWords(); w > 0 && words/w < d {
			d = max(words/w, 1)
		}
	}
	return d
}

// A Table is a read-only table copied when fuse was called: Rows[0] alone
// when Flat (T[i]), else rows of any lengths (T[i][j]).
type Table struct {
	Name string
	Flat bool
	Rows [][]uint64
}

// Words returns the number of words of t's rows.
func (t *Table) Words() int {
	n := 0
	for _, r := range t.Rows {
		n += len(r)
	}
	return n
}

// A Scratch is a scratch array of Len words, each Init when fresh.
type Scratch struct {
	Name string
	Len  int
	Init uint64
	// Bias, where not 0, says that the array holds Starlark ints x in
	// [-Bias, 2^64 - Bias) as the words x + Bias (package compile, with
	// Options.Exact, for an array whose initial value is negative: a
	// sentinel [-1] * N). The engines need not know: the compiler reads,
	// writes and compares the elements so, and Init is the biased word.
	Bias uint64
	// Sparse says that the array is written at scattered indices (the
	// slots of a hash table in a header array), so that an engine should keep making it fresh in
	// O(1) rather than in proportion to what was written (the x86-64
	// engine's dense arrays, builtins/fuse/native/amd64_dense.go). It
	// changes no result.
	Sparse bool
	// Stale says that the code reads an element only after writing it
	// in the same run (a hash table's keys by slot, read where the slot,
	// made fresh, is full), so that an engine may keep no epochs for the
	// array nor make it fresh. It changes no result.
	Stale bool
}

// An Expr is a word expression. Where Check >= 0, the check Checks[Check]
// runs on the operands before the op: CheckNonZero on Args[1] of // and %
// and on Args[0] of bsf and bsr, CheckFits on Args[0] (width Checks[Check].Imm),
// CheckDelta on Args[1] and Args[2] of delta_swap, CheckIndex on the index
// of a load (the last operand).
type Expr struct {
	Op    Op
	Args  []*Expr
	Imm   uint64
	Check int
}

// CheckIndex fails when an index is out of range of a table or scratch
// array (after a negative index, read as a signed word, counts from the end).
const CheckIndex CheckKind = 16

// CheckDepth fails when a call would make the chain of calls deeper than
// the Func's Depth.
const CheckDepth CheckKind = 17

// StmtKind says what a statement does.
type StmtKind uint8

// The statements. Loops and blocks have a Label; Break and Continue name the
// label of the loop (or, Break, the block) they leave.
const (
	SAssign     StmtKind = iota // Var = X
	SStore                      // scratch Arr: element X = Y (Check: the index check)
	SFresh                      // scratch Arr is fresh: every element reads Init
	SIf                         // if X: Body else: Else
	SWhile                      // while X: Body
	SForRange                   // for Var in range(X, Y, Z): Body (Check: a step of 0)
	SForSubsets                 // for Var in subsets(X) (Y == nil) or subsets(X, Y): Body
	SForBits                    // for Var in bits(X): Body
	SLabeled                    // Body, which a Break of its Label leaves
	SBreak                      // leave the loop or block Label
	SContinue                   // next iteration of the loop Label
	SReturn                     // return X
	SFail                       // fail Checks[Check] with the value X (nil: 0)
	SOperand                    // operand Var of the next callout (Callouts[Arr]) = X
	SCallout                    // hand Callouts[Arr] to the runner with the operands set before it, then go on
)

var stmtNames = [...]string{"assign", "store", "fresh", "if", "while", "for_range", "for_subsets", "for_bits",
	"block", "break", "continue", "return", "fail", "operand", "callout"}

// A Stmt is a statement of a Func.
type Stmt struct {
	Kind       StmtKind
	Var        int
	Arr        int
	X, Y, Z    *Expr
	Body, Else []Stmt
	Label      int
	Check      int
	// Rare, on an SIf, says that its Body seldom runs (a hash table's
	// rebuild): an engine may keep the Body's variables out of registers
	// in favour of the code around it. It changes no result.
	Rare bool
}

// EachExpr calls visit with every expression of f, its Procs' included,
// operands after the expressions they belong to.
func (f *Func) EachExpr(visit func(x *Expr)) {
	var expr func(x *Expr)
	expr = func(x *Expr) {
		if x == nil {
			return
		}
		visit(x)
		for _, a := range x.Args {
			expr(a)
		}
	}
	var stmts func(ss []Stmt)
	stmts = func(ss []Stmt) {
		for i := range ss {
			expr(ss[i].X)
			expr(ss[i].Y)
			expr(ss[i].Z)
			stmts(ss[i].Body)
			stmts(ss[i].Else)
		}
	}
	stmts(f.Body)
	for i := range f.Procs {
		stmts(f.Procs[i].Body)
	}
}

// eachStmt calls visit with every statement of ss, nested ones included.
func eachStmt(ss []Stmt, visit func(s *Stmt)) {
	for i := range ss {
		visit(&ss[i])
		eachStmt(ss[i].Body, visit)
		eachStmt(ss[i].Else, visit)
	}
}

// Loops reports whether f's body loops or calls a Proc: whether a run may
// take much longer than its statements.
func (f *Func) Loops() bool {
	loops := len(f.Procs) > 0
	eachStmt(f.Body, func(s *Stmt) { loops = loops || s.isLoop() })
	return loops
}

// WrittenArrays says, for each of f's array parameters, whether a run may
// write it: its body stores into it, or passes it to a Proc that may
// write that parameter (and so on through the Procs' calls).
func (f *Func) WrittenArrays() []bool {
	// procs[p][k]: Proc p may write its array parameter k. Grown to a
	// fixed point: a Proc writes a parameter that it stores into or
	// passes where a Proc writes it.
	procs := make([][]bool, len(f.Procs))
	for p := range f.Procs {
		procs[p] = make([]bool, f.Procs[p].Arrays)
	}
	writes := func(body []Stmt, arrays int, written []bool) bool {
		grew := false
		mark := func(a uint64) {
			if a < uint64(arrays) && !written[a] {
				written[a], grew = true, true
			}
		}
		var expr func(x *Expr)
		expr = func(x *Expr) {
			if x == nil {
				return
			}
			if x.Op == OpCall && int(x.Imm) < len(f.Procs) {
				callee := &f.Procs[x.Imm]
				for k := 0; k < callee.Arrays; k++ {
					if a := x.Args[callee.Params+k]; a.Op == OpArray && procs[x.Imm][k] {
						mark(a.Imm)
					}
				}
			}
			for _, a := range x.Args {
				expr(a)
			}
		}
		eachStmt(body, func(s *Stmt) {
			if s.Kind == SStore {
				mark(uint64(s.Arr))
			}
			expr(s.X)
			expr(s.Y)
			expr(s.Z)
		})
		return grew
	}
	for grew := true; grew; {
		grew = false
		for p := range f.Procs {
			if writes(f.Procs[p].Body, f.Procs[p].Arrays, procs[p]) {
				grew = true
			}
		}
	}
	written := make([]bool, f.Arrays)
	writes(f.Body, f.Arrays, written)
	return written
}

// Leaves reports whether control never runs off the end of ss: its last
// statement is a break, continue, return or fail, or an if whose branches
// both leave. Loops and blocks count as running on (a break may end them).
func Leaves(ss []Stmt) bool {
	if len(ss) == 0 {
		return false
	}
	s := &ss[len(ss)-1]
	switch s.Kind {
	case SBreak, SContinue, SReturn, SFail:
		return true
	case SIf:
		return Leaves(s.Body) && Leaves(s.Else)
	}
	return false
}

// Loops reports whether s or a statement in it is a loop.
func (s *Stmt) isLoop() bool {
	return s.Kind == SWhile || s.Kind == SForRange || s.Kind == SForSubsets || s.Kind == SForBits
}

// String prints f for tests and debugging.
func (f *Func) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "params %d arrays %d vars %d results %d\n", f.Params, f.Arrays, f.Vars, f.Results)
	for i, t := range f.Tables {
		fmt.Fprintf(&b, "table %d %s flat=%v rows=%d words=%d\n", i, t.Name, t.Flat, len(t.Rows), t.Words())
	}
	for i, s := range f.Scratch {
		fmt.Fprintf(&b, "scratch %d %s [%#x] * %d%s\n", i, s.Name, s.Init, s.Len, s.biasText())
	}
	printStmts(&b, f.Body, 0)
	for i, p := range f.Procs {
		fmt.Fprintf(&b, "proc %d %s params %d arrays %d vars %d\n", i, p.Name, p.Params, p.Arrays, p.Vars)
		for j, s := range p.Scratch {
			fmt.Fprintf(&b, "  scratch %d %s [%#x] * %d%s\n", j, s.Name, s.Init, s.Len, s.biasText())
		}
		printStmts(&b, p.Body, 1)
	}
	return b.String()
}

func printStmts(b *strings.Builder, ss []Stmt, depth int) {
	for _, s := range ss {
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(b, "%s%s", ind, stmtNames[s.Kind])
		switch s.Kind {
		case SAssign, SForRange, SForSubsets, SForBits:
			fmt.Fprintf(b, " v%d", s.Var)
		case SStore, SFresh:
			fmt.Fprintf(b, " s%d", s.Arr)
		case SOperand:
			fmt.Fprintf(b, " c%d.%d", s.Arr, s.Var)
		case SCallout:
			fmt.Fprintf(b, " c%d", s.Arr)
		case SBreak, SContinue:
			fmt.Fprintf(b, " L%d", s.Label)
		}
		if s.Kind == SWhile || s.Kind == SLabeled || s.isLoop() {
			fmt.Fprintf(b, " L%d", s.Label)
		}
		for _, x := range []*Expr{s.X, s.Y, s.Z} {
			if x != nil {
				fmt.Fprintf(b, " %s", x)
			}
		}
		b.WriteByte('\n')
		printStmts(b, s.Body, depth+1)
		if len(s.Else) > 0 {
			fmt.Fprintf(b, "%selse\n", ind)
			printStmts(b, s.Else, depth+1)
		}
	}
}

func (e *Expr) String() string {
	switch e.Op {
	case OpConst:
		return fmt.Sprintf("%#x", e.Imm)
	case OpVar:
		return fmt.Sprintf("v%d", e.Imm)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "(%s", e.Op)
	switch e.Op {
	case OpLoad, OpLoad2, OpRowLen:
		fmt.Fprintf(&b, " t%d", e.Imm)
	case OpScratch, OpArray:
		fmt.Fprintf(&b, " s%d", e.Imm)
	case OpCall:
		fmt.Fprintf(&b, " p%d", e.Imm)
	default:
		if e.Op.def().imm != ImmNone {
			fmt.Fprintf(&b, "/%d", e.Imm)
		}
	}
	for _, a := range e.Args {
		fmt.Fprintf(&b, " %s", a)
	}
	b.WriteByte(')')
	return b.String()
}

// ScratchWords returns the words f's scratch arrays take per worker (each
// element is a value and the epoch that says whether it is fresh).
func (f *Func) ScratchWords() int {
	n := 0
	for _, s := range f.Scratch {
		n += 2 * s.Len
	}
	return n
}

// Index resolves a word index into an array of n elements as Starlark does
// (a negative index, read as a signed word, counts from the end); ok is
// false when it is out of range.
func Index(i uint64, n int) (uint64, bool) {
	if i < uint64(n) {
		return i, true
	}
	if j := i + uint64(n); int64(i) < 0 && j < uint64(n) {
		return j, true
	}
	return 0, false
}

// RangeLen returns the number of items of range(start, stop, step) with the
// bounds read as signed words (step != 0).
func RangeLen(start, stop, step uint64) uint64 {
	a, b, s := int64(start), int64(stop), int64(step)
	switch {
	case s > 0 && a < b:
		return (uint64(b-a)-1)/uint64(s) + 1
	case s < 0 && a > b:
		return (uint64(a-b)-1)/uint64(-s) + 1
	}
	return 0
}

// biasText is " bias B" for a biased array, for String.
func (s *Scratch) biasText() string {
	if s.Bias == 0 {
		return ""
	}
	return fmt.Sprintf(" bias %#x", s.Bias)
}
