package builtins

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/machine"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// testSources keeps the text of one test file for fuse.
type testSources map[string]string

func (s testSources) Texts(name string) []string { return []string{s[name]} }

// runStar runs src with bitsh's builtins, the given number of workers, and
// its text kept for fuse.
func runStar(t testing.TB, src string, workers int) (starlark.StringDict, error) {
	t.Helper()
	thread := &starlark.Thread{Name: "fuse"}
	SetEnv(thread, Env{Sources: testSources{"fuse.star": src}, Workers: workers, Context: context.Background()})
	opts := dialect.FileOptions()
	return starlark.ExecFileOptions(opts, thread, "fuse.star", src, Predeclared())
}

// genFunc writes a random def of the allowed subset. Every arithmetic
// result is masked with U64 and shift counts with 127, so that the
// Starlark function's own arithmetic equals the fused function's word
// arithmetic; comparisons and not are written as 1/0 conditionals because
// Starlark does no arithmetic on bools.
type genFunc struct {
	r      *rand.Rand
	names  []string
	b      strings.Builder
	indent string
}

func (g *genFunc) word() string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprint(g.r.IntN(70))
	case 1:
		return fmt.Sprintf("%#x", uint64(1)<<g.r.IntN(64))
	case 2:
		return "U64"
	}
	return fmt.Sprintf("%#x", g.r.Uint64()>>g.r.IntN(64))
}

func (g *genFunc) expr(depth int) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		if g.r.IntN(3) == 0 {
			return g.word()
		}
		return g.names[g.r.IntN(len(g.names))]
	}
	x := func() string { return g.expr(depth - 1) }
	switch g.r.IntN(24) {
	case 0:
		return fmt.Sprintf("((%s + %s) & U64)", x(), x())
	case 1:
		return fmt.Sprintf("((%s - %s) & U64)", x(), x())
	case 2:
		return fmt.Sprintf("((%s * %s) & U64)", x(), x())
	case 3:
		return fmt.Sprintf("(%s // %s)", x(), x())
	case 4:
		return fmt.Sprintf("(%s %% %s)", x(), x())
	case 5:
		return fmt.Sprintf("(%s & %s)", x(), x())
	case 6:
		return fmt.Sprintf("(%s | %s)", x(), x())
	case 7:
		return fmt.Sprintf("(%s ^ %s)", x(), x())
	case 8:
		return fmt.Sprintf("((%s << (%s & 127)) & U64)", x(), x())
	case 9:
		return fmt.Sprintf("(%s >> (%s & 127))", x(), x())
	case 10:
		return fmt.Sprintf("(~%s & U64)", x())
	case 11:
		return fmt.Sprintf("(-%s & U64)", x())
	case 12:
		op := []string{"==", "!=", "<", "<=", ">", ">="}[g.r.IntN(6)]
		return fmt.Sprintf("(1 if %s %s %s else 0)", x(), op, x())
	case 13:
		return fmt.Sprintf("(%s and %s)", x(), x())
	case 14:
		return fmt.Sprintf("(%s or %s)", x(), x())
	case 15:
		return fmt.Sprintf("(1 if not %s else 0)", x())
	case 16:
		return fmt.Sprintf("(%s if %s else %s)", x(), x(), x())
	case 17:
		f := []string{"popcount", "bsf", "bsr", "lsb"}[g.r.IntN(4)]
		return fmt.Sprintf("%s(%s)", f, x())
	case 18:
		f := []string{"rotl", "rotr"}[g.r.IntN(2)]
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf("%s(%s & 0xffff, %s, width=16)", f, x(), x())
		}
		return fmt.Sprintf("%s(%s, %s)", f, x(), x())
	case 19:
		f := []string{"reverse_bits", "swap_bytes"}[g.r.IntN(2)]
		w := []int{8, 16, 32, 64}[g.r.IntN(4)]
		return fmt.Sprintf("%s(%s, %d)", f, x(), w) // x may not fit: both fail
	case 20:
		f := []string{"pdep", "pext"}[g.r.IntN(2)]
		return fmt.Sprintf("%s(%s, %s)", f, x(), x())
	case 21:
		return fmt.Sprintf("delta_swap(%s, %s, %d)", x(), x(), g.r.IntN(66))
	case 22:
		return fmt.Sprintf("debruijn_bsf(%s)", x())
	}
	return fmt.Sprintf("(%s)", x())
}

func (g *genFunc) line(format string, args ...any) {
	g.b.WriteString(g.indent + fmt.Sprintf(format, args...) + "\n")
}

// function returns the text of def f with params parameters.
func (g *genFunc) function(params int) string {
	g.names = []string{"a", "b", "c"}[:params]
	g.line("def f(%s):", strings.Join(g.names, ", "))
	g.indent = "    "
	for i := 0; i < 1+g.r.IntN(3); i++ {
		name := fmt.Sprintf("t%d", i)
		g.line("%s = %s", name, g.expr(3))
		g.names = append(g.names, name)
	}
	for k := 0; k < g.r.IntN(4); k++ {
		v := g.names[g.r.IntN(len(g.names))]
		switch g.r.IntN(4) {
		case 0:
			g.line("if %s:", g.expr(2))
			g.indent = "        "
			if g.r.IntN(3) == 0 {
				g.line("return %s", g.expr(2))
			} else {
				g.line("%s = %s", v, g.expr(2))
			}
			g.indent = "    "
			if g.r.IntN(2) == 0 {
				g.line("elif %s:", g.expr(1))
				g.indent = "        "
				g.line("%s ^= %s", v, g.expr(2))
				g.indent = "    "
			}
			if g.r.IntN(2) == 0 {
				g.line("else:")
				g.indent = "        "
				g.line("%s = (%s + %s) & U64", v, v, g.expr(2))
				g.indent = "    "
			}
		case 1:
			g.line("for i in range(%d):", g.r.IntN(5))
			g.indent = "        "
			g.names = append(g.names, "i")
			g.line("%s = (%s * 3 + %s) & U64", v, v, g.expr(2))
			g.names = g.names[:len(g.names)-1]
			g.indent = "    "
		case 2:
			op := []string{"|=", "&=", "^=", "//=", "%="}[g.r.IntN(5)]
			g.line("%s %s %s", v, op, g.expr(2))
		case 3:
			g.line("%s = %s", v, g.expr(3))
		}
	}
	if g.r.IntN(12) != 0 {
		g.line("return %s", g.expr(3))
	}
	return g.b.String()
}

// outcome is a function's result on one item: a word, or an error.
type outcome struct {
	v   uint64
	err bool
}

func starOutcome(thread *starlark.Thread, f starlark.Value, item []uint64) outcome {
	args := make(starlark.Tuple, len(item))
	for i, x := range item {
		args[i] = starlark.MakeUint64(x)
	}
	v, err := starlark.Call(thread, f, args, nil)
	if err != nil {
		return outcome{err: true}
	}
	w, ok := compile.WordOf(v)
	if !ok || v == starlark.None {
		return outcome{err: true}
	}
	return outcome{v: w}
}

func randItem(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return uint64(r.IntN(40))
	case 1:
		return -uint64(r.IntN(3))
	}
	return r.Uint64() >> r.IntN(64)
}

// checkDifferential compiles a random function and compares, over n random
// items: the Starlark function itself, f(x), and every method of the fused
// value (on 1, 2 and 3 workers) against a naive loop over the Starlark
// results. It returns the program and the items for the C comparison.
func checkDifferential(t *testing.T, seed uint64, n int) (*fuse.Line, [][]uint64, []outcome) {
	r := rand.New(rand.NewPCG(seed, 99))
	g := &genFunc{r: r}
	params := 1 + r.IntN(3)
	src := g.function(params)
	cols := make([][]uint64, params)
	for i := range cols {
		cols[i] = make([]uint64, n)
		for j := range cols[i] {
			cols[i][j] = randItem(r)
		}
	}
	g2, err := runStar(t, src+"\nfused = fuse(f, device=\"cpu\")\n", 1)
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, src)
	}
	f, fused := g2["f"], g2["fused"].(*fusedValue)
	// Where the CPU runs the straight line as machine code, the block
	// executor is checked beside it.
	runners := []*fusedValue{fused}
	if fused.cpu.Name() != "block" && fused.code.Line != nil {
		onBlocks := *fused
		onBlocks.cpu = machine.BlockEngine(fused.code.Line)
		runners = append(runners, &onBlocks)
	}
	thread := &starlark.Thread{Name: "check"}
	want := make([]outcome, n)
	items := make([][]uint64, n)
	for j := 0; j < n; j++ {
		for i := range cols {
			items[j] = append(items[j], cols[i][j])
		}
		want[j] = starOutcome(thread, f, items[j])
		for _, fused := range runners {
			got := starOutcome(thread, fused, items[j])
			if got != want[j] {
				t.Fatalf("seed %d: f%v: Starlark gives %+v, fused (%T) %+v\n%s\n%s", seed, items[j], want[j], fused.cpu, got, src, fused.code.Line)
			}
		}
	}
	// The methods over arrays, against a loop over the Starlark outcomes.
	spaces := make(starlark.Tuple, params)
	for i := range cols {
		spaces[i] = NewWords(cols[i])
	}
	for _, fused := range runners {
		for _, workers := range []int{1, 2, 3} {
			thread := &starlark.Thread{Name: "methods"}
			SetEnv(thread, Env{Workers: workers})
			for _, m := range fusedMethods {
				method, _ := fused.Attr(m)
				got, err := starlark.Call(thread, method, spaces, nil)
				wantV, wantErr := naiveMethod(m, want, cols[0])
				if (err != nil) != wantErr {
					t.Fatalf("seed %d, %d workers, %T: %s: error %v, want error %v\n%s", seed, workers, fused.cpu, m, err, wantErr, src)
				}
				if err == nil && got.String() != wantV.String() {
					t.Fatalf("seed %d, %d workers, %T: %s = %s, want %s\n%s", seed, workers, fused.cpu, m, got, wantV, src)
				}
			}
		}
	}
	return fused.code.Line, items, want
}

// TestFuseStraightLineEngine checks where a straight line runs on the CPU:
// as x86-64 code where the amd64 engine compiles it, else on the block
// executor (faster than WebAssembly), and on the GPU as a straight line.
func TestFuseStraightLineEngine(t *testing.T) {
	probe, err := native.CompileWith(&fuse.Func{Params: 1, Vars: 1, Body: []fuse.Stmt{{Kind: fuse.SReturn, X: &fuse.Expr{Op: fuse.OpVar}}}}, native.AMD64)
	amd64 := err == nil
	if amd64 {
		probe.Close()
	}
	for _, engine := range []string{"", "wasm"} {
		t.Run("engine="+engine, func(t *testing.T) {
			t.Setenv("BITSH_FUSE_ENGINE", engine)
			g, err := runStar(t, "f = fuse(lambda s: popcount(s & 0x2a5a5a) == 3, device = \"cpu\")\nn = f.count(range(1 << 12))\n", 1)
			if err != nil {
				t.Fatal(err)
			}
			f := g["f"].(*fusedValue)
			code := f.cpu.Name() == "amd64"
			if want := amd64 && engine == ""; code != want {
				t.Errorf("runs as machine code: %v, want %v (%s)", code, want, f.cpu.Name())
			}
			if f.code.Line == nil {
				t.Error("the straight line was not kept for the GPU")
			}
			want := 0
			for s := 0; s < 1<<12; s++ {
				if bits.OnesCount64(uint64(s)&0x2a5a5a) == 3 {
					want++
				}
			}
			if got := g["n"].(starlark.Int).String(); got != fmt.Sprint(want) {
				t.Errorf("count = %s, want %d", got, want)
			}
		})
	}
}

// naiveMethod computes a method from per-item outcomes, in order.
func naiveMethod(m string, outs []outcome, items []uint64) (starlark.Value, bool) {
	var vals, hits []uint64
	sum := new(big.Int)
	for i, o := range outs {
		if o.err {
			return nil, true
		}
		if m == "first" && o.v != 0 {
			return starlark.MakeUint64(items[i]), false
		}
		vals = append(vals, o.v)
		if o.v != 0 {
			hits = append(hits, items[i])
		}
		sum.Add(sum, new(big.Int).SetUint64(o.v))
	}
	switch m {
	case "map":
		return NewWords(vals), false
	case "count":
		return starlark.MakeInt(len(hits)), false
	case "sum":
		return starlark.MakeBigInt(sum), false
	case "min", "max":
		if len(vals) == 0 {
			return starlark.None, false
		}
		best := vals[0]
		for _, v := range vals {
			if m == "min" && v < best || m == "max" && v > best {
				best = v
			}
		}
		return starlark.MakeUint64(best), false
	case "first":
		return starlark.None, false
	}
	if hits == nil {
		hits = []uint64{}
	}
	return NewWords(hits), false
}

func TestFuseDifferential(t *testing.T) {
	rounds := 150
	if testscale.Short() {
		rounds = 40
	}
	type gen struct {
		p     *fuse.Line
		items [][]uint64
		want  []outcome
	}
	var gens []gen
	for seed := uint64(0); seed < uint64(rounds); seed++ {
		p, items, want := checkDifferential(t, seed, []int{0, 1, 7, 100, 700}[seed%5])
		gens = append(gens, gen{p, items, want})
	}
	// The C generated for the same functions, compiled by the system C
	// compiler, on the same items.
	cc := ""
	for _, name := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if p, err := exec.LookPath(name); name != "" && err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang): the generated C is not compared")
	}
	var src strings.Builder
	for i, g := range gens {
		body := cgen.ItemFunc(g.p, cgen.C)
		if i > 0 {
			body = body[strings.Index(body, "FUSE_FN u64 fused_item"):]
		}
		src.WriteString(strings.Replace(body, "fused_item", fmt.Sprintf("fused_item%d", i), 1))
	}
	src.WriteString("#include <stdio.h>\nint main(void) {\n\tint err; u64 v;\n")
	for i, g := range gens {
		for _, it := range g.items[:min(len(g.items), 50)] {
			x := append(append([]uint64{}, it...), 0, 0)
			fmt.Fprintf(&src, "\terr = 0; v = fused_item%d(%#xULL, %#xULL, %#xULL, &err); printf(\"%%d %%llu\\n\", err != 0, err ? 0 : v);\n", i, x[0], x[1], x[2])
		}
	}
	src.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.c"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O1", "-w", "-o", filepath.Join(dir, "f"), filepath.Join(dir, "f.c")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "f")).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	k := 0
	for i, g := range gens {
		for j := range g.items[:min(len(g.items), 50)] {
			var e int
			var v uint64
			fmt.Sscanf(lines[k], "%d %d", &e, &v)
			k++
			w := g.want[j]
			if (e != 0) != w.err || !w.err && v != w.v {
				t.Fatalf("function %d on %#x: C gives (err %d, %#x), Starlark %+v\n%s", i, g.items[j], e, v, w, g.p)
			}
		}
	}
}

// FuzzFuse checks random functions of the whole allowed subset: Starlark =
// fused call = every method, on 1 to 3 workers.
func FuzzFuse(f *testing.F) {
	f.Add(uint64(1), uint16(50))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16) {
		checkDifferential(t, seed, int(n%400))
	})
}

// TestFuseCancel: a count over 2^40 items stops when its context is
// cancelled, with an error saying so (a hang fails by the test timeout).
func TestFuseCancel(t *testing.T) {
	g, err := runStar(t, "f = fuse(lambda s: popcount(s & 0x2a5a5a) == 3)\nr = range(1 << 40)\n", 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	thread := &starlark.Thread{Name: "cancel"}
	SetEnv(thread, Env{Context: ctx, Workers: 2})
	count, _ := g["f"].(*fusedValue).Attr("count")
	done := make(chan error)
	go func() {
		_, err := starlark.Call(thread, count, starlark.Tuple{g["r"]}, nil)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

// BenchmarkFusePlainLoop: one op is one item of the plain Starlark loop
// counting popcount(s & m) == 3, the loop a fused count replaces.
func BenchmarkFusePlainLoop(b *testing.B) {
	src := fmt.Sprintf("n = 0\nfor s in range(%d):\n    if popcount(s & 0x2a5a5a) == 3:\n        n += 1\n", b.N)
	b.ResetTimer()
	if _, err := runStar(b, src, 1); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFuseCount: one op is one item of
// fuse(lambda s: popcount(s & m) == 3).count(range(N)) called from
// Starlark, on every core.
func BenchmarkFuseCount(b *testing.B) {
	src := fmt.Sprintf("n = fuse(lambda s: popcount(s & 0x2a5a5a) == 3).count(range(%d))\n", b.N)
	b.ResetTimer()
	if _, err := runStar(b, src, 0); err != nil {
		b.Fatal(err)
	}
}

// failingGPU stands for a GPU whose launch fails mid-run.
type failingGPU struct{}

func (failingGPU) Name() string { return "gpu" }

func (failingGPU) Run(context.Context, []fuse.Space, fuse.Method, fuse.Options) (*fuse.Result, error) {
	return nil, fmt.Errorf("gpu: cuLaunchKernel: an illegal memory access was encountered")
}

// TestFuseGPUErrorMidRun: a GPU error is reported as the call's error; the
// value, and a CPU fusing of the same function, keep working.
func TestFuseGPUErrorMidRun(t *testing.T) {
	g, err := runStar(t, "f = fuse(lambda s: s & 1, device = \"cpu\")\nr = range(1 << 20)\n", 2)
	if err != nil {
		t.Fatal(err)
	}
	f := g["f"].(*fusedValue)
	gpu := *f
	gpu.gpu, gpu.device = failingGPU{}, "gpu"
	thread := &starlark.Thread{Name: "gpu"}
	count, _ := gpu.Attr("count")
	if _, err := starlark.Call(thread, count, starlark.Tuple{g["r"]}, nil); err == nil || !strings.Contains(err.Error(), "fused lambda.count: gpu: cuLaunchKernel") {
		t.Fatalf("err = %v, want the GPU's error", err)
	}
	count, _ = f.Attr("count")
	v, err := starlark.Call(thread, count, starlark.Tuple{g["r"]}, nil)
	if err != nil || v.String() != "524288" {
		t.Fatalf("after a GPU error, the CPU count gives %v, %v", v, err)
	}
}

// spacesScript checks every method on every kind of space against a naive
// loop over the Starlark function.
const spacesScript = `
def naive(fn, space, method):
    results = [int(fn(x)) for x in space]
    items = [x for x in space]
    hits = [items[i] for i in range(len(items)) if results[i]]
    if method == "map":
        return results
    if method == "count":
        return len(hits)
    if method == "sum":
        t = 0
        for r in results:
            t += r
        return t
    if method == "min":
        return min(results) if results else None
    if method == "max":
        return max(results) if results else None
    if method == "first":
        return hits[0] if hits else None
    return hits

m = 0x2a5a5a
ident = fuse(lambda s: s)
spaces = [range(3000), range(5000, 0, -3), range(0), subsets(0xf0f3), subsets(0xf0f3, 3), subsets(0xffff, 9),
          ident.map(range(7, 9000, 5)), debruijn_sequences(8)]
fns = [lambda s: popcount(s & m) == 3, lambda s: (s * 0x9e3779b97f4a7c15 & U64) >> 58, lambda s: s & 3 and lsb(s) or 9]
for fn in fns:
    f = fuse(fn, device = "cpu")
    for space in spaces:
        for method in ["map", "count", "sum", "min", "max", "first", "filter"]:
            got = getattr(f, method)(space)
            if type(got) == "words":
                got = list(got)
            want = naive(fn, space, method)
            if got != want:
                fail("%s %s %s: got %s, want %s" % (fn, space, method, str(got)[:200], str(want)[:200]))
`

// TestFuseSpacesWorkers runs spacesScript on 1, 2 and 3 workers.
func TestFuseSpacesWorkers(t *testing.T) {
	for workers := 1; workers <= 3; workers++ {
		if testscale.Short() && workers != 3 {
			continue
		}
		if _, err := runStar(t, spacesScript, workers); err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
	}
}

// TestFuseUnknownEngine: an unknown BITSH_FUSE_ENGINE is an error naming
// the variable, for a straight line (which the block executor could run)
// and for a search alike.
func TestFuseUnknownEngine(t *testing.T) {
	t.Setenv("BITSH_FUSE_ENGINE", "gpu")
	for _, src := range []string{
		"f = fuse(lambda s: s + 1)\n",
		"def g(s):\n    n = 0\n    while s:\n        s &= s - 1\n        n += 1\n    return n\nf = fuse(g)\n",
	} {
		_, err := runStar(t, src, 1)
		want := `fuse: BITSH_FUSE_ENGINE: no engine "gpu" (amd64, wasm, eval or auto)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %s", src, err, want)
		}
	}
}
