package tooling_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/interp/tooling"
	"go.starlark.net/starlark"
)

// workspace is a small project: lib.star defines what main.star loads.
var workspace = fstest.MapFS{
	"lib.star": {Data: []byte(`def low(x, width = 8):
    """Returns the low width bits of x."""
    return x & ((1 << width) - 1)

LIMIT = 10
`)},
	"self.star": {Data: []byte("load(\"self.star\", \"x\")\nx = 1\n")},
}

// mainSrc has one mistake of each kind a checker reports, on its own line.
const mainSrc = `load("lib.star", "low", "nothere")
load("missing.star", "y")

def spread(x):
    """Spreads the bits of x."""
    return pdep(x, 0x5555)

def bad(x):
    return [x]

print(popcount(1, 2))
print(rotl(1, k = 3, size = 8))
print(chess.rook_attacked(0, 0))
print(undefined_name)
f = fuse(bad)
g = fuse(lambda x: popcount(x) + 1)
print(low(spread(3)))
`

func analyze(t *testing.T, name, src string) *tooling.Module {
	t.Helper()
	c := tooling.NewChecker(interp.WithFS(workspace))
	return c.Analyze(name, []byte(src))
}

func TestDiagnostics(t *testing.T) {
	m := analyze(t, "main.star", mainSrc)
	want := []string{
		"main.star:1:26: load: module lib.star has no public name nothere",
		`main.star:2:6: load: cannot read module "missing.star": file does not exist`,
		"main.star:11:7: popcount: got 2 arguments, want at most 1 (popcount(x))",
		"main.star:12:7: rotl: unexpected keyword argument size (rotl(x, k, width=64))",
		"main.star:13:13: chess has no member rook_attacked (did you mean chess.rook_attacks?)",
		"main.star:14:7: undefined: undefined_name",
		"main.star:9:12: fuse: 9:12: a fused function cannot build a list; use a scratch array: name = [0] * N",
	}
	var got []string
	for _, d := range m.Diagnostics {
		if d.Severity != tooling.Error {
			t.Errorf("%s: severity %d, want Error", d, d.Severity)
		}
		got = append(got, d.String())
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing diagnostic %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := 1; i < len(m.Diagnostics); i++ {
		a, b := m.Diagnostics[i-1].Pos, m.Diagnostics[i].Pos
		if a.Line > b.Line || a.Line == b.Line && a.Col > b.Col {
			t.Errorf("diagnostics not sorted: %v before %v", a, b)
		}
	}
}

func TestDiagnosticsParseError(t *testing.T) {
	m := analyze(t, "p.star", "x = (1,\ny = 2\n")
	if m.File != nil || len(m.Diagnostics) != 1 || m.Diagnostics[0].Pos.Line != 2 {
		t.Fatalf("parse error: got %v, want one diagnostic on line 2", m.Diagnostics)
	}
}

func TestDiagnosticsLoadCycle(t *testing.T) {
	c := tooling.NewChecker(interp.WithFS(workspace))
	ds := c.Check("self.star", workspace["self.star"].Data)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "load cycle: self.star -> self.star") {
		t.Fatalf("self-load: got %v, want a load cycle", ds)
	}
}

func TestDiagnosticsOutsideWorkspace(t *testing.T) {
	m := analyze(t, "main.star", "load(\"../etc/passwd\", \"x\")\n")
	if len(m.Diagnostics) != 1 || !strings.Contains(m.Diagnostics[0].Message, "invalid module path") {
		t.Fatalf("load outside the workspace: got %v, want invalid module path", m.Diagnostics)
	}
}

// TestFuseChecksHelpers: the checker compiles the helpers a fused function
// calls, as fuse does, and reports what fuse would refuse in them.
func TestFuseChecksHelpers(t *testing.T) {
	src := "def h(x):\n    print(x)\n    return x\ndef g(x):\n    return h(x) + g(x - 1) if x else 0\nf = fuse(lambda s: g(s))\n"
	ds := analyze(t, "main.star", src).Diagnostics
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "2:5: print is not allowed in a fused function") {
		t.Fatalf("a fused function whose helper prints: got %v, want fuse's print diagnostic", ds)
	}
}

func TestCleanFiles(t *testing.T) {
	for _, src := range []string{
		"x = popcount(3)\nprint(bin(x, width = 8), chess.rook_attacks(0, 0))\n",
		"load(\"@stdlib/board.star\", \"diagram\")\nprint(diagram(3, 4))\n",
		"def f(x):\n    return rotl(x, 3) ^ MASK\nMASK = 0xff\ng = fuse(f)\n",
		"def r(x):\n    return r(x - 1) + 1 if x else 0\ndef f(x):\n    return r(x) + h(x)\ndef h(x):\n    return x * 2\ng = fuse(f)\n",
		"print(range(1, 10, 2), sorted([3, 1], reverse = True))\n",
	} {
		if ds := analyze(t, "ok.star", src).Diagnostics; len(ds) != 0 {
			t.Errorf("%q: got %v, want none", src, ds)
		}
	}
}

// pos returns the line and column (from 1) of the first occurrence of
// mark in src, plus off code points.
func pos(t *testing.T, src, mark string, off int) (int, int) {
	t.Helper()
	i := strings.Index(src, mark)
	if i < 0 {
		t.Fatalf("%q not in source", mark)
	}
	line := strings.Count(src[:i], "\n") + 1
	col := i - strings.LastIndexByte(src[:i], '\n')
	return line, col + off
}

func TestHover(t *testing.T) {
	m := analyze(t, "main.star", mainSrc)
	for _, tc := range []struct {
		mark string
		want string
	}{
		{"pdep(x", "pdep(x, mask)\n"},
		{"rook_attacked", ""},
		{"spread(3)", "spread(x)\nSpreads the bits of x."},
		{"low(spread", "low(x, width=8)\nReturns the low width bits of x."},
		{"print(", "print("},
	} {
		line, col := pos(t, mainSrc, tc.mark, 1)
		got, ok := m.Hover(line, col)
		if tc.want == "" {
			if ok {
				t.Errorf("Hover(%s) = %q, want nothing", tc.mark, got)
			}
			continue
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Hover(%s) = %q, want it to start %q", tc.mark, got, tc.want)
		}
	}
	src := "print(chess.rook_attacks(0, 0))\n"
	line, col := pos(t, src, "rook", 2)
	if got, _ := analyze(t, "h.star", src).Hover(line, col); !strings.HasPrefix(got, "chess.rook_attacks(sq, occupied)") {
		t.Errorf("Hover(chess.rook_attacks) = %q", got)
	}
}

func TestDefinition(t *testing.T) {
	m := analyze(t, "main.star", mainSrc)
	line, col := pos(t, mainSrc, "spread(3)", 1)
	loc, ok := m.Definition(line, col)
	if !ok || loc.File != "main.star" || loc.Pos.Line != 4 || loc.Pos.Col != 5 {
		t.Errorf("Definition(spread) = %v %v, want main.star:4:5", loc, ok)
	}
	line, col = pos(t, mainSrc, "low(spread", 1)
	loc, ok = m.Definition(line, col)
	if !ok || loc.File != "lib.star" || loc.Pos.Line != 1 || loc.Pos.Col != 5 {
		t.Errorf("Definition(low) = %v %v, want lib.star:1:5", loc, ok)
	}
	line, col = pos(t, mainSrc, "lib.star", 2)
	if loc, ok = m.Definition(line, col); !ok || loc.File != "lib.star" || loc.Pos.Line != 1 {
		t.Errorf("Definition(\"lib.star\") = %v %v, want lib.star:1:1", loc, ok)
	}
	line, col = pos(t, mainSrc, "popcount", 1)
	if loc, ok = m.Definition(line, col); ok {
		t.Errorf("Definition(popcount) = %v, want none (a builtin)", loc)
	}
}

func labels(cs []tooling.Completion) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Label)
	}
	return out
}

func TestComplete(t *testing.T) {
	src := "def spread(x, step = 1):\n    total = x\n    return to\n\nprint(chess.rook_a)\nprint(rotl(1, wi))\nsp\n"
	m := analyze(t, "c.star", src)
	for _, tc := range []struct {
		mark string
		want []string
	}{
		{"to\n", []string{"total"}},
		{"chess.rook_a", []string{"rook_attacks"}},
		{"wi)", []string{"width="}},
		{"sp\n", []string{"spread"}},
	} {
		line, col := pos(t, src, tc.mark, len(strings.TrimSuffix(strings.TrimSuffix(tc.mark, "\n"), ")")))
		if strings.HasPrefix(tc.mark, "chess") {
			line, col = pos(t, src, tc.mark, len(tc.mark))
		}
		got := labels(m.Complete([]byte(src), line, col))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete at %q = %v, want %s among them", tc.mark, got, w)
			}
		}
	}
	// The names of the file come with the predeclared ones, private ones hidden.
	got := labels(m.Complete([]byte("p"), 1, 2))
	for _, w := range []string{"popcount", "print", "pdep", "pass"} {
		if !slices.Contains(got, w) {
			t.Errorf("Complete(p) = %v, want %s among them", got, w)
		}
	}
}

func TestSignatureHelp(t *testing.T) {
	src := "def f(a, b = 2):\n    return a\nf(1, \nrotl(x, 3, \n"
	m := analyze(t, "s.star", "def f(a, b = 2):\n    return a\n")
	line, col := pos(t, src, "f(1, ", 5)
	sig, arg, ok := m.SignatureHelp([]byte(src), line, col)
	if !ok || sig.Text != "f(a, b=2)" || arg != 1 {
		t.Errorf("SignatureHelp(f(1, |) = %q, %d, %v; want f(a, b=2), 1", sig.Text, arg, ok)
	}
	line, col = pos(t, src, "rotl(x, 3, ", 11)
	sig, arg, ok = m.SignatureHelp([]byte(src), line, col)
	if !ok || sig.Text != "rotl(x, k, width=64)" || arg != 2 || len(sig.Params) != 3 {
		t.Errorf("SignatureHelp(rotl(x, 3, |) = %+v, %d, %v", sig, arg, ok)
	}
}

func TestDocOf(t *testing.T) {
	in := interp.New(interp.WithStdout(new(strings.Builder)))
	if _, err := in.ExecFile(context.Background(), "d.star", "def half(x):\n    \"\"\"Halves x.\"\"\"\n    return x // 2\n"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"half":               "half(x)\nHalves x.",
		"popcount":           "popcount(x)",
		"chess.rook_attacks": "chess.rook_attacks(sq, occupied)",
		"@stdlib/board.star": "@stdlib/board.star",
	} {
		got, ok := tooling.DocOf(in, name)
		if !ok || !strings.HasPrefix(got, want) {
			t.Errorf("DocOf(%s) = %q, %v; want it to start %q", name, got, ok, want)
		}
	}
	if got, ok := tooling.DocOf(in, "no_such_name"); ok {
		t.Errorf("DocOf(no_such_name) = %q, want nothing", got)
	}
}

func TestRunCell(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	v, err := tooling.RunCell(context.Background(), in, "<cell 1>", "x = 20\nprint(x)\nx + 1\n")
	if err != nil || v == nil || v.String() != "21" || out.String() != "20\n" {
		t.Fatalf("RunCell = %v, %v (printed %q); want 21, nil, \"20\\n\"", v, err, out.String())
	}
	_, err = tooling.RunCell(context.Background(), in, "<cell 2>", "y = 1\n\n1 // 0\n")
	var ee *starlark.EvalError
	if !errors.As(err, &ee) || !strings.Contains(ee.Backtrace(), "<cell 2>:3") {
		t.Fatalf("RunCell error = %v, want one at <cell 2>:3", err)
	}
	if v, _ := tooling.RunCell(context.Background(), in, "<cell 3>", "y"); v != starlark.MakeInt(1) && fmt.Sprint(v) != "1" {
		t.Fatalf("y = %v, want 1: the cell's first statements ran", v)
	}
}

func TestFormatWhile(t *testing.T) {
	got, err := tooling.Format("w.star", []byte("x=1\nwhile x<10 :\n  x=x*2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "x = 1\nwhile x < 10:\n    x = x * 2\n"; string(got) != want {
		t.Fatalf("Format = %q, want %q", got, want)
	}
}

// AnalyzeContext gives up when its context is cancelled (a language
// server's document changed again), and leaves the checker as it was.
func TestAnalyzeContextCancelled(t *testing.T) {
	c := tooling.NewChecker(interp.WithFS(workspace))
	src := []byte("load(\"lib.star\", \"low\")\nprint(low(3, nope))\n")
	ctx, cancel := context.WithCancelCause(context.Background())
	stale := errors.New("the document changed")
	cancel(stale)
	if m, err := c.AnalyzeContext(ctx, "main.star", src); m != nil || !errors.Is(err, stale) {
		t.Fatalf("cancelled: %v, %v; want no module and the cause", m, err)
	}
	m, err := c.AnalyzeContext(context.Background(), "main.star", src)
	if err != nil || len(m.Diagnostics) != 1 || !strings.Contains(m.Diagnostics[0].Message, "undefined: nope") {
		t.Fatalf("after a cancelled analysis: %v, %v", m, err)
	}
}

// TestNULByte: check (and so the language server), fmt and a notebook
// cell refuse a NUL byte at its position, as a run does; go.starlark.net's
// scanner alone would end the file there and find nothing wrong.
func TestNULByte(t *testing.T) {
	src := []byte("x = 1\nprint(\"é\")\x00print(2)\n")
	const at, msg = "nul.star:2:11", "a NUL byte (U+0000) in the source"
	ds := tooling.NewChecker().Check("nul.star", src)
	if len(ds) == 0 || ds[0].Pos.String() != at || !strings.HasPrefix(ds[0].Message, msg) || ds[0].Severity != tooling.Error {
		t.Errorf("Check: %v; want an error at %s: %s", ds, at, msg)
	}
	if _, err := tooling.Format("nul.star", src); err == nil || !strings.HasPrefix(err.Error(), at+": "+msg) {
		t.Errorf("Format: %v; want %s: %s", err, at, msg)
	}
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	if _, err := tooling.RunCell(context.Background(), in, "nul.star", string(src)); err == nil || !strings.HasPrefix(err.Error(), at+": "+msg) {
		t.Errorf("RunCell: %v; want %s: %s", err, at, msg)
	}
	if out.Len() > 0 {
		t.Errorf("the cell printed %q; want nothing run", out.String())
	}
}

// TestHabitHintsInToolsAndCells: a Python habit's syntax error carries the
// hint a run gives it in bitsh check's diagnostics (and so the language
// server's) and in a notebook cell, whether the cell is one statement or
// several.
func TestHabitHintsInToolsAndCells(t *testing.T) {
	const hint = "\nhint: Starlark has no chained comparisons: write 0 <= r and r < 8, not 0 <= r < 8"
	ds := analyze(t, "c.star", "r = 3\nok = 0 <= r < 8\n").Diagnostics
	if len(ds) != 1 || ds[0].String() != "c.star:2:14: <= does not associate with < (use parens)"+hint {
		t.Errorf("check: got %v, want the chained comparison with its hint", ds)
	}
	const global = "\nhint: Starlark has no global or nonlocal: a function cannot rebind a name outside it; keep the state in a module-level list (n = [0], then n[0] += 1 in the function) or dict"
	for _, code := range []string{"n = 0\ndef f():\n    global n\n", "global n"} {
		in := interp.New()
		_, err := tooling.RunCell(context.Background(), in, "<cell 1>", code)
		line := strings.Count(code, "\n")
		want := fmt.Sprintf("<cell 1>:%d:%d: got global, want primary expression%s", max(line, 1), 1+4*min(line, 1), global)
		if err == nil || err.Error() != want {
			t.Errorf("cell %q: got %v, want %q", code, err, want)
		}
	}
}

// TestRunCellFuse: a cell's fused lambda reads the names its own cell and
// earlier cells bound, as the interpreter does (4 * 11, g(4) = 5, and
// 4 * 2 again, not a lambda of an earlier cell at the same place).
func TestRunCellFuse(t *testing.T) {
	in := interp.New()
	for i, c := range []struct{ code, want string }{
		{"K = 11\nfuse(lambda s: s * K)(4)", "44"},
		{"def g(x):\n    return x + 1\nfuse(lambda s: s * 2)(4)", "8"},
		{"fuse(lambda s: g(s))(4)", "5"},
		{"H = 3\nfuse(lambda s: s * H)(4)", "12"},
	} {
		v, err := tooling.RunCell(context.Background(), in, fmt.Sprintf("<cell %d>", i+1), c.code)
		if err != nil || v == nil || v.String() != c.want {
			t.Errorf("cell %q = %v, %v; want %s", c.code, v, err, c.want)
		}
	}
}
