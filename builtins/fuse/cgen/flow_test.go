package cgen_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
)

// cOut is what fused_func gave for one item: a status and a word.
type cOut struct {
	status int
	val    uint64
}

// evalOut is what FuncC promises for the item: Eval's result in the
// statuses of the generated code.
func evalOut(st *fuse.FlowState, in []uint64) cOut {
	res, err := st.Eval(in)
	var fe *fuse.FlowError
	switch {
	case err == nil:
		return cOut{cgen.Returned, res}
	case errors.As(err, &fe):
		return cOut{cgen.Failed + fe.Check, fe.Value}
	case errors.Is(err, fuse.ErrStopped):
		return cOut{cgen.Stopped, 0}
	}
	return cOut{cgen.NoReturn, 0}
}

func needCC(t *testing.T) string {
	t.Helper()
	cc := cgen.CCompiler()
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang; or $CC) found: the generated C of fused functions is not checked")
	}
	return cc
}

// runProgram compiles C source and returns what it prints.
func runProgram(t *testing.T, cc, src, opt string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "f")
	if out, err := exec.Command(cc, opt, "-w", "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	return string(out)
}

func words(ws []uint64) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "%#xULL, ", w)
	}
	b.WriteString("0")
	return b.String()
}

// cCase is a function and the inputs to run it on.
type cCase struct {
	name   string
	f      *fuse.Func
	inputs [][]uint64
}

// runFuncsC runs every case's fused_func, all in one C program, on its
// inputs (one state and one fuel count per function, carried from item to
// item), with the stop flag set to stop, and returns the outputs.
func runFuncsC(t *testing.T, cc string, cases []cCase, stop bool, opt string) [][]cOut {
	t.Helper()
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n")
	for k, c := range cases {
		fmt.Fprintf(&b, "#define fused_func fused_func_%d\n%s#undef fused_func\n", k, cgen.FuncC(c.f, cgen.C))
		fmt.Fprintf(&b, "static const u64 tab_%d[] = {%s};\n", k, words(cgen.TableWords(c.f)))
		fmt.Fprintf(&b, "static u64 state_%d[%d];\n", k, cgen.StateWords(c.f)+1)
		fmt.Fprintf(&b, "static const u64 in_%d[][3] = {", k)
		for _, in := range c.inputs {
			p := [3]uint64{}
			copy(p[:], in)
			fmt.Fprintf(&b, "{%#xULL, %#xULL, %#xULL}, ", p[0], p[1], p[2])
		}
		b.WriteString("{0, 0, 0}};\n")
		// A function per case: one huge main would be slow to compile.
		fmt.Fprintf(&b, "__attribute__((noinline)) static void run_%d(volatile int *stop) {\n", k)
		fmt.Fprintf(&b, "\tu64 fuel = FUSE_POLL_EVERY;\n\tfor (int i = 0; i < %d; i++) { u64 r = 0; int s = fused_func_%d(in_%d[i][0], in_%d[i][1], in_%d[i][2], state_%d, tab_%d, stop, &fuel, &r); printf(\"%%d %%llu\\n\", s, r); }\n}\n",
			len(c.inputs), k, k, k, k, k, k)
	}
	b.WriteString("int main(void) {\n")
	fmt.Fprintf(&b, "\tstatic volatile int stop = %d;\n", map[bool]int{false: 0, true: 1}[stop])
	for k := range cases {
		fmt.Fprintf(&b, "\trun_%d(&stop);\n", k)
	}
	b.WriteString("\treturn 0;\n}\n")
	lines := strings.Split(strings.TrimSpace(runProgram(t, cc, b.String(), opt)), "\n")
	outs := make([][]cOut, len(cases))
	for k, c := range cases {
		outs[k] = make([]cOut, len(c.inputs))
		for i := range c.inputs {
			if len(lines) == 0 {
				t.Fatalf("the C program printed too few lines")
			}
			if _, err := fmt.Sscan(lines[0], &outs[k][i].status, &outs[k][i].val); err != nil {
				t.Fatalf("%q: %v", lines[0], err)
			}
			lines = lines[1:]
		}
	}
	return outs
}

// compareC runs the cases as C and under Eval (a fresh state each, polled
// as the C program is) and reports every difference; it returns the
// number of items compared.
func compareC(t *testing.T, cc string, cases []cCase, stop bool, opt string) int {
	t.Helper()
	outs := runFuncsC(t, cc, cases, stop, opt)
	n := 0
	for k, c := range cases {
		st := c.f.NewState(func() bool { return stop })
		for i, in := range c.inputs {
			want := evalOut(st, in)
			if outs[k][i] != want {
				t.Errorf("%s%v: C gives status %d value %#x; Eval status %d value %#x\n%s", c.name, in, outs[k][i].status, outs[k][i].val, want.status, want.val, c.f)
				break
			}
			n++
		}
	}
	return n
}

func compileScript(t *testing.T, src string) *fuse.Func {
	t.Helper()
	s, err := fusescript.Load(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return f
}

// edgeInputs are words where the ops change behaviour, with random ones.
func edgeInputs(r *rand.Rand, n, params int) [][]uint64 {
	edges := []uint64{0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 255, 1 << 31, 1 << 32, 1<<63 - 1, 1 << 63, 1<<63 + 1, ^uint64(0), ^uint64(1), 0x5555555555555555, 0xffff}
	out := make([][]uint64, n)
	for i := range out {
		in := make([]uint64, params)
		for j := range in {
			switch r.IntN(3) {
			case 0:
				in[j] = edges[r.IntN(len(edges))]
			case 1:
				in[j] = r.Uint64N(70)
			default:
				in[j] = r.Uint64()
			}
		}
		out[i] = in
	}
	return out
}

func konst(x uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpConst, Imm: x, Check: -1} }
func param(i int) *fuse.Expr    { return &fuse.Expr{Op: fuse.OpVar, Imm: uint64(i), Check: -1} }
func op(o fuse.Op, imm uint64, chk int, args ...*fuse.Expr) *fuse.Expr {
	return &fuse.Expr{Op: o, Imm: imm, Args: args, Check: chk}
}

// opCases returns a Func per expression op (and per width or check where
// the op has them), each returning the op on its three parameters.
func opCases() []cCase {
	type oc struct {
		op    fuse.Op
		imm   uint64
		check fuse.CheckKind
		cimm  uint64
		ary   int
	}
	none := fuse.CheckKind(255)
	var ocs []oc
	for o := fuse.OpAdd; o <= fuse.OpGrayInv; o++ {
		switch o {
		case fuse.OpNot, fuse.OpNeg, fuse.OpLNot, fuse.OpBool, fuse.OpPopcount, fuse.OpBsf, fuse.OpBsr, fuse.OpLsb, fuse.OpParity, fuse.OpGray, fuse.OpGrayInv:
			ocs = append(ocs, oc{op: o, check: none, ary: 1})
		case fuse.OpSelect, fuse.OpDeltaSwap:
			ocs = append(ocs, oc{op: o, check: none, ary: 3})
		case fuse.OpRotl, fuse.OpRotr:
			for _, w := range []uint64{8, 16, 32, 64} {
				ocs = append(ocs, oc{op: o, imm: w, check: none, ary: 2}, oc{op: o, imm: w, check: fuse.CheckFits, cimm: w, ary: 2})
			}
		case fuse.OpReverse, fuse.OpSwapBytes:
			for _, w := range []uint64{8, 16, 32, 64} {
				ocs = append(ocs, oc{op: o, imm: w, check: none, ary: 1}, oc{op: o, imm: w, check: fuse.CheckFits, cimm: w, ary: 1})
			}
		default:
			ocs = append(ocs, oc{op: o, check: none, ary: 2})
		}
	}
	ocs = append(ocs,
		oc{op: fuse.OpDiv, check: fuse.CheckNonZero, ary: 2}, oc{op: fuse.OpMod, check: fuse.CheckNonZero, ary: 2},
		oc{op: fuse.OpBsf, check: fuse.CheckNonZero, ary: 1}, oc{op: fuse.OpBsr, check: fuse.CheckNonZero, ary: 1},
		oc{op: fuse.OpDeltaSwap, check: fuse.CheckDelta, ary: 3},
		oc{op: fuse.OpMin, check: none, ary: 2}, oc{op: fuse.OpMax, check: none, ary: 2}, oc{op: fuse.OpAbs, check: none, ary: 1}, oc{op: fuse.OpMulHi, check: none, ary: 2},
		oc{op: fuse.OpAndThen, check: none, ary: 2}, oc{op: fuse.OpOrElse, check: none, ary: 2}, oc{op: fuse.OpCond, check: none, ary: 3})
	r := rand.New(rand.NewPCG(7, 8))
	var cases []cCase
	for _, o := range ocs {
		f := &fuse.Func{Params: 3, Vars: 3}
		chk := -1
		if o.check != none {
			f.Checks = []fuse.Check{{Kind: o.check, Imm: o.cimm, Msg: "check"}}
			chk = 0
		}
		args := []*fuse.Expr{param(0), param(1), param(2)}[:o.ary]
		if o.op == fuse.OpDeltaSwap && o.check == none {
			// Unchecked, delta_swap is defined for every delta.
			args[2] = op(fuse.OpAnd, 0, -1, param(2), konst(127))
		}
		f.Body = []fuse.Stmt{{Kind: fuse.SReturn, X: op(o.op, o.imm, chk, args...)}}
		name := fmt.Sprintf("%s/%d/check%d", o.op, o.imm, o.check)
		if o.op >= fuse.OpVar {
			name = fmt.Sprintf("flow op %d", o.op)
		}
		inputs := edgeInputs(r, 200, 3)
		if o.op == fuse.OpDeltaSwap && o.check != none {
			// Valid (mask, delta) pairs now and then.
			for i := 0; i < len(inputs); i += 3 {
				d := r.Uint64N(64)
				inputs[i][1] = r.Uint64() >> d & (^uint64(0) >> (64 - max(d, 1)))
				inputs[i][2] = d
			}
		}
		cases = append(cases, cCase{name, f, inputs})
	}
	return cases
}

// TestFuncCOps: each expression op, with and without its checks, computes
// in the generated C what Eval computes, and fails with the same check and
// value.
func TestFuncCOps(t *testing.T) {
	cc := needCC(t)
	n := compareC(t, cc, opCases(), false, "-O2")
	t.Logf("%d items compared", n)
}

// irCases are Funcs written as IR, for what the compiler does not make:
// a continue of an outer loop, a select, a flat table read by row, a check
// without a message (-1), a fail with a value, a body without return.
func irCases() []cCase {
	v := param
	asg := func(i int, x *fuse.Expr) fuse.Stmt { return fuse.Stmt{Kind: fuse.SAssign, Var: i, X: x} }
	add := func(a, b *fuse.Expr) *fuse.Expr { return op(fuse.OpAdd, 0, -1, a, b) }
	r := rand.New(rand.NewPCG(9, 10))
	var cases []cCase
	// for i in range(8): for j in range(8): if j > i: continue outer; s += i*8+j
	outer := &fuse.Func{Params: 1, Vars: 4, Labels: 2}
	outer.Body = []fuse.Stmt{
		asg(1, v(0)),
		{Kind: fuse.SForRange, Var: 2, X: konst(0), Y: op(fuse.OpAnd, 0, -1, v(0), konst(15)), Z: konst(1), Label: 0, Check: -1, Body: []fuse.Stmt{
			{Kind: fuse.SForRange, Var: 3, X: konst(0), Y: konst(8), Z: konst(1), Label: 1, Check: -1, Body: []fuse.Stmt{
				{Kind: fuse.SIf, X: op(fuse.OpGt, 0, -1, v(3), v(2)), Body: []fuse.Stmt{{Kind: fuse.SContinue, Label: 0}}},
				{Kind: fuse.SIf, X: op(fuse.OpEq, 0, -1, v(3), konst(6)), Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: 0}}},
				asg(1, op(fuse.OpMul, 0, -1, add(v(1), op(fuse.OpSelect, 0, -1, op(fuse.OpBool, 0, -1, v(3)), v(2), konst(77))), konst(3))),
			}},
		}},
		{Kind: fuse.SReturn, X: v(1)},
	}
	cases = append(cases, cCase{"continue outer", outer, edgeInputs(r, 100, 1)})
	// A flat table read as rows, and a row table read flat; index checks
	// of -1 (no message).
	tabs := &fuse.Func{Params: 2, Vars: 2, Tables: []fuse.Table{{Name: "F", Flat: true, Rows: [][]uint64{{5, 6, 7}}}, {Name: "R", Rows: [][]uint64{{1}, {}, {2, 3, 4}}}}}
	tabs.Body = []fuse.Stmt{{Kind: fuse.SReturn, X: add(add(
		op(fuse.OpLoad2, 0, -1, op(fuse.OpAnd, 0, -1, v(0), konst(1)), v(1)),
		op(fuse.OpLoad, 1, -1, op(fuse.OpAnd, 0, -1, v(1), konst(3)))),
		op(fuse.OpRowLen, 1, -1, op(fuse.OpMod, 0, -1, v(0), konst(4))))}}
	tin := edgeInputs(r, 300, 2)
	for i := range tin {
		tin[i][0], tin[i][1] = tin[i][0]%5-2, tin[i][1]%9-4
	}
	cases = append(cases, cCase{"tables", tabs, tin})
	// fail with a value; a body that ends without return.
	fail := &fuse.Func{Params: 1, Vars: 1, Checks: []fuse.Check{{Kind: fuse.CheckReturned, Msg: "x"}}}
	fail.Body = []fuse.Stmt{
		{Kind: fuse.SIf, X: op(fuse.OpAnd, 0, -1, v(0), konst(1)), Body: []fuse.Stmt{{Kind: fuse.SFail, Check: 0, X: add(v(0), konst(1))}}},
		{Kind: fuse.SIf, X: op(fuse.OpAnd, 0, -1, v(0), konst(2)), Body: []fuse.Stmt{{Kind: fuse.SFail, Check: 0}}},
		{Kind: fuse.SIf, X: op(fuse.OpAnd, 0, -1, v(0), konst(4)), Body: []fuse.Stmt{{Kind: fuse.SReturn, X: v(0)}}},
	}
	cases = append(cases, cCase{"fail", fail, edgeInputs(r, 100, 1)})
	// A scratch array: stores, fresh, reads before and after; a store
	// whose index check is -1.
	scr := &fuse.Func{Params: 2, Vars: 3, Scratch: []fuse.Scratch{{Name: "a", Len: 5, Init: 9}}, Checks: []fuse.Check{{Kind: fuse.CheckIndex, Msg: "a"}}, Labels: 1}
	sread := func(i *fuse.Expr) *fuse.Expr { return op(fuse.OpScratch, 0, 0, i) }
	scr.Body = []fuse.Stmt{
		{Kind: fuse.SFresh, Arr: 0},
		{Kind: fuse.SStore, Arr: 0, X: op(fuse.OpMod, 0, -1, v(0), konst(7)), Y: v(1), Check: -1},
		asg(2, sread(op(fuse.OpMod, 0, -1, v(1), konst(5)))),
		{Kind: fuse.SForBits, Var: 1, X: op(fuse.OpAnd, 0, -1, v(0), konst(0x3c)), Label: 0, Body: []fuse.Stmt{
			{Kind: fuse.SStore, Arr: 0, X: op(fuse.OpSub, 0, -1, konst(0), op(fuse.OpShr, 0, -1, v(1), konst(1))), Y: add(v(1), sread(konst(0))), Check: 0},
			{Kind: fuse.SIf, X: op(fuse.OpEq, 0, -1, v(1), konst(4)), Body: []fuse.Stmt{{Kind: fuse.SFresh, Arr: 0}}},
		}},
		{Kind: fuse.SReturn, X: add(v(2), add(sread(konst(0)), add(sread(konst(1)), sread(konst(4)))))},
	}
	cases = append(cases, cCase{"scratch", scr, edgeInputs(r, 300, 2)})
	return cases
}

// TestFuncCConstructs runs the constructs of the fused language (the
// shared Starlark cases, compiled) and IR written by hand as C and
// compares them with Eval.
func TestFuncCConstructs(t *testing.T) {
	cc := needCC(t)
	var cases []cCase
	for _, tc := range fusescript.Constructs {
		cases = append(cases, cCase{tc.Name, compileScript(t, tc.Src), fusescript.Inputs(300, tc.Params, tc.Small)})
	}
	cases = append(cases, irCases()...)
	n := compareC(t, cc, cases, false, "-O1")
	t.Logf("%d items compared", n)
}

// recursiveCases are the shared Starlark cases of helpers that recurse,
// compiled, with runaway recursion (direct and mutual, with a frame array)
// and copies whose Depth is small, so that the depth check fails too.
func recursiveCases(t *testing.T, n int) []cCase {
	var cases []cCase
	for _, tc := range fusescript.Recursive {
		cases = append(cases, cCase{tc.Name, compileScript(t, tc.Src), fusescript.Inputs(n, tc.Params, tc.Small)})
	}
	for i, src := range []string{
		"def f(x):\n    return f(x + 1) + 1\n",
		"def g(x):\n    return h(x) + 1\ndef h(x):\n    return g(x + 1)\ndef f(x):\n    return g(x)\n",
		"def g(x):\n    a = [7] * 9\n    a[x % 9] = x\n    return g(a[(x + 1) % 9] + x) + a[x % 9]\ndef f(x):\n    return g(x)\n",
	} {
		cases = append(cases, cCase{fmt.Sprintf("runaway %d", i), compileScript(t, src), fusescript.Inputs(3, 1, false)})
	}
	for _, name := range []string{"self", "mutual", "fused_itself", "frames_and_arrays", "table_argument", "deep_failure"} {
		for _, tc := range fusescript.Recursive {
			if tc.Name == name {
				f := compileScript(t, tc.Src)
				f.Depth = 3
				cases = append(cases, cCase{tc.Name + " depth 3", f, fusescript.Inputs(n, tc.Params, tc.Small)})
			}
		}
	}
	return append(cases, procIRCases()...)
}

// procIRCases are Funcs with Procs written as IR, for what the compiler
// does not make: a helper that makes fresh an array it was passed (of the
// caller's frame and of the function's state), a helper that runs off its
// end, and a table of rows read in a helper.
func procIRCases() []cCase {
	v := param
	and := func(a *fuse.Expr, k uint64) *fuse.Expr { return op(fuse.OpAnd, 0, -1, a, konst(k)) }
	add := func(a, b *fuse.Expr) *fuse.Expr { return op(fuse.OpAdd, 0, -1, a, b) }
	sread := func(a int, i *fuse.Expr) *fuse.Expr { return op(fuse.OpScratch, uint64(a), 0, i) }
	arr := func(a int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a), Check: -1} }
	call := func(p int, args ...*fuse.Expr) *fuse.Expr { return op(fuse.OpCall, uint64(p), 1, args...) }
	checks := []fuse.Check{{Kind: fuse.CheckIndex, Msg: "index"}, {Kind: fuse.CheckDepth, Msg: "depth"}}
	// p0(x, a): stores x at a[x % 5], makes a fresh when x & 8, returns
	// a[0]. (Its array parameter has the length and Init of every array
	// passed to it, as the compiler makes them.)
	p0 := fuse.Proc{Name: "clear", Params: 1, Arrays: 1, Vars: 1, Scratch: []fuse.Scratch{{Name: "a", Len: 5, Init: 9}}, Body: []fuse.Stmt{
		{Kind: fuse.SStore, Arr: 0, X: op(fuse.OpMod, 0, -1, v(0), konst(5)), Y: v(0), Check: 0},
		{Kind: fuse.SIf, X: and(v(0), 8), Body: []fuse.Stmt{{Kind: fuse.SFresh, Arr: 0}}},
		{Kind: fuse.SReturn, X: sread(0, konst(0))},
	}}
	// p1(x): an array of its own, given to p0, read after.
	p1 := fuse.Proc{Name: "own", Params: 1, Vars: 2, Scratch: []fuse.Scratch{{Name: "b", Len: 5, Init: 9}}, Body: []fuse.Stmt{
		{Kind: fuse.SFresh, Arr: 0},
		{Kind: fuse.SStore, Arr: 0, X: konst(1), Y: add(v(0), konst(100)), Check: 0},
		{Kind: fuse.SAssign, Var: 1, X: call(0, and(v(0), 15), arr(0))},
		{Kind: fuse.SReturn, X: add(v(1), add(sread(0, konst(1)), add(sread(0, konst(0)), sread(0, and(v(0), 7)))))},
	}}
	// p2(x): ends without return when x & 16.
	p2 := fuse.Proc{Name: "noreturn", Params: 1, Vars: 1, Body: []fuse.Stmt{
		{Kind: fuse.SIf, X: op(fuse.OpEq, 0, -1, and(v(0), 16), konst(0)), Body: []fuse.Stmt{{Kind: fuse.SReturn, X: op(fuse.OpLoad2, 0, 0, and(v(0), 3), op(fuse.OpShr, 0, -1, v(0), konst(5)))}}},
	}}
	f := &fuse.Func{Params: 2, Vars: 3, Checks: checks, Procs: []fuse.Proc{p0, p1, p2},
		Tables:  []fuse.Table{{Name: "R", Rows: [][]uint64{{1, 2}, {3}, {}, {4, 5, 6}}}},
		Scratch: []fuse.Scratch{{Name: "s", Len: 5, Init: 9}},
		Body: []fuse.Stmt{
			{Kind: fuse.SStore, Arr: 0, X: and(v(1), 3), Y: v(1), Check: 0},
			{Kind: fuse.SAssign, Var: 2, X: call(0, and(v(0), 15), arr(0))},
			{Kind: fuse.SAssign, Var: 2, X: add(v(2), add(sread(0, konst(0)), sread(0, and(v(1), 3))))},
			{Kind: fuse.SAssign, Var: 2, X: add(v(2), call(1, v(1)))},
			{Kind: fuse.SReturn, X: add(v(2), call(2, v(0)))},
		}}
	r := rand.New(rand.NewPCG(13, 14))
	in := edgeInputs(r, 300, 2)
	for i := range in {
		if i%2 == 0 {
			in[i][0] &= 0x7f
		}
	}
	return []cCase{{"procs in IR", f, in}}
}

// TestFuncCRecursive runs the functions with helpers that recurse as C
// and compares them with Eval: results, the check that fails deep down
// (index, depth) and its value, a helper that ends without return.
func TestFuncCRecursive(t *testing.T) {
	cc := needCC(t)
	n := compareC(t, cc, recursiveCases(t, 300), false, "-O1")
	t.Logf("%d items compared", n)
}

// TestFuncCStops: a while that never ends stops at a poll once the flag
// is set, as Eval stops when its poll says so.
func TestFuncCStops(t *testing.T) {
	cc := needCC(t)
	f := compileScript(t, `
def f(x):
    n = 0
    while x | 1:
        n += 1
    return n
`)
	// Recursion without loops polls at every call.
	fib := compileScript(t, `
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def f(x):
    return fib(x + 40)
`)
	n := compareC(t, cc, []cCase{{"endless", f, [][]uint64{{0}, {1}}}, {"fib", fib, [][]uint64{{0}, {1}}}}, true, "-O1")
	if n != 4 {
		t.Fatalf("%d items compared", n)
	}
}

// TestFuncCRandom compares the C of random functions (package randfunc)
// with Eval, with many functions in one C program.
func TestFuncCRandom(t *testing.T) {
	cc := needCC(t)
	funcs, inputs := 60, 60
	if testscale.Short() {
		funcs = 20
	}
	var cases []cCase
	for seed := uint64(0); seed < uint64(funcs); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xc0de))
		src := randfunc.Source(r)
		cases = append(cases, cCase{fmt.Sprintf("seed %d", seed), compileScript(t, src), edgeInputs(r, inputs, 2)})
		if seed%3 == 0 { // and some whose helpers recurse
			src := randfunc.RecursiveSource(r)
			cases = append(cases, cCase{fmt.Sprintf("recursive seed %d", seed), compileScript(t, src), edgeInputs(r, inputs, 2)})
		}
	}
	// -O0: the random functions are many, and gcc at -O1 takes seconds.
	n := compareC(t, cc, cases, false, "-O0")
	t.Logf("%d items of %d functions compared", n, funcs)
}

// TestFuncCUDAKernelAsC runs the CUDA kernel of fused functions, compiled
// as C with the shim of the straight-line kernel's test, over a small grid
// (3 blocks of 4 threads: the grid-stride loop, the per-thread states and
// reductions are exercised) for both space kinds and every method, and
// compares the accumulator and the results with Eval item by item. A
// function whose helpers recurse runs twice: with the depth cap of its
// tables, and with a cap of 1 to 3 calls, as a GPU with a small stack would
// run it, where an item whose calls pass the cap must be marked for the
// CPU (and left out of the accumulator and the results) exactly where
// Eval, allowed that many calls, fails on the depth. This is how the GPU
// path of a Func is checked where no GPU is at hand. At the short scale
// (internal/testscale) one case in three runs.
func TestFuncCUDAKernelAsC(t *testing.T) {
	cc := needCC(t)
	var cases []cCase
	for _, c := range opCases() {
		if c.name == fmt.Sprintf("flow op %d", fuse.OpMulHi) {
			// The CUDA prelude's own spelling (__umul64hi); first, so
			// that the short scale runs it too.
			cases = append(cases, c)
		}
	}
	for _, tc := range fusescript.Constructs {
		if tc.Params <= 3 {
			cases = append(cases, cCase{tc.Name, compileScript(t, tc.Src), fusescript.Inputs(90, tc.Params, tc.Small)})
		}
	}
	for seed := uint64(0); seed < 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 0xc0de))
		src := randfunc.Source(r)
		cases = append(cases, cCase{fmt.Sprintf("seed %d", seed), compileScript(t, src), edgeInputs(r, 90, 2)})
	}
	cases = append(cases, recursiveCases(t, 90)...)
	for seed := uint64(0); seed < 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 0xdeeb))
		src := randfunc.RecursiveSource(r)
		cases = append(cases, cCase{fmt.Sprintf("recursive seed %d", seed), compileScript(t, src), edgeInputs(r, 90, 2)})
	}
	r := rand.New(rand.NewPCG(11, 12))
	compared, deepSeen := 0, 0
	for ci, c := range cases {
		if testscale.Short() && ci%3 != 0 {
			continue // one C program in three (each is a compiler run)
		}
		caps := []int{0}
		if capDepth := 1 + ci%3; len(c.f.Procs) > 0 && capDepth < c.f.MaxCalls() {
			caps = append(caps, capDepth)
		}
		for _, capDepth := range caps {
			n, deep := kernelAsC(t, cc, c, r, capDepth)
			compared += n
			deepSeen += deep
		}
	}
	if deepSeen == 0 {
		t.Fatal("no item passed a lowered depth cap: the hand-back to the CPU is not exercised")
	}
	t.Logf("%d (function, kind, method) runs compared, %d items handed back", compared, deepSeen)
}

// kernelAsC runs one case of TestFuncCUDAKernelAsC with the depth cap
// capDepth in the tables (0: TableWords' own) and returns the runs
// compared and the items marked for the CPU.
func kernelAsC(t *testing.T, cc string, c cCase, r *rand.Rand, capDepth int) (compared, deepSeen int) {
	t.Helper()
	f := c.f
	n := len(c.inputs)
	base := uint64(r.IntN(100))
	start, step := c.inputs[0][0]%8, uint64(1+r.IntN(2))
	cols := make([][]uint64, 3)
	for i := range cols {
		cols[i] = make([]uint64, n)
		for j, in := range c.inputs {
			if i < len(in) {
				cols[i][j] = in[i]
			}
		}
	}
	tab := cgen.TableWords(f)
	ref := f // what Eval runs: f allowed as many calls as the kernel
	if capDepth > 0 {
		tab[cgen.DepthCapAt(f)] = uint64(capDepth)
		g := *f
		g.Depth = capDepth
		ref = &g
	}
	dw := cgen.DeepWords(uint64(n))
	var src strings.Builder
	src.WriteString(cgen.CUDAShim)
	src.WriteString("#include <string.h>\n")
	src.WriteString(cgen.FuncCUDASource(f))
	fmt.Fprintf(&src, "static const u64 tab[] = {%s};\n", words(tab))
	fmt.Fprintf(&src, "static u64 state[%d];\n", 12*cgen.StateWords(f)+1)
	for i, col := range cols {
		fmt.Fprintf(&src, "static u64 x%d[] = {%s};\n", i, words(col))
	}
	fmt.Fprintf(&src, "static u64 out[%d], deep[%d];\n", n, dw)
	src.WriteString("int main(void) {\n\tstatic volatile int stop = 0;\n\tgridDim.x = 3; blockDim.x = 4;\n")
	src.WriteString("\tfor (int kind = 0; kind < 2; kind++) for (int m = 0; m < 7; m++) {\n")
	src.WriteString("\t\tu64 acc[4] = {m == 3 ? ~0ULL : 0, 0, ~0ULL, ~0ULL};\n\t\tmemset(out, 0, sizeof out); memset(deep, 0, sizeof deep);\n")
	src.WriteString("\t\tfor (unsigned b = 0; b < 3; b++) for (unsigned t = 0; t < 4; t++) {\n\t\t\tblockIdx.x = b; threadIdx.x = t;\n")
	x1, x2 := "0", "0"
	if f.Params > 1 {
		x1 = "(u64)x1"
	}
	if f.Params > 2 {
		x2 = "(u64)x2"
	}
	fmt.Fprintf(&src, "\t\t\tfuse_run_func(m, kind, %#xULL, %#xULL, (u64)x0, %s, %s, %d, %d, (u64)out, (u64)acc, (u64)state, (u64)tab, (u64)&stop, (u64)deep);\n", start, step, x1, x2, base, n)
	src.WriteString("\t\t}\n\t\tprintf(\"%llu %llu %llu %llu\", acc[0], acc[1], acc[2], acc[3]);\n")
	fmt.Fprintf(&src, "\t\tfor (int i = 0; i < %d; i++) printf(\" %%llu\", deep[i]);\n", dw)
	fmt.Fprintf(&src, "\t\tfor (int i = 0; i < %d; i++) printf(\" %%llu\", out[i]);\n", n)
	src.WriteString("\t\tprintf(\"\\n\");\n\t}\n\treturn 0;\n}\n")
	lines := strings.Split(strings.TrimSpace(runProgram(t, cc, src.String(), "-O1")), "\n")
	if len(lines) != 14 {
		t.Fatalf("%s: %d lines of output", c.name, len(lines))
	}
	st := ref.NewState(nil)
	for kind := 0; kind < 2; kind++ {
		// What each item gives under Eval; Deep where Eval allowed the
		// kernel's calls fails on the depth below f's own limit.
		outs := make([]cOut, n)
		for i := range outs {
			in := []uint64{cols[0][i], cols[1][i], cols[2][i]}[:f.Params]
			if kind == cgen.KindRange {
				in[0] = start + (base+uint64(i))*step
			}
			outs[i] = evalOut(st, in)
			if k := outs[i].status - cgen.Failed; capDepth > 0 && k >= 0 && f.Checks[k].Kind == fuse.CheckDepth {
				outs[i] = cOut{cgen.Deep, 0}
			}
		}
		for m := 0; m < 7; m++ {
			fs := strings.Fields(lines[kind*7+m])
			got := make([]uint64, len(fs))
			for i, s := range fs {
				fmt.Sscan(s, &got[i])
			}
			acc, deep, res := got[:4], got[4:4+dw], got[4+dw:]
			var lo, hi uint64
			if m == 3 {
				lo = ^uint64(0)
			}
			first, bad := ^uint64(0), ^uint64(0)
			var deepWant []uint64
			for i, o := range outs {
				pos := base + uint64(i)
				if o.status == cgen.Deep {
					deepWant = append(deepWant, uint64(i))
					continue
				}
				if o.status != cgen.Returned {
					bad = min(bad, pos)
					continue
				}
				switch m {
				case 0, 6:
					if res[i] != o.val {
						t.Fatalf("%s cap %d kind %d method %d: item %d gives %#x on the kernel, %#x under Eval", c.name, capDepth, kind, m, i, res[i], o.val)
					}
				case 1:
					lo += fuse.Bit(o.val != 0)
				case 2:
					s := lo + o.val
					hi += fuse.Bit(s < lo)
					lo = s
				case 3:
					lo = min(lo, o.val)
				case 4:
					lo = max(lo, o.val)
				case 5:
					if o.val != 0 {
						first = min(first, pos)
					}
				}
			}
			what := fmt.Sprintf("%s cap %d kind %d method %d", c.name, capDepth, kind, m)
			// The items marked for the CPU: all of Eval's deep ones (under
			// first, those before the hit; threads skip the items after).
			var marked []uint64
			for i := uint64(0); i < uint64(n); i++ {
				if deep[1+i/64]>>(i%64)&1 != 0 {
					marked = append(marked, i)
				}
			}
			wantMarked := deepWant
			if m == 5 {
				wantMarked = nil
				for _, i := range deepWant {
					if base+i < first {
						wantMarked = append(wantMarked, i)
					}
				}
				var kept []uint64
				for _, i := range marked {
					if base+i < first {
						kept = append(kept, i)
					}
				}
				marked = kept
			} else if deep[0] != uint64(len(deepWant)) {
				t.Fatalf("%s: the kernel counts %d items for the CPU, Eval %d", what, deep[0], len(deepWant))
			}
			if fmt.Sprint(marked) != fmt.Sprint(wantMarked) {
				t.Fatalf("%s: the kernel marks %v for the CPU, Eval %v", what, marked, wantMarked)
			}
			deepSeen += len(marked)
			switch {
			case m == 5 && first < bad:
				if acc[cgen.AccFirst] != first || acc[cgen.AccErr] < first {
					t.Fatalf("%s: kernel first %d error %d; Eval first %d", what, acc[cgen.AccFirst], acc[cgen.AccErr], first)
				}
			case m == 5:
				if acc[cgen.AccErr] != bad {
					t.Fatalf("%s: kernel first %d error %d; Eval error %d", what, acc[cgen.AccFirst], acc[cgen.AccErr], bad)
				}
			default:
				if acc[cgen.AccErr] != bad || acc[cgen.AccLo] != lo || acc[cgen.AccHi] != hi {
					t.Fatalf("%s: kernel acc %#x; Eval lo %#x hi %#x error %d", what, acc, lo, hi, bad)
				}
			}
			compared++
		}
	}
	return compared, deepSeen
}

// TestFuncCUDASourceIsCXX: NVRTC compiles C++, whose rules C lacks (no
// jump past an initialised declaration, stricter conversions), so the
// kernel's text, with the shim, must also pass a C++ compiler.
func TestFuncCUDASourceIsCXX(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		if cxx, err = exec.LookPath("clang++"); err != nil {
			t.Skip("no C++ compiler (g++ or clang++): the CUDA C is not checked as C++")
		}
	}
	var b strings.Builder
	b.WriteString(cgen.CUDAShim)
	add := func(k int, f *fuse.Func) {
		// Rename every global of the kernel's text, so that many fit in one file.
		fmt.Fprintf(&b, "#define fused_func fused_func_%d\n#define fuse_run_func fuse_run_func_%d\n#undef FUSE_STATE_WORDS\n%s#undef fused_func\n#undef fuse_run_func\n", k, k, cgen.FuncCUDASource(f))
	}
	k := 0
	for _, tc := range fusescript.Constructs {
		add(k, compileScript(t, tc.Src))
		k++
	}
	for seed := uint64(0); seed < 10; seed++ {
		add(k, compileScript(t, randfunc.Source(rand.New(rand.NewPCG(seed, 0xc0de)))))
		k++
	}
	for _, c := range recursiveCases(t, 0) {
		add(k, c.f)
		k++
	}
	file := filepath.Join(t.TempDir(), "k.cc")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cxx, "-fsyntax-only", "-w", "-x", "c++", file).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cxx, err, out)
	}
}

// TestFrameBytes: the bound of a frame covers each helper's words and its
// own arrays, and grows with them.
func TestFrameBytes(t *testing.T) {
	compile := func(src string) *fuse.Func { return compileScript(t, src) }
	small := compile("def g(x):\n    return x if x < 2 else g(x - 1) + 1\ndef f(x):\n    return g(x % 9)\n")
	big := compile("def g(x):\n    a = [0] * 256\n    a[x % 256] = x\n    return x if x < 2 else g(x - 1) + a[x % 256]\ndef f(x):\n    return g(x % 9)\n")
	if n := cgen.FrameBytes(compile("def f(x):\n    return x\n")); n != 0 {
		t.Errorf("no helpers: %d bytes", n)
	}
	s, b := cgen.FrameBytes(small), cgen.FrameBytes(big)
	p := &small.Procs[0]
	if s < 16*uint64(p.Params+p.Vars) || s%16 != 0 {
		t.Errorf("a helper of %d words: a frame of %d bytes", p.Params+p.Vars, s)
	}
	if b < s+8*256 {
		t.Errorf("a frame with an array of 256 words: %d bytes, without %d", b, s)
	}
}
