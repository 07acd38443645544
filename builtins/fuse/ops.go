package fuse

import (
	"fmt"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// opDef declares one op: what every back end needs to know of it beside
// its own lowering. The table opDefs is the op's one home: its name, its
// operands, what its Imm means, its meaning on words (which Eval1, and so
// the builder's constant folding, the reference evaluators and the block
// executor's scalar path, call; the word builtins' meaning comes from their
// kernels in builtins/bitops, the same functions the interpreter and word
// arrays call) and its C spelling (which the C generators of package
// builtins/fuse/cgen, and so the CUDA sources, print). The back ends read
// the table through Op's methods (Arity, Meaning, CSpelling, ...).
//
// Adding an op is one entry here plus each back end's lowering where it has
// one of its own: a vectorised loop in the block executor (package
// builtins/fuse/block; without one the op runs through its meaning lane by
// lane), the compiler's translation (package compile) and the machine code
// of package native. TestOpTable fails when an entry lacks a part,
// TestOpTableExecutor (package block) and TestOpTableC (package cgen) when
// the block executor or a C generator disagrees with it.
type opDef struct {
	name  string
	arity int    // value operands: A, B, C (Line) or Args (Func)
	imm   ImmUse // what Imm means
	// zeroOne: the result is always 0 or 1 (a count adds such results).
	zeroOne bool
	// guard is the operand that a check of the op (a Func's Expr.Check)
	// tests: the divisor of // and %, delta_swap's mask (CheckDelta tests
	// it and the operand after it, the delta); 0 otherwise.
	guard int
	// eval is the op's meaning on words (a, b, c the operands). Nil for
	// the ops every back end lowers itself: parameters, variables, loads
	// and the lazy and/or/conditional of a Func.
	eval func(a, b, c, imm uint64) uint64
	// c is the op's C spelling (see CSpelling): $a, $b, $c stand for the
	// operands, each used at most once (FuncC passes expressions), $i for
	// Imm in decimal, $x for Imm as a C constant and $s for 64 - Imm. It
	// may call the helpers of package cgen and the FUSE_ macros each
	// target's prelude defines. Empty where eval is nil, except for
	// parameters (p0, p1, p2 in ItemFunc).
	c string
}

// ImmUse says what an op's Imm means.
type ImmUse uint8

// The uses of Imm.
const (
	ImmNone  ImmUse = iota
	ImmValue        // the value itself (const)
	ImmIndex        // a parameter, variable, table or scratch array
	ImmWidth        // a width, 8, 16, 32 or 64 (the Builder turns 0 into 64)
	ImmShift        // a shift count below 64 (the executor's xorshifts)
	ImmMask         // a constant mask (popcount(A & Imm))
)

// numDefs bounds the ops of opDefs (the Func ops come last).
const numDefs = OpResult + 1

// opDefs declares every op (see opDef); the entries between the executor's
// own ops and the Func ops are unused.
var opDefs = [numDefs]opDef{
	OpConst: {name: "const", imm: ImmValue, eval: func(a, b, c, k uint64) uint64 { return k }, c: "$x"},
	OpParam: {name: "param", imm: ImmIndex, c: "p$i"},

	OpAdd: {name: "add", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a + b }, c: "$a + $b"},
	OpSub: {name: "sub", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a - b }, c: "$a - $b"},
	OpMul: {name: "mul", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a * b }, c: "$a * $b"},
	OpDiv: {name: "div", arity: 2, guard: 1, eval: func(a, b, c, k uint64) uint64 {
		if b == 0 {
			return 0
		}
		return a / b
	}, c: "fuse_div($a, $b)"},
	OpMod: {name: "mod", arity: 2, guard: 1, eval: func(a, b, c, k uint64) uint64 {
		if b == 0 {
			return 0
		}
		return a % b
	}, c: "fuse_mod($a, $b)"},
	OpAnd: {name: "and", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a & b }, c: "$a & $b"},
	OpOr:  {name: "or", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a | b }, c: "$a | $b"},
	OpXor: {name: "xor", arity: 2, eval: func(a, b, c, k uint64) uint64 { return a ^ b }, c: "$a ^ $b"},
	OpShl: {name: "shl", arity: 2, eval: func(a, b, c, k uint64) uint64 {
		if b >= 64 {
			return 0
		}
		return a << b
	}, c: "fuse_shl($a, $b)"},
	OpShr: {name: "shr", arity: 2, eval: func(a, b, c, k uint64) uint64 {
		if b >= 64 {
			return 0
		}
		return a >> b
	}, c: "fuse_shr($a, $b)"},
	OpNot: {name: "not", arity: 1, eval: func(a, b, c, k uint64) uint64 { return ^a }, c: "~$a"},
	OpNeg: {name: "neg", arity: 1, eval: func(a, b, c, k uint64) uint64 { return -a }, c: "0 - $a"},

	OpEq:   {name: "eq", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a == b) }, c: "(u64)($a == $b)"},
	OpNe:   {name: "ne", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a != b) }, c: "(u64)($a != $b)"},
	OpLt:   {name: "lt", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a < b) }, c: "(u64)($a < $b)"},
	OpLe:   {name: "le", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a <= b) }, c: "(u64)($a <= $b)"},
	OpGt:   {name: "gt", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a > b) }, c: "(u64)($a > $b)"},
	OpGe:   {name: "ge", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a >= b) }, c: "(u64)($a >= $b)"},
	OpLNot: {name: "lnot", arity: 1, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a == 0) }, c: "(u64)($a == 0)"},
	OpBool: {name: "bool", arity: 1, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return Bit(a != 0) }, c: "(u64)($a != 0)"},
	OpSelect: {name: "select", arity: 3, eval: func(a, b, c, k uint64) uint64 {
		if a != 0 {
			return b
		}
		return c
	}, c: "$a ? $b : $c"},

	OpPopcount:  {name: "popcount", arity: 1, eval: func(a, b, c, k uint64) uint64 { return uint64(bits.OnesCount64(a)) }, c: "FUSE_POPC($a)"},
	OpBsf:       {name: "bsf", arity: 1, eval: func(a, b, c, k uint64) uint64 { return uint64(bitops.Bsf(a)) }, c: "FUSE_CTZ($a)"},
	OpBsr:       {name: "bsr", arity: 1, eval: func(a, b, c, k uint64) uint64 { return uint64(bitops.Bsr(a)) }, c: "63ULL - FUSE_CLZ($a)"},
	OpLsb:       {name: "lsb", arity: 1, eval: func(a, b, c, k uint64) uint64 { return bitops.Lsb(a) }, c: "fuse_lsb($a)"},
	OpRotl:      {name: "rotl", arity: 2, imm: ImmWidth, eval: func(a, b, c, k uint64) uint64 { return Rotate(a, b, k) }, c: "fuse_rot($a, $b, $i)"},
	OpRotr:      {name: "rotr", arity: 2, imm: ImmWidth, eval: func(a, b, c, k uint64) uint64 { return Rotate(a, -b, k) }, c: "fuse_rot($a, 0 - $b, $i)"},
	OpReverse:   {name: "reverse", arity: 1, imm: ImmWidth, eval: func(a, b, c, k uint64) uint64 { return bitops.Reverse(a, uint(k)) }, c: "fuse_shr(fuse_rev64($a), $s)"},
	OpSwapBytes: {name: "swap_bytes", arity: 1, imm: ImmWidth, eval: func(a, b, c, k uint64) uint64 { return bitops.SwapBytes(a, uint(k)) }, c: "fuse_shr(fuse_bswap64($a), $s)"},
	OpPdep:      {name: "pdep", arity: 2, eval: func(a, b, c, k uint64) uint64 { return bitops.Pdep(a, b) }, c: "fuse_pdep($a, $b)"},
	OpPext:      {name: "pext", arity: 2, eval: func(a, b, c, k uint64) uint64 { return bitops.Pext(a, b) }, c: "fuse_pext($a, $b)"},
	OpDeltaSwap: {name: "delta_swap", arity: 3, guard: 1, eval: func(a, b, c, k uint64) uint64 {
		if c > 63 {
			return a
		}
		return bitops.DeltaSwap(a, b, uint(c))
	}, c: "fuse_delta_swap($a, $b, $c)"},
	OpParity:  {name: "parity", arity: 1, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return bitops.Parity(a) }, c: "FUSE_POPC($a) & 1"},
	OpGray:    {name: "gray", arity: 1, eval: func(a, b, c, k uint64) uint64 { return bitops.Gray(a) }, c: "fuse_xshr($a, 1)"},
	OpGrayInv: {name: "gray_inverse", arity: 1, eval: func(a, b, c, k uint64) uint64 { return bitops.GrayInverse(a) }, c: "fuse_gray_inv($a)"},

	// The ops of a Func beside the above.
	OpVar:     {name: "var", imm: ImmIndex},
	OpLoad:    {name: "load", arity: 1, imm: ImmIndex},
	OpLoad2:   {name: "load2", arity: 2, imm: ImmIndex},
	OpRowLen:  {name: "row_len", arity: 1, imm: ImmIndex},
	OpScratch: {name: "scratch", arity: 1, imm: ImmIndex},
	OpAndThen: {name: "and_then", arity: 2},
	OpOrElse:  {name: "or_else", arity: 2},
	OpCond:    {name: "cond", arity: 3},
	OpMin:     {name: "min", arity: 2, eval: func(a, b, c, k uint64) uint64 { return min(a, b) }, c: "fuse_min($a, $b)"},
	OpMax:     {name: "max", arity: 2, eval: func(a, b, c, k uint64) uint64 { return max(a, b) }, c: "fuse_max($a, $b)"},
	OpAbs: {name: "abs", arity: 1, eval: func(a, b, c, k uint64) uint64 {
		if int64(a) < 0 {
			return -a
		}
		return a
	}, c: "fuse_abs($a)"},
	OpCall:   {name: "call", imm: ImmIndex},
	OpArray:  {name: "array", imm: ImmIndex},
	OpDepth:  {name: "depth"},
	OpResult: {name: "result", imm: ImmValue},
	OpMulHi: {name: "mul_hi", arity: 2, eval: func(a, b, c, k uint64) uint64 {
		hi, _ := bits.Mul64(a, b)
		return hi
	}, c: "FUSE_MULHI($a, $b)"},
}

// def returns o's declaration (a zero opDef for an undeclared op).
func (o Op) def() *opDef {
	if int(o) < len(opDefs) {
		return &opDefs[o]
	}
	return &opDef{}
}

func (o Op) String() string {
	if n := o.def().name; n != "" {
		return n
	}
	return fmt.Sprintf("op%d", o)
}

// Arity returns the number of value operands of o: A, B, C of an Instr,
// Args of an Expr.
func (o Op) Arity() int { return o.def().arity }

// ZeroOne reports whether o's result is always 0 or 1 (a count adds such
// results).
func (o Op) ZeroOne() bool { return o.def().zeroOne }

// Meaning returns o's meaning on words (a, b, c the operands, imm the
// Instr's Imm), which Eval1 calls; nil for the ops each back end lowers
// itself (parameters, variables, loads, the lazy operators of a Func).
func (o Op) Meaning() func(a, b, c, imm uint64) uint64 { return o.def().eval }

// CSpelling returns o's C spelling, which the C generators print (package
// builtins/fuse/cgen): $a, $b, $c stand for the operands, each used at
// most once, $i for Imm in decimal, $x for Imm as a C constant and $s for
// 64 - Imm; it may call the generators' helpers and the FUSE_ macros each
// target's prelude defines. Empty for the ops without a meaning, except
// parameters (p0, p1, p2).
func (o Op) CSpelling() string { return o.def().c }

// ImmUse says what an op's Imm means.
func (o Op) ImmUse() ImmUse { return o.def().imm }

// checkDef declares one check kind: its name and its C spelling, which
// the C generators share; CheckOK, beside it, is its meaning in Go (a
// switch, which the block executor's check loop inlines).
type checkDef struct {
	name string
	// c is C that is true when the check fails (CheckOK is false): $a and
	// $b stand for the operands (names, which it may read several times)
	// and $i for Imm.
	c string
	// twoOperands: the check reads B as well as A.
	twoOperands bool
	// ofOps: the check may guard an op of a Func (Expr.Check; see
	// Guarded).
	ofOps bool
}

// checkDefs declares the check kinds of CheckOK (CheckIndex, which a Func's
// loads and stores make, is lowered by each back end with the index).
var checkDefs = [...]checkDef{
	CheckNonZero:  {name: "nonzero", ofOps: true, c: "$a == 0"},
	CheckFits:     {name: "fits", ofOps: true, c: "($a >> $i) != 0"},
	CheckDelta:    {name: "delta", twoOperands: true, ofOps: true, c: "$b > 63 || ($a << $b >> $b) != $a || ($b != 0 && (($a << $b) & $a) != 0)"},
	CheckReturned: {name: "returned", c: "$a == 0"},
	CheckAddExact: {name: "add_exact", twoOperands: true, ofOps: true, c: "$a + $b < $a"},
	CheckSubExact: {name: "sub_exact", twoOperands: true, ofOps: true, c: "$a < $b"},
	CheckMulExact: {name: "mul_exact", twoOperands: true, ofOps: true, c: "($b != 0 && $a > 0xffffffffffffffffULL / $b)"},
	CheckShlExact: {name: "shl_exact", twoOperands: true, ofOps: true, c: "($b > 63 || (($a << $b) >> $b) != $a)"},
}

// NumChecks bounds the check kinds that CheckOK knows (those of checkDefs).
const NumChecks = CheckKind(len(checkDefs))

// TwoOperands reports whether a check of kind k reads its B operand.
func (k CheckKind) TwoOperands() bool { return k < NumChecks && checkDefs[k].twoOperands }

// Name returns the name of a check kind that CheckOK knows ("" for
// another).
func (k CheckKind) Name() string {
	if k < NumChecks {
		return checkDefs[k].name
	}
	return ""
}

// CSpelling returns C that is true when a check of kind k fails (CheckOK
// is false), for the C generators: $a and $b stand for the operands
// (names, which it may read several times) and $i for Imm; empty for a
// kind that CheckOK does not know.
func (k CheckKind) CSpelling() string {
	if k < NumChecks {
		return checkDefs[k].c
	}
	return ""
}

// CheckOK reports whether a check of kind passes for operand values a, b
// and Imm imm: the meaning of each check kind of checkDefs.
func CheckOK(kind CheckKind, a, b, imm uint64) bool {
	switch kind {
	case CheckNonZero, CheckReturned:
		return a != 0
	case CheckFits:
		return imm >= 64 || a>>imm == 0
	case CheckDelta:
		return b <= 63 && a<<b>>b == a && (b == 0 || a<<b&a == 0)
	case CheckAddExact:
		return a+b >= a
	case CheckSubExact:
		return a >= b
	case CheckMulExact:
		hi, _ := bits.Mul64(a, b)
		return hi == 0
	case CheckShlExact:
		return b <= 63 && a<<b>>b == a
	}
	return false
}

// Guarded returns the operands that a check of kind on the Func op op
// tests, among the op's operands args (values or C names), and the one a
// failure reports (the delta of CheckDelta, else the tested operand); ok is
// false when no check of kind guards an op.
func Guarded[T any](op Op, kind CheckKind, args []T) (a, b, report T, ok bool) {
	if kind >= NumChecks || !checkDefs[kind].ofOps || op >= OpVar {
		return a, b, report, false
	}
	i := op.def().guard
	a, report = args[i], args[i]
	if checkDefs[kind].twoOperands {
		b = args[i+1]
		report = b
	}
	return a, b, report, true
}
