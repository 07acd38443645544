package fuse

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// declared reports whether op o must have an entry in opDefs: the ops of a
// Program, the block executor's own and those of a Func.
func declared(o Op) bool { return o < numXOps || o >= OpVar && o < numDefs }

// TestOpTable: every op has a complete entry, and its C spelling names its
// operands, its Imm and the helpers that exist.
func TestOpTable(t *testing.T) {
	names := map[string]Op{}
	helperDefs := regexp.MustCompile(`FUSE_FN u64 (fuse_\w+)\(`).FindAllStringSubmatch(helpers, -1)
	defined := map[string]bool{}
	for _, m := range helperDefs {
		defined[m[1]] = true
	}
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
			o == OpAndThen || o == OpOrElse || o == OpCond || o == OpCall || o == OpArray
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
		if usesImm != (d.imm != immNone) {
			t.Errorf("%s: C %q uses Imm %v, but the op's Imm use is %d", d.name, d.c, usesImm, d.imm)
		}
		for _, m := range regexp.MustCompile(`fuse_\w+`).FindAllString(d.c, -1) {
			if !defined[m] {
				t.Errorf("%s: C %q calls %s, which helpers does not define", d.name, d.c, m)
			}
		}
		for _, m := range regexp.MustCompile(`FUSE_\w+`).FindAllString(d.c, -1) {
			for _, pre := range []string{preludeC, preludeCUDA} {
				if !strings.Contains(pre, "#define "+m+"(") {
					t.Errorf("%s: C %q uses %s, which a prelude does not define", d.name, d.c, m)
				}
			}
		}
	}
	// Op names print from the table, and ops outside it print as numbers.
	if OpGrayInv.String() != "gray_inverse" || OpAbs.String() != "abs" || Op(60).String() != "op60" {
		t.Errorf("names: %s %s %s", OpGrayInv, OpAbs, Op(60))
	}
	for k := CheckKind(0); k < numChecks; k++ {
		if d := checkDefs[k]; d.name == "" || d.c == "" {
			t.Errorf("check kind %d has an incomplete entry %+v", k, d)
		}
	}
}

// opImms returns the Imm values to try for an op.
func opImms(r *rand.Rand, o Op) []uint64 {
	switch o.def().imm {
	case immWidth:
		return []uint64{8, 16, 32, 64}
	case immShift:
		return []uint64{0, 1, 7, 33, 63}
	case immMask:
		return []uint64{0, ^uint64(0), randWord(r), r.Uint64()}
	}
	return []uint64{0}
}

// opProgram is a program of one instruction op on the parameters (on the
// constant k as its operand B when konst), so that Compile keeps it as it is.
func opProgram(o Op, imm uint64, konst bool, k uint64) *Program {
	p := &Program{Params: 3}
	for i := 0; i < 3; i++ {
		p.Instrs = append(p.Instrs, Instr{Op: OpParam, Imm: uint64(i), A: -1, B: -1, C: -1})
	}
	b := Value(1)
	if konst {
		p.Instrs = append(p.Instrs, Instr{Op: OpConst, Imm: k, A: -1, B: -1, C: -1})
		b = 3
	}
	in := Instr{Op: o, A: 0, B: b, C: 2, Imm: imm}
	n := o.arity()
	if n < 3 {
		in.C = -1
	}
	if n < 2 {
		in.B = -1
	}
	p.Instrs = append(p.Instrs, in)
	p.Result = Value(len(p.Instrs) - 1)
	return p
}

// programOps are the ops of the table that a Program may hold, with each
// Imm to try, and whether operand B is a constant (the executor's
// immediate forms).
type programOp struct {
	op    Op
	imm   uint64
	konst bool
	k     uint64
}

func programOps(r *rand.Rand) []programOp {
	var out []programOp
	for o := OpAdd; o < numXOps; o++ {
		for _, imm := range opImms(r, o) {
			out = append(out, programOp{o, imm, false, 0})
			if o.arity() >= 2 {
				for _, k := range []uint64{0, 1, 63, 64, randWord(r) | 1} {
					out = append(out, programOp{o, imm, true, k})
				}
			}
		}
	}
	return out
}

// opInputs are edge words for the three operands, with now and then a
// valid delta_swap (mask, delta) pair.
func opInputs(r *rand.Rand, n int) [3]Array {
	var in [3]Array
	for i := range in {
		in[i] = make(Array, n)
		for j := range in[i] {
			in[i][j] = randWord(r)
		}
	}
	for j := 0; j < n; j += 3 {
		d := r.Uint64N(64)
		in[1][j] = r.Uint64() >> d & (^uint64(0) >> (64 - max(d, 1)))
		in[2][j] = d
	}
	return in
}

// TestOpTableExecutor: the block executor runs every op of the table a
// Program may hold (its vectorised loops, its immediate forms, its scalar
// path) exactly as Eval1 does, over more than one block.
func TestOpTableExecutor(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n = Block + 77
	for _, po := range programOps(r) {
		p := opProgram(po.op, po.imm, po.konst, po.k)
		in := opInputs(r, n)
		out := make([]uint64, n)
		if _, err := Compile(p).Run(context.Background(), []Space{in[0], in[1], in[2]}, Map, Options{Workers: 1, Out: out}); err != nil {
			t.Fatalf("%s: %v", po.op, err)
		}
		for j := range out {
			b := in[1][j]
			if po.konst {
				b = po.k
			}
			if want := Eval1(Instr{Op: po.op, Imm: po.imm}, in[0][j], b, in[2][j]); out[j] != want {
				t.Fatalf("%s (imm %d, constant b %v) of %#x, %#x, %#x: executor %#x, Eval1 %#x", po.op, po.imm, po.konst, in[0][j], b, in[2][j], out[j], want)
			}
		}
	}
	// The 0/1 ops' results are 0 or 1, as a count relies on.
	for o := Op(0); o < numDefs; o++ {
		if d := o.def(); d.zeroOne {
			for j := 0; j < 1000; j++ {
				if v := d.eval(randWord(r), randWord(r), randWord(r), 0); v > 1 {
					t.Fatalf("%s is declared 0/1 but gives %#x", o, v)
				}
			}
		}
	}
}

// TestOpTableC: both C generators compute every op of the table as Eval1
// does, and ItemFunc every check kind as checkOK does (the system C
// compiler runs the code).
func TestOpTableC(t *testing.T) {
	cc := cCompiler()
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang) found: the table's C spellings are not checked")
	}
	r := rand.New(rand.NewPCG(23, 24))
	const n = 64
	type run struct {
		what string
		in   [3]Array
		want func(j int) (int, uint64) // err, result
	}
	var runs []run
	var src, calls strings.Builder
	// FuncC first: its prelude (guarded) holds ItemFunc's and its own.
	var flowOps []Op
	for o := Op(0); o < numDefs; o++ {
		if d := o.def(); d.eval != nil && d.c != "" && o != OpConst {
			flowOps = append(flowOps, o)
		}
	}
	for _, o := range flowOps {
		for _, imm := range opImms(r, o) {
			args := []*Expr{{Op: OpVar, Imm: 0, Check: -1}, {Op: OpVar, Imm: 1, Check: -1}, {Op: OpVar, Imm: 2, Check: -1}}[:o.arity()]
			f := &Func{Params: 3, Vars: 3, Body: []Stmt{{Kind: SReturn, X: &Expr{Op: o, Imm: imm, Args: args, Check: -1}}}}
			i := len(runs)
			fmt.Fprintf(&src, "#define fused_func fused_func_%d\n%s#undef fused_func\n", i, FuncC(f, C))
			fmt.Fprintf(&calls, "\tfor (int j = 0; j < %d; j++) { u64 fuel = 1, res = 0; int st = fused_func_%d(in%d[0][j], in%d[1][j], in%d[2][j], 0, 0, 0, &fuel, &res); printf(\"%%d %%llu\\n\", st, res); }\n", n, i, i, i, i)
			in := opInputs(r, n)
			runs = append(runs, run{fmt.Sprintf("FuncC %s/%d", o, imm), in, func(j int) (int, uint64) {
				return CReturned, Eval1(Instr{Op: o, Imm: imm}, in[0][j], in[1][j], in[2][j])
			}})
		}
	}
	item := func(p *Program, what string, want func(in [3]Array, j int) (int, uint64)) {
		i := len(runs)
		body := ItemFunc(p, C)
		body = body[strings.Index(body, "FUSE_FN u64 fused_item"):]
		src.WriteString(strings.Replace(body, "fused_item", fmt.Sprintf("fused_item_%d", i), 1))
		fmt.Fprintf(&calls, "\tfor (int j = 0; j < %d; j++) { int err = 0; u64 v = fused_item_%d(in%d[0][j], in%d[1][j], in%d[2][j], &err); printf(\"%%d %%llu\\n\", err, v); }\n", n, i, i, i, i)
		in := opInputs(r, n)
		runs = append(runs, run{what, in, func(j int) (int, uint64) { return want(in, j) }})
	}
	for _, po := range programOps(r) {
		po := po
		item(opProgram(po.op, po.imm, po.konst, po.k), fmt.Sprintf("ItemFunc %s/%d (constant b %v)", po.op, po.imm, po.konst), func(in [3]Array, j int) (int, uint64) {
			b := in[1][j]
			if po.konst {
				b = po.k
			}
			return 0, Eval1(Instr{Op: po.op, Imm: po.imm}, in[0][j], b, in[2][j])
		})
	}
	for k := CheckKind(0); k < numChecks; k++ {
		for _, imm := range []uint64{0, 1, 8, 33, 63, 64} {
			p := opProgram(OpXor, 0, false, 0)
			p.Checks = []Check{{Kind: k, A: 1, B: 2, Imm: imm, Mask: NoMask, At: len(p.Instrs)}}
			k, imm := k, imm
			item(p, fmt.Sprintf("check %s/%d", checkDefs[k].name, imm), func(in [3]Array, j int) (int, uint64) {
				if !checkOK(k, in[1][j], in[2][j], imm) {
					return 1, 0
				}
				return 0, in[0][j] ^ in[1][j]
			})
		}
	}
	var data strings.Builder
	for i, rn := range runs {
		for c := range rn.in {
			fmt.Fprintf(&data, "static const u64 in%d_%d[] = {", i, c)
			for _, x := range rn.in[c] {
				fmt.Fprintf(&data, "%#xULL,", x)
			}
			data.WriteString("};\n")
		}
		fmt.Fprintf(&data, "static const u64 *in%d[3] = {in%d_0, in%d_1, in%d_2};\n", i, i, i, i)
	}
	prog := src.String() + data.String() + "#include <stdio.h>\nint main(void) {\n" + calls.String() + "\treturn 0;\n}\n"
	lines := strings.Split(strings.TrimSpace(runC(t, cc, prog)), "\n")
	if len(lines) != len(runs)*n {
		t.Fatalf("%d lines of output, want %d", len(lines), len(runs)*n)
	}
	for i, rn := range runs {
		for j := 0; j < n; j++ {
			var st int
			var v uint64
			fmt.Sscanf(lines[i*n+j], "%d %d", &st, &v)
			if ws, wv := rn.want(j); st != ws || v != wv {
				t.Errorf("%s on %#x, %#x, %#x: C gives (%d, %#x), want (%d, %#x)", rn.what, rn.in[0][j], rn.in[1][j], rn.in[2][j], st, v, ws, wv)
				break
			}
		}
	}
	t.Logf("%d functions, %d items compared", len(runs), len(runs)*n)
}
