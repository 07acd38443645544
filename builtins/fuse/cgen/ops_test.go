package cgen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
)

// TestOpSpellings: the C spelling of every op of fuse's table calls only
// the helpers and the macros of each target's prelude that exist.
func TestOpSpellings(t *testing.T) {
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`FUSE_FN u64 (fuse_\w+)\(`).FindAllStringSubmatch(helpers, -1) {
		defined[m[1]] = true
	}
	spelled := 0
	for o := fuse.Op(0); o < 255; o++ {
		c := o.CSpelling()
		if c == "" {
			continue
		}
		spelled++
		for _, m := range regexp.MustCompile(`fuse_\w+`).FindAllString(c, -1) {
			if !defined[m] {
				t.Errorf("%s: C %q calls %s, which helpers does not define", o, c, m)
			}
		}
		for _, m := range regexp.MustCompile(`FUSE_\w+`).FindAllString(c, -1) {
			for _, pre := range []string{preludeC, preludeCUDA} {
				if !strings.Contains(pre, "#define "+m+"(") {
					t.Errorf("%s: C %q uses %s, which a prelude does not define", o, c, m)
				}
			}
		}
	}
	if spelled < int(fuse.NumOps)-1 {
		t.Errorf("only %d ops have a C spelling", spelled)
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
		in   [3]fuse.Array
		want func(j int) (int, uint64) // err, result
	}
	var runs []run
	var src, calls strings.Builder
	// FuncC first: its prelude (guarded) holds ItemFunc's and its own.
	var flowOps []fuse.Op
	for o := fuse.Op(0); o < 255; o++ {
		if o.Meaning() != nil && o.CSpelling() != "" && o != fuse.OpConst {
			flowOps = append(flowOps, o)
		}
	}
	for _, o := range flowOps {
		for _, imm := range progtest.OpImms(r, o) {
			args := []*fuse.Expr{{Op: fuse.OpVar, Imm: 0, Check: -1}, {Op: fuse.OpVar, Imm: 1, Check: -1}, {Op: fuse.OpVar, Imm: 2, Check: -1}}[:o.Arity()]
			f := &fuse.Func{Params: 3, Vars: 3, Body: []fuse.Stmt{{Kind: fuse.SReturn, X: &fuse.Expr{Op: o, Imm: imm, Args: args, Check: -1}}}}
			i := len(runs)
			fmt.Fprintf(&src, "#define fused_func fused_func_%d\n%s#undef fused_func\n", i, FuncC(f, C))
			fmt.Fprintf(&calls, "\tfor (int j = 0; j < %d; j++) { u64 fuel = 1, res = 0; int st = fused_func_%d(in%d[0][j], in%d[1][j], in%d[2][j], 0, 0, 0, &fuel, &res); printf(\"%%d %%llu\\n\", st, res); }\n", n, i, i, i, i)
			in := progtest.OpInputs(r, n)
			runs = append(runs, run{fmt.Sprintf("FuncC %s/%d", o, imm), in, func(j int) (int, uint64) {
				return Returned, fuse.Eval1(fuse.Instr{Op: o, Imm: imm}, in[0][j], in[1][j], in[2][j])
			}})
		}
	}
	item := func(p *fuse.Line, what string, want func(in [3]fuse.Array, j int) (int, uint64)) {
		i := len(runs)
		body := ItemFunc(p, C)
		body = body[strings.Index(body, "FUSE_FN u64 fused_item"):]
		src.WriteString(strings.Replace(body, "fused_item", fmt.Sprintf("fused_item_%d", i), 1))
		fmt.Fprintf(&calls, "\tfor (int j = 0; j < %d; j++) { int err = 0; u64 v = fused_item_%d(in%d[0][j], in%d[1][j], in%d[2][j], &err); printf(\"%%d %%llu\\n\", err, v); }\n", n, i, i, i, i)
		in := progtest.OpInputs(r, n)
		runs = append(runs, run{what, in, func(j int) (int, uint64) { return want(in, j) }})
	}
	for _, po := range progtest.LineOps(r) {
		po := po
		item(progtest.OpProgram(po.Op, po.Imm, po.Konst, po.K), fmt.Sprintf("ItemFunc %s/%d (constant b %v)", po.Op, po.Imm, po.Konst), func(in [3]fuse.Array, j int) (int, uint64) {
			b := in[1][j]
			if po.Konst {
				b = po.K
			}
			return 0, fuse.Eval1(fuse.Instr{Op: po.Op, Imm: po.Imm}, in[0][j], b, in[2][j])
		})
	}
	for k := fuse.CheckKind(0); k < fuse.NumChecks; k++ {
		for _, imm := range []uint64{0, 1, 8, 33, 63, 64} {
			p := progtest.OpProgram(fuse.OpXor, 0, false, 0)
			p.Checks = []fuse.Check{{Kind: k, A: 1, B: 2, Imm: imm, Mask: fuse.NoMask, At: len(p.Instrs)}}
			k, imm := k, imm
			item(p, fmt.Sprintf("check %s/%d", k.Name(), imm), func(in [3]fuse.Array, j int) (int, uint64) {
				if !fuse.CheckOK(k, in[1][j], in[2][j], imm) {
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
