package fuse

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// opDef declares one op: what every back end needs to know of it beside
// its own lowering. The table opDefs is the op's one home: its name, its
// operands, what its Imm means, its meaning on words (which Eval1, and so
// the builder's constant folding, the reference evaluators and the block
// executor's scalar path, call; the word builtins' meaning comes from their
// kernels in builtins/bitops, the same functions the interpreter and word
// arrays call) and its C spelling (which ItemFunc, FuncC and so the CUDA
// sources print).
//
// Adding an op is one entry here plus each back end's lowering where it has
// one of its own: a vectorised loop in the block executor (exec.go; without
// one the op runs through Eval1 lane by lane), the compiler's translation
// (package compile) and the machine code of package native. TestOpTable
// fails when an entry lacks a part, TestOpTableExecutor and TestOpTableC
// when the block executor or a C generator disagrees with it.
type opDef struct {
	name  string
	arity int    // value operands: A, B, C (Program) or Args (Func)
	imm   immUse // what Imm means
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
	// c is the op's C spelling (see cExpr): $a, $b, $c stand for the
	// operands, each used at most once (FuncC passes expressions), $i for
	// Imm in decimal, $x for Imm as a C constant and $s for 64 - Imm. It
	// may call the helpers of cgen.go and the FUSE_ macros each target's
	// prelude defines. Empty where eval is nil, except for parameters
	// (p0, p1, p2 in ItemFunc).
	c string
}

// immUse says what an op's Imm means.
type immUse uint8

const (
	immNone  immUse = iota
	immValue        // the value itself (const)
	immIndex        // a parameter, variable, table or scratch array
	immWidth        // a width, 8, 16, 32 or 64 (the Builder turns 0 into 64)
	immShift        // a shift count below 64 (the executor's xorshifts)
	immMask         // a constant mask (popcount(A & Imm))
)

// numDefs bounds the ops of opDefs (the Func ops come last).
const numDefs = OpArray + 1

// opDefs declares every op (see opDef); the entries between the executor's
// own ops and the Func ops are unused.
var opDefs = [numDefs]opDef{
	OpConst: {name: "const", imm: immValue, eval: func(a, b, c, k uint64) uint64 { return k }, c: "$x"},
	OpParam: {name: "param", imm: immIndex, c: "p$i"},

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

	OpEq:   {name: "eq", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a == b) }, c: "(u64)($a == $b)"},
	OpNe:   {name: "ne", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a != b) }, c: "(u64)($a != $b)"},
	OpLt:   {name: "lt", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a < b) }, c: "(u64)($a < $b)"},
	OpLe:   {name: "le", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a <= b) }, c: "(u64)($a <= $b)"},
	OpGt:   {name: "gt", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a > b) }, c: "(u64)($a > $b)"},
	OpGe:   {name: "ge", arity: 2, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a >= b) }, c: "(u64)($a >= $b)"},
	OpLNot: {name: "lnot", arity: 1, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a == 0) }, c: "(u64)($a == 0)"},
	OpBool: {name: "bool", arity: 1, zeroOne: true, eval: func(a, b, c, k uint64) uint64 { return b2w(a != 0) }, c: "(u64)($a != 0)"},
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
	OpRotl:      {name: "rotl", arity: 2, imm: immWidth, eval: func(a, b, c, k uint64) uint64 { return rot(a, b, k) }, c: "fuse_rot($a, $b, $i)"},
	OpRotr:      {name: "rotr", arity: 2, imm: immWidth, eval: func(a, b, c, k uint64) uint64 { return rot(a, -b, k) }, c: "fuse_rot($a, 0 - $b, $i)"},
	OpReverse:   {name: "reverse", arity: 1, imm: immWidth, eval: func(a, b, c, k uint64) uint64 { return bitops.Reverse(a, uint(k)) }, c: "fuse_shr(fuse_rev64($a), $s)"},
	OpSwapBytes: {name: "swap_bytes", arity: 1, imm: immWidth, eval: func(a, b, c, k uint64) uint64 { return bitops.SwapBytes(a, uint(k)) }, c: "fuse_shr(fuse_bswap64($a), $s)"},
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

	// The block executor's own ops (peephole makes them).
	opPopAndK:   {name: "pop_and_k", arity: 1, imm: immMask, eval: func(a, b, c, k uint64) uint64 { return uint64(bits.OnesCount64(a & k)) }, c: "FUSE_POPC($a & $x)"},
	opXorShrK:   {name: "xor_shr_k", arity: 1, imm: immShift, eval: func(a, b, c, k uint64) uint64 { return a ^ a>>k }, c: "fuse_xshr($a, $i)"},
	opXorShlK:   {name: "xor_shl_k", arity: 1, imm: immShift, eval: func(a, b, c, k uint64) uint64 { return a ^ a<<k }, c: "fuse_xshl($a, $i)"},
	opXorShrMul: {name: "xor_shr_mul", arity: 2, imm: immShift, eval: func(a, b, c, k uint64) uint64 { return (a ^ a>>k) * b }, c: "fuse_xshr($a, $i) * $b"},
	opXorShlMul: {name: "xor_shl_mul", arity: 2, imm: immShift, eval: func(a, b, c, k uint64) uint64 { return (a ^ a<<k) * b }, c: "fuse_xshl($a, $i) * $b"},

	// The ops of a Func beside the above.
	OpVar:     {name: "var", imm: immIndex},
	OpLoad:    {name: "load", arity: 1, imm: immIndex},
	OpLoad2:   {name: "load2", arity: 2, imm: immIndex},
	OpRowLen:  {name: "row_len", arity: 1, imm: immIndex},
	OpScratch: {name: "scratch", arity: 1, imm: immIndex},
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
	OpCall:  {name: "call", imm: immIndex},
	OpArray: {name: "array", imm: immIndex},
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

// arity is the number of value operands of o.
func (o Op) arity() int { return o.def().arity }

// cExpr returns C computing op on the operands args (C expressions, each
// used once) with Imm imm, exactly as Eval1: the op's spelling in opDefs.
func cExpr(op Op, imm uint64, args ...string) string {
	d := op.def()
	if d.c == "" {
		panic("fuse: no C for " + op.String())
	}
	var a [3]string
	copy(a[:], args)
	return strings.NewReplacer("$a", a[0], "$b", a[1], "$c", a[2],
		"$i", fmt.Sprint(imm), "$x", fmt.Sprintf("%#xULL", imm), "$s", fmt.Sprint(64-imm)).Replace(d.c)
}

// checkDef declares one check kind: its name and its C spelling, which
// ItemFunc and FuncC share; checkOK, beside it, is its meaning in Go (a
// switch, which the block executor's check loop inlines).
type checkDef struct {
	name string
	// c is C that is true when the check fails (checkOK is false): $a and
	// $b stand for the operands (names, which it may read several times)
	// and $i for Imm.
	c string
	// twoOperands: the check reads B as well as A.
	twoOperands bool
	// ofOps: the check may guard an op of a Func (Expr.Check; see
	// guarded).
	ofOps bool
}

// checkDefs declares the check kinds of checkOK (CheckIndex, which a Func's
// loads and stores make, is lowered by each back end with the index).
var checkDefs = [...]checkDef{
	CheckNonZero:  {name: "nonzero", ofOps: true, c: "$a == 0"},
	CheckFits:     {name: "fits", ofOps: true, c: "($a >> $i) != 0"},
	CheckDelta:    {name: "delta", twoOperands: true, ofOps: true, c: "$b > 63 || ($a << $b >> $b) != $a || ($b != 0 && (($a << $b) & $a) != 0)"},
	CheckReturned: {name: "returned", c: "$a == 0"},
}

// numChecks is the number of the check kinds of checkDefs.
const numChecks = CheckKind(len(checkDefs))

// twoOperands reports whether a check of kind k reads its B operand.
func (k CheckKind) twoOperands() bool { return k < numChecks && checkDefs[k].twoOperands }

// checkOK reports whether a check of kind passes for operand values a, b
// and Imm imm: the meaning of each check kind of checkDefs.
func checkOK(kind CheckKind, a, b, imm uint64) bool {
	switch kind {
	case CheckNonZero, CheckReturned:
		return a != 0
	case CheckFits:
		return imm >= 64 || a>>imm == 0
	case CheckDelta:
		return b <= 63 && a<<b>>b == a && (b == 0 || a<<b&a == 0)
	}
	return false
}

// cCheckFails returns C that is true when a check of kind passes not for
// the operands a and b (C names) and Imm imm, or "" when the check cannot
// fail (a width of 64 or more).
func cCheckFails(kind CheckKind, a, b string, imm uint64) string {
	if kind >= numChecks {
		panic(fmt.Sprintf("fuse: no C for check kind %d", kind))
	}
	if kind == CheckFits && imm >= 64 {
		return ""
	}
	return strings.NewReplacer("$a", a, "$b", b, "$i", fmt.Sprint(imm)).Replace(checkDefs[kind].c)
}

// guarded returns the operands that a check of kind on the Func op op
// tests, among the op's operands args (values or C names), and the one a
// failure reports (the delta of CheckDelta, else the tested operand); ok is
// false when no check of kind guards an op.
func guarded[T any](op Op, kind CheckKind, args []T) (a, b, report T, ok bool) {
	if kind >= numChecks || !checkDefs[kind].ofOps || op >= OpVar {
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
