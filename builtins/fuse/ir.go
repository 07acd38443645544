// Package fuse is the IR of fused functions and what every engine shares:
// a straight line of word operations (Line, built with a Builder), a
// function with control flow, tables, scratch arrays and calls (Func), the
// op table that declares each op's meaning and C spelling (ops.go), the
// reference evaluators (Eval1, Line.Eval, Func's FlowState.Eval), and
// the scheduler that runs a function over spaces of items on several
// workers (RunSpaces, RunFunc). In a straight line, control flow (if/else,
// conditional expressions, and/or, returns) is turned into predication:
// both sides are computed and a select merges them, and the operations
// that can fail (bsf of 0, // by 0, ...) carry the mask of the items that
// really execute them.
//
// The engines live in packages of their own below it: block (the block
// executor of straight lines), native (machine code of a Func: x86-64,
// WebAssembly), cgen (C and CUDA C of both) and cuda (the GPU driver).
// Package compile translates a syntax tree into the IR. The package knows
// nothing of Starlark.
package fuse

import (
	"fmt"
	"strings"
)

// Op is an IR operation. Every value is a 64-bit word; comparisons give 0
// or 1; arithmetic wraps mod 2^64; a shift by 64 or more gives 0; // and %
// by 0 give 0 (a Check reports the error where the item executes them).
type Op uint8

// The operations. Operands are A, B, C (value ids); Imm is a constant.
const (
	OpConst     Op = iota // Imm
	OpParam               // parameter Imm
	OpAdd                 // A + B
	OpSub                 // A - B
	OpMul                 // A * B
	OpDiv                 // A / B (0 when B == 0)
	OpMod                 // A % B (0 when B == 0)
	OpAnd                 // A & B
	OpOr                  // A | B
	OpXor                 // A ^ B
	OpShl                 // A << B (0 when B >= 64)
	OpShr                 // A >> B (0 when B >= 64)
	OpNot                 // ^A
	OpNeg                 // -A
	OpEq                  // A == B
	OpNe                  // A != B
	OpLt                  // A < B
	OpLe                  // A <= B
	OpGt                  // A > B
	OpGe                  // A >= B
	OpLNot                // A == 0
	OpBool                // A != 0
	OpSelect              // A != 0 ? B : C
	OpPopcount            // popcount(A)
	OpBsf                 // trailing zeros of A (64 when A == 0)
	OpBsr                 // 63 - leading zeros of A (wraps when A == 0)
	OpLsb                 // A & -A
	OpRotl                // rotate A left by B within Imm bits
	OpRotr                // rotate A right by B within Imm bits
	OpReverse             // reverse the low Imm bits of A
	OpSwapBytes           // reverse the low Imm/8 bytes of A
	OpPdep                // pdep(A, B)
	OpPext                // pext(A, B)
	OpDeltaSwap           // delta_swap(A, B, C) (A when C > 63)
	OpParity              // popcount(A) & 1
	OpGray                // A ^ A>>1
	OpGrayInv             // prefix xor of A from the top
	// NumOps bounds the ops of a Line: those above. (The block
	// executor numbers its own ops, which its peephole pass makes, from
	// NumOps on: package builtins/fuse/block.)
	NumOps
)

// The expression ops of a Func beside those of a Line (OpConst, the
// arithmetic, comparisons and word builtins; OpParam is not used: the
// parameters are variables). Args holds the operands.
const (
	OpVar     Op = 64 + iota // variable Imm
	OpLoad                   // table Imm (flat), element Args[0]
	OpLoad2                  // table Imm, row Args[0], element Args[1]
	OpRowLen                 // table Imm: the length of row Args[0]
	OpScratch                // scratch Imm, element Args[0]
	OpAndThen                // Args[0] and Args[1]: Args[1] runs only where Args[0] is non-zero
	OpOrElse                 // Args[0] or Args[1]: Args[1] runs only where Args[0] is zero
	OpCond                   // Args[0] ? Args[1] : Args[2], running only the branch taken
	OpMin                    // the lesser of Args[0], Args[1] (unsigned)
	OpMax                    // the greater (unsigned)
	OpAbs                    // |Args[0]| read as a signed word
	OpCall                   // call Procs[Imm]: Args are the word arguments, then the array arguments (Check: the depth check)
	OpArray                  // scratch array Imm, passed to a call (an argument of OpCall only)
	OpDepth                  // the calls in progress: 0 in the Func's body, in a Proc's the caller's and 1
	OpMulHi                  // the high word of the 128-bit product Args[0] * Args[1] (math/bits.Mul64)
	OpResult                 // the word the last callout gave back (Callout.Result; Imm 1: a bool, 1 for True)
)

// Value is the id of an IR value (an index into Line.Instrs).
type Value int32

// NoMask is the mask of code that every item executes.
const NoMask Value = -1

// Instr computes one value.
type Instr struct {
	Op      Op
	A, B, C Value
	Imm     uint64
}

// CheckKind says what a Check verifies.
type CheckKind uint8

// The checks. Each fails for an item where Mask is non-zero (or Mask is
// NoMask) and the condition is violated.
const (
	CheckNonZero  CheckKind = iota // A != 0 (bsf, bsr, //, %)
	CheckFits                      // A < 2^Imm
	CheckDelta                     // delta_swap(x, mask=A, delta=B): B <= 63, A<<B>>B == A, A<<B & A == 0 unless B == 0
	CheckReturned                  // A != 0: the body returned
	// The exact checks (Func.Exact): the op's result on words is the
	// integer result, with no carry, borrow or bit lost.
	CheckAddExact // A + B < 2^64
	CheckSubExact // A >= B
	CheckMulExact // A * B < 2^64
	CheckShlExact // B < 64 and A << B >> B == A
)

// Check is an error test the function performs, placed in program order:
// for an item, the first failing check (in order) is its error, and over a
// space the failing item that comes first in the space's order is reported.
type Check struct {
	Kind CheckKind
	A, B Value
	Imm  uint64
	Mask Value
	// At is the instruction count when the check was made: it runs after
	// Instrs[:At] and before the rest.
	At int
	// Msg describes the failure ("bsf: x = 0 has no one bit"); File, Line
	// and Col locate the construct in the source: the fused function's
	// file, or another that a helper was loaded from (File "": the
	// function's own).
	Msg       string
	File      string
	Line, Col int
}

// Line is a straight line: a compiled function without loops, its
// instructions, its checks and its result value.
type Line struct {
	Params int // 1 to 3
	Instrs []Instr
	Checks []Check
	Result Value
}

func (p *Line) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "params %d\n", p.Params)
	ci := 0
	for i, in := range p.Instrs {
		for ci < len(p.Checks) && p.Checks[ci].At <= i {
			fmt.Fprintf(&b, "  check %+v\n", p.Checks[ci])
			ci++
		}
		fmt.Fprintf(&b, "  v%d = %s", i, in.Op)
		switch in.Op.Arity() {
		case 0:
			fmt.Fprintf(&b, " %#x", in.Imm)
		case 1:
			fmt.Fprintf(&b, " v%d", in.A)
		case 2:
			fmt.Fprintf(&b, " v%d v%d", in.A, in.B)
		case 3:
			fmt.Fprintf(&b, " v%d v%d v%d", in.A, in.B, in.C)
		}
		if in.Imm != 0 && in.Op.Arity() > 0 {
			fmt.Fprintf(&b, " imm=%d", in.Imm)
		}
		b.WriteByte('\n')
	}
	for ; ci < len(p.Checks); ci++ {
		fmt.Fprintf(&b, "  check %+v\n", p.Checks[ci])
	}
	fmt.Fprintf(&b, "  return v%d\n", p.Result)
	return b.String()
}

// Builder builds a Line, folding constants and sharing equal values.
type Builder struct {
	p    Line
	memo map[Instr]Value
}

// NewBuilder starts a program of n parameters (1 to 3).
func NewBuilder(n int) *Builder {
	b := &Builder{p: Line{Params: n}, memo: map[Instr]Value{}}
	for i := 0; i < n; i++ {
		b.add(Instr{Op: OpParam, Imm: uint64(i), A: -1, B: -1, C: -1})
	}
	return b
}

func (b *Builder) add(in Instr) Value {
	if v, ok := b.memo[in]; ok {
		return v
	}
	v := Value(len(b.p.Instrs))
	b.p.Instrs = append(b.p.Instrs, in)
	b.memo[in] = v
	return v
}

// Param returns parameter i.
func (b *Builder) Param(i int) Value { return Value(i) }

// Const returns the constant x.
func (b *Builder) Const(x uint64) Value {
	return b.add(Instr{Op: OpConst, Imm: x, A: -1, B: -1, C: -1})
}

// IsConst reports whether v is a constant, and its value.
func (b *Builder) IsConst(v Value) (uint64, bool) {
	if v < 0 {
		return 0, false
	}
	in := b.p.Instrs[v]
	return in.Imm, in.Op == OpConst
}

// Op1, Op2 and Op3 add an operation (Imm is the width of rotations,
// reversals and byte swaps; 0 means 64).
func (b *Builder) Op1(op Op, a Value, imm uint64) Value { return b.Op3(op, a, -1, -1, imm) }

// Op2 adds a binary operation.
func (b *Builder) Op2(op Op, a, x Value, imm uint64) Value { return b.Op3(op, a, x, -1, imm) }

// Op3 adds an operation of up to three operands, folding it when every
// operand is a constant.
func (b *Builder) Op3(op Op, a, x, c Value, imm uint64) Value {
	if imm == 0 && op.def().imm == ImmWidth {
		imm = 64
	}
	in := Instr{Op: op, A: a, B: x, C: c, Imm: imm}
	var args [3]uint64
	all := true
	for i, v := range []Value{a, x, c}[:op.Arity()] {
		k, ok := b.IsConst(v)
		all = all && ok
		args[i] = k
	}
	if all {
		return b.Const(Eval1(in, args[0], args[1], args[2]))
	}
	if op == OpSelect {
		if k, ok := b.IsConst(a); ok {
			if k != 0 {
				return x
			}
			return c
		}
		if x == c {
			return x
		}
	}
	return b.add(in)
}

// Check adds a check at the current point of the program.
func (b *Builder) Check(c Check) {
	if c.Kind == CheckFits && c.Imm >= 64 {
		return
	}
	if c.Mask >= 0 {
		if k, ok := b.IsConst(c.Mask); ok {
			if k == 0 {
				return // nobody executes it
			}
			c.Mask = NoMask
		}
	}
	if k, ok := b.IsConst(c.A); ok {
		var bk uint64
		if c.Kind.TwoOperands() {
			var okb bool
			if bk, okb = b.IsConst(c.B); !okb {
				goto keep
			}
		}
		if CheckOK(c.Kind, k, bk, c.Imm) {
			return
		}
	}
keep:
	c.At = len(b.p.Instrs)
	b.p.Checks = append(b.p.Checks, c)
}

// Finish returns the program computing result, without the instructions
// that neither the result nor a check needs.
func (b *Builder) Finish(result Value) *Line {
	p := b.p
	p.Result = result
	live := make([]bool, len(p.Instrs))
	mark := func(v Value) {
		if v >= 0 {
			live[v] = true
		}
	}
	mark(result)
	for _, c := range p.Checks {
		mark(c.A)
		if c.Kind.TwoOperands() {
			mark(c.B)
		}
		mark(c.Mask)
	}
	for i := len(p.Instrs) - 1; i >= 0; i-- {
		if !live[i] {
			continue
		}
		in := p.Instrs[i]
		for _, v := range []Value{in.A, in.B, in.C}[:in.Op.Arity()] {
			mark(v)
		}
	}
	for i := 0; i < p.Params; i++ {
		live[i] = true
	}
	newID := make([]Value, len(p.Instrs))
	var out []Instr
	for i, in := range p.Instrs {
		if !live[i] {
			newID[i] = -1
			continue
		}
		newID[i] = Value(len(out))
		out = append(out, in)
	}
	re := func(v Value) Value {
		if v < 0 {
			return v
		}
		return newID[v]
	}
	for i := range out {
		n := out[i].Op.Arity()
		if n > 0 {
			out[i].A = re(out[i].A)
		}
		if n > 1 {
			out[i].B = re(out[i].B)
		}
		if n > 2 {
			out[i].C = re(out[i].C)
		}
	}
	checks := make([]Check, len(p.Checks))
	for i, c := range p.Checks {
		c.A, c.Mask = re(c.A), re(c.Mask)
		if c.Kind.TwoOperands() {
			c.B = re(c.B)
		}
		at := 0
		for j := 0; j < c.At; j++ {
			if live[j] {
				at++
			}
		}
		c.At = at
		checks[i] = c
	}
	return &Line{Params: p.Params, Instrs: out, Checks: checks, Result: re(result)}
}
