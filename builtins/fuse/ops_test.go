package fuse

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// declared reports whether op o must have an entry in opDefs: the ops of a
// Line and those of a Func.
func declared(o Op) bool { return o < NumOps || o >= OpVar && o < numDefs }

// TestOpTable: every op has a complete entry, and its C spelling names its
// operands and its Imm (TestOpSpellings, in package builtins/fuse/cgen,
// checks that the helpers and macros it calls exist).
func TestOpTable(t *testing.T) {
	names := map[string]Op{}
	for o := Op(0); o < numDefs; o++ {
		d := o.def()
		if !declared(o) {
			if d.name != "" || d.eval != nil || d.c != "" {
				t.Errorf("op %d is declared in a gap of opDefs (%q)", o, d.name)
			}
			continue
		}
		if d.name == "" {
			t.Errorf("op %d has no entry in opDefs", o)
			continue
		}
		if p, dup := names[d.name]; dup {
			t.Errorf("ops %d and %d are both named %q", p, o, d.name)
		}
		names[d.name] = o
		if d.arity < 0 || d.arity > 3 || d.guard >= max(d.arity, 1) {
			t.Errorf("%s: arity %d, guard %d", d.name, d.arity, d.guard)
		}
		// A word op (one whose operands are all computed first) has both
		// a meaning and a C spelling; parameters only C; the structural ops
		// of a Func neither.
		structural := o == OpVar || o == OpLoad || o == OpLoad2 || o == OpRowLen || o == OpScratch ||
			o == OpAndThen || o == OpOrElse || o == OpCond || o == OpCall || o == OpArray || o == OpDepth || o == OpResult
		switch {
		case o == OpParam:
			if d.eval != nil || d.c == "" {
				t.Errorf("param: a C spelling and no meaning, got eval %v, c %q", d.eval != nil, d.c)
			}
		case structural:
			if d.eval != nil || d.c != "" {
				t.Errorf("%s is lowered by each back end: no eval or C in the table", d.name)
			}
		default:
			if d.eval == nil {
				t.Errorf("%s has no meaning (eval): Eval1 misses it", d.name)
			}
			if d.c == "" {
				t.Errorf("%s has no C spelling: the C generators miss it", d.name)
			}
		}
		if d.c == "" {
			continue
		}
		for i, ph := range []string{"$a", "$b", "$c"} {
			want := 0
			if i < d.arity {
				want = 1
			}
			if n := strings.Count(d.c, ph); n != want {
				t.Errorf("%s: C %q uses %s %d times, want %d (arity %d; each operand once)", d.name, d.c, ph, n, want, d.arity)
			}
		}
		usesImm := strings.Contains(d.c, "$i") || strings.Contains(d.c, "$x") || strings.Contains(d.c, "$s")
		if usesImm != (d.imm != ImmNone) {
			t.Errorf("%s: C %q uses Imm %v, but the op's Imm use is %d", d.name, d.c, usesImm, d.imm)
		}
	}
	// Op names print from the table, and ops outside it print as numbers.
	if OpGrayInv.String() != "gray_inverse" || OpAbs.String() != "abs" || Op(60).String() != "op60" {
		t.Errorf("names: %s %s %s", OpGrayInv, OpAbs, Op(60))
	}
	for k := CheckKind(0); k < NumChecks; k++ {
		if d := checkDefs[k]; d.name == "" || d.c == "" {
			t.Errorf("check kind %d has an incomplete entry %+v", k, d)
		}
	}
}

// TestOpTableZeroOne: the ops declared 0/1 give 0 or 1, as a count relies
// on.
func TestOpTableZeroOne(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	word := func() uint64 { // small values and edges, as well as any word
		switch r.IntN(4) {
		case 0:
			return uint64(r.IntN(70))
		case 1:
			return -uint64(r.IntN(3))
		case 2:
			return 1 << r.IntN(64)
		}
		return r.Uint64() >> r.IntN(64)
	}
	for o := Op(0); o < numDefs; o++ {
		if d := o.def(); d.zeroOne {
			for j := 0; j < 1000; j++ {
				if v := d.eval(word(), word(), word(), 0); v > 1 {
					t.Fatalf("%s is declared 0/1 but gives %#x", o, v)
				}
			}
		}
	}
}

// TestOpMulHi: mul_hi's meaning is the high word of the integer product,
// computed with math/big, on edge words and random ones.
func TestOpMulHi(t *testing.T) {
	words := []uint64{0, 1, 2, 3, 1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<63 - 1, 1 << 63, 1<<64 - 1, 0x9e3779b97f4a7c15}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		words = append(words, r.Uint64())
	}
	mean := OpMulHi.Meaning()
	for _, a := range words {
		for _, b := range words {
			p := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
			want := p.Rsh(p, 64).Uint64()
			if got := mean(a, b, 0, 0); got != want {
				t.Errorf("mul_hi(%#x, %#x) = %#x, want %#x", a, b, got, want)
			}
			if got := Eval1(Instr{Op: OpMulHi}, a, b, 0); got != want {
				t.Errorf("Eval1 mul_hi(%#x, %#x) = %#x, want %#x", a, b, got, want)
			}
		}
	}
}
