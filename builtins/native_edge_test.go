package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// edgeInts are the ints at the edges of what runs as code: of the words,
// of Starlark's shift counts (below 512, an int32) and of its signed
// ints, and just past them.
var edgeInts = []string{
	"0", "1", "2", "63", "64", "65", "511", "512",
	"2147483647", "2147483648", "9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616",
}

// edgeGen writes random plain functions f(x, y) of ints around the edges:
// literals and global constants at edgeInts, constant expressions, shift
// counts at and past Starlark's limits, masks after intermediates that
// leave the words, operations that must fail (a shift by a negative
// count, a division by zero, a negative int returned) and the lowest-bit
// idioms.
type edgeGen struct {
	r *rand.Rand
	b strings.Builder
}

// literal is an int literal at an edge, negative now and then.
func (g *edgeGen) literal() string {
	// 2^64 does not fit in a word: the compiler refuses a function
	// holding it as a literal; it is rarer than the others.
	s := edgeInts[g.r.IntN(len(edgeInts)-1)]
	if g.r.IntN(40) == 0 {
		s = edgeInts[len(edgeInts)-1]
	}
	if g.r.IntN(8) == 0 {
		return "-" + s
	}
	return s
}

// constant is a constant: a literal, a global, or a constant expression.
func (g *edgeGen) constant() string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("G%d", g.r.IntN(4))
	case 1:
		return "U64"
	case 2:
		ops := []string{"+", "-", "*", "<<", ">>", "&", "|", "^", "//", "%"}
		return fmt.Sprintf("(%s %s %s)", g.literal(), ops[g.r.IntN(len(ops))], g.literal())
	}
	return g.literal()
}

// count is a shift count: an edge, a parameter, or a difference that
// may be negative.
func (g *edgeGen) count() string {
	switch g.r.IntN(7) {
	case 0:
		return "y"
	case 1:
		return fmt.Sprintf("(y - %s)", []string{"1", "64", "512"}[g.r.IntN(3)])
	case 2:
		return "(64 - y)"
	case 3:
		return "(y & 63)"
	case 4:
		return fmt.Sprintf("G%d", g.r.IntN(4))
	}
	return g.literal()
}

// leaf is a parameter, a local or a constant.
func (g *edgeGen) leaf(locals bool) string {
	switch k := g.r.IntN(6); {
	case k < 2:
		return "x"
	case k == 2:
		return "y"
	case k == 3 && locals:
		return "a"
	}
	return g.constant()
}

// expr is a random expression of depth at most d.
func (g *edgeGen) expr(d int, locals bool) string {
	if d == 0 {
		return g.leaf(locals)
	}
	sub := func() string { return g.expr(d-1, locals) }
	switch g.r.IntN(15) {
	case 14:
		// Ints past the words brought back (or a leaf, as before these
		// forms: the draws of the older ones are kept).
		switch g.r.IntN(6) {
		case 0:
			// A product of a sum shifted back (a hash), masked now and then.
			e := fmt.Sprintf("(((%s + %s) * %s) >> %s)", sub(), sub(), sub(), []string{"1", "32", "63", "64", "70", "127"}[g.r.IntN(6)])
			if g.r.IntN(2) == 0 {
				e = fmt.Sprintf("(%s & %s)", e, []string{"U64", "0xff", "((1 << 64) - 1)"}[g.r.IntN(3)])
			}
			return e
		case 1:
			// A sum past the words shifted back, a mean.
			return fmt.Sprintf("((%s + %s) >> %s)", sub(), sub(), []string{"1", "2", "63", "64", "65"}[g.r.IntN(5)])
		case 3:
			// A product past the words mod or divided by a word (a prime,
			// a modulus past 2^32, zero).
			return fmt.Sprintf("((%s * %s) %s %s)", sub(), sub(), []string{"%", "//"}[g.r.IntN(2)],
				[]string{"1000000007", "0xfffffffb", "y", "(y | 1)", "(x & 0xffff)", "4294967296"}[g.r.IntN(6)])
		case 2:
			// A comparison with an int past the words.
			return fmt.Sprintf("(1 if %s %s %s else 2)", sub(), []string{"<", "<=", ">", ">=", "==", "!="}[g.r.IntN(6)],
				[]string{"W", "(1 << 64)", "(W + 1)", "(W - 1)", "(W << 3)", "(1 << y)", "(3 << (y & 127))"}[g.r.IntN(7)])
		}
	case 0, 1:
		ops := []string{"+", "-", "*", "//", "%", "&", "|", "^"}
		return fmt.Sprintf("(%s %s %s)", sub(), ops[g.r.IntN(len(ops))], sub())
	case 2:
		return fmt.Sprintf("(%s << %s)", sub(), g.count())
	case 3:
		return fmt.Sprintf("(%s >> %s)", sub(), g.count())
	case 4, 5:
		masks := []string{"U64", "1", "0xff", "x", g.literal()}
		return fmt.Sprintf("(%s & %s)", sub(), masks[g.r.IntN(len(masks))])
	case 6:
		return fmt.Sprintf("(%s%s & %s)", []string{"-", "~"}[g.r.IntN(2)], sub(), sub())
	case 7:
		return fmt.Sprintf("abs(%s)", sub())
	case 8:
		a := sub()
		return []string{
			fmt.Sprintf("((%s - 1) & %s)", a, a),
			fmt.Sprintf("(%s & (%s - 1))", a, a),
			fmt.Sprintf("(-%s & %s)", a, a),
			fmt.Sprintf("(%s & -%s)", a, a),
			fmt.Sprintf("(%s ^ (%s - 1))", a, a),
		}[g.r.IntN(5)]
	case 9:
		return fmt.Sprintf("(%s if %s else %s)", sub(), g.cond(d-1, locals), sub())
	case 10:
		return fmt.Sprintf("%s(%s, %s)", []string{"min", "max"}[g.r.IntN(2)], sub(), sub())
	case 11:
		return fmt.Sprintf("((%s << %s) & %s)", sub(), g.count(), []string{"U64", "1", "0xff"}[g.r.IntN(3)])
	case 12:
		return g.call(sub)
	case 13:
		// Tables of edge ints, read at edge indices (Starlark's
		// negative ones count from the end).
		idx := []string{"y", "x % 5", "(x - 1)", "-1", "2", "(y & 3)", sub(), "len(T) - 1"}[g.r.IntN(8)]
		return fmt.Sprintf("%s[%s]", []string{"T", "L"}[g.r.IntN(2)], idx)
	}
	return g.leaf(locals)
}

// call is a call of one of bitsh's word builtins, of the helper h, or
// an and or or of ints.
func (g *edgeGen) call(sub func() string) string {
	widths := []string{"8", "16", "32", "64", "7", "x", "y"}
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("%s(%s)", []string{"popcount", "bsf", "bsr", "lsb", "parity", "gray", "gray_inverse"}[g.r.IntN(7)], sub())
	case 1:
		return fmt.Sprintf("%s(%s, %s)", []string{"rotl", "rotr"}[g.r.IntN(2)], sub(), g.count())
	case 2:
		return fmt.Sprintf("%s(%s, %s, %s)", []string{"rotl", "rotr"}[g.r.IntN(2)], sub(), g.count(), widths[g.r.IntN(len(widths))])
	case 3:
		return fmt.Sprintf("%s(%s, %s)", []string{"reverse_bits", "swap_bytes"}[g.r.IntN(2)], sub(), widths[g.r.IntN(len(widths))])
	case 4:
		return fmt.Sprintf("%s(%s, %s)", []string{"pdep", "pext"}[g.r.IntN(2)], sub(), sub())
	case 5:
		return fmt.Sprintf("delta_swap(%s, %s, %s)", sub(), sub(), g.count())
	case 6, 7:
		return fmt.Sprintf("h(%s, %s)", sub(), g.count())
	}
	return fmt.Sprintf("((%s %s %s) %s %s)", sub(), []string{"and", "or"}[g.r.IntN(2)], sub(),
		[]string{"+", "&", "|", "<<"}[g.r.IntN(4)], g.leaf(false))
}

// cond is a condition: a comparison, an int's truth, not.
func (g *edgeGen) cond(d int, locals bool) string {
	switch g.r.IntN(4) {
	case 0:
		return g.expr(d, locals)
	case 1:
		return "not " + g.expr(d, locals)
	}
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	if g.r.IntN(4) == 0 {
		return fmt.Sprintf("%s %s -%s", g.expr(d, locals), ops[g.r.IntN(len(ops))], edgeInts[g.r.IntN(len(edgeInts))])
	}
	return fmt.Sprintf("%s %s %s", g.expr(d, locals), ops[g.r.IntN(len(ops))], g.expr(d, locals))
}

// edgeFunc writes a script whose f(x, y) is a random edge function; loop
// puts its body in a loop that runs once, so that the fork offers it at
// its first call (a function without a loop is offered at its 1000th).
func edgeFunc(r *rand.Rand, loop bool) string {
	g := &edgeGen{r: r}
	b := &g.b
	b.WriteString("U64 = (1 << 64) - 1\nW = 1 << 64\n")
	for i := range 4 {
		fmt.Fprintf(b, "G%d = %s\n", i, g.constant())
	}
	// Tables of words (a negative int or 2^64 in one keeps f interpreted,
	// now and then).
	word := func() string {
		if r.IntN(30) == 0 {
			return g.literal()
		}
		return edgeInts[r.IntN(len(edgeInts)-1)]
	}
	fmt.Fprintf(b, "T = (%s, %s, %s, %s, 7)\nL = [%s, 1, 2, 3, %s]\n", word(), word(), word(), word(), word(), word())
	hs := []string{"v << n", "(v << n) & U64", "v >> n", "v - n", "(v + n) & 0xff", "v if n else -v", "abs(v - n)"}
	fmt.Fprintf(b, "\ndef h(v, n):\n    return %s\n", hs[r.IntN(len(hs))])
	b.WriteString("\ndef f(x, y):\n")
	ind := "    "
	if loop {
		b.WriteString("    for _ in range(1):\n")
		ind = "        "
	}
	fmt.Fprintf(b, "%sa = %s\n", ind, g.expr(1+r.IntN(2), false))
	for n := r.IntN(4); n > 0; n-- {
		g.stmt(ind)
	}
	switch r.IntN(8) {
	case 0:
		fmt.Fprintf(b, "%sreturn %s\n", ind, g.cond(1, true))
	case 1:
		fmt.Fprintf(b, "%sreturn a, %s\n", ind, g.expr(1, true))
	default:
		fmt.Fprintf(b, "%sreturn %s\n", ind, g.expr(1+r.IntN(3), true))
	}
	return b.String()
}

// stmt writes a statement of f's body: an assignment to a, augmented or
// not, a conditional one, a local holding a negative constant, or a
// short loop.
func (g *edgeGen) stmt(ind string) {
	b, r := &g.b, g.r
	k := r.IntN(9)
	if k == 6 && r.IntN(2) == 0 {
		k = 9
	}
	switch k {
	case 9:
		// A local past the words (a sum's carry, a product, a shift, a
		// step of Gosper's hack, a sentinel), then brought back: shifted,
		// masked or compared with 2^64.
		switch r.IntN(5) {
		case 4:
			// A sentinel past the words, replaced by a lesser int.
			fmt.Fprintf(b, "%sw = W\n%sif %s:\n%s    w = %s(w, %s)\n", ind, ind, g.cond(0, true), ind, []string{"min", "max"}[r.IntN(2)], g.expr(1, true))
		case 0:
			fmt.Fprintf(b, "%sw = %s + %s\n", ind, g.expr(1, true), g.expr(1, true))
		case 1:
			fmt.Fprintf(b, "%sw = %s * %s\n", ind, g.expr(1, true), g.leaf(true))
		case 2:
			fmt.Fprintf(b, "%sw = %s << %s\n", ind, g.leaf(true), []string{"1", "63", "64"}[r.IntN(3)])
		default:
			fmt.Fprintf(b, "%sc = a & -a\n%sr = a + c\n%sw = (((r ^ a) >> 2) // (c | %s)) | r\n", ind, ind, ind, []string{"0", "1"}[r.IntN(2)])
		}
		uses := []string{"w & U64", "w >> 1", "w >> 64", "(w >> 32) & 0xffffffff", "1 if w < W else 2", "3 if w >= (1 << 64) else w", "1 if w < (1 << y) else 2",
			"w if w <= U64 else w - W", "(w ^ (w >> 7)) & U64", "w % 7", "w"}
		fmt.Fprintf(b, "%sa = %s\n", ind, uses[r.IntN(len(uses))])
	case 7:
		fmt.Fprintf(b, "%sfor i in range(%s, %s):\n%s    a = %s\n%s    break\n", ind, g.constant(), g.leaf(true), ind, g.expr(1, true), ind)
	case 8:
		fmt.Fprintf(b, "%sn = 0\n%swhile %s and n < 3:\n%s    a = %s\n%s    n += 1\n", ind, ind, g.cond(1, true), ind, g.expr(1, true), ind)
	case 0:
		fmt.Fprintf(b, "%sif %s:\n%s    a = %s\n", ind, g.cond(1, true), ind, g.expr(1+r.IntN(2), true))
	case 1:
		ops := []string{"+=", "-=", "*=", "//=", "%=", "&=", "|=", "^="}
		fmt.Fprintf(b, "%sa %s %s\n", ind, ops[r.IntN(len(ops))], g.expr(r.IntN(2), true))
	case 2:
		fmt.Fprintf(b, "%sa %s %s\n", ind, []string{"<<=", ">>="}[r.IntN(2)], g.count())
	case 3:
		// A local holding a negative constant or a word.
		uses := []string{"a + d", "a - d", "(a + d) & 0xff", "a if a + d >= 0 else d", "d + a", "d - a", "d * 2 + a",
			"(d // 3) + a", "(d % 7) + a", "abs(d)", "-d", "(d >> 1) + a", "d & 0xff", "d & a", "a ^ d", "d | 1",
			"1 if d < x else 2", "1 if d == -1 else 2", "max(d, a)", "min(d, 0)", "a if d > -64 else 3", "~d", "d << 1"}
		fmt.Fprintf(b, "%sd = -%s if %s else %s\n%sa = %s\n", ind, edgeInts[r.IntN(len(edgeInts)-1)], g.cond(0, true), g.leaf(true), ind,
			uses[r.IntN(len(uses))])
	case 4:
		fmt.Fprintf(b, "%sfor i in range(%s):\n%s    a = %s\n", ind, []string{"3", "y & 7", "x % 5"}[r.IntN(3)], ind,
			[]string{"a + i", "(a << i) & U64", "a * 3 + i", "a ^ (a >> 1)", "(a - i) & a"}[r.IntN(5)])
	case 5:
		form := []string{"abs(%s)", "-(%s) & U64", "~(%s) & 0xff", "-(%s)"}[r.IntN(4)]
		fmt.Fprintf(b, "%sa = %s\n", ind, fmt.Sprintf(form, g.expr(1, true)))
	default:
		fmt.Fprintf(b, "%sa = %s\n", ind, g.expr(1+r.IntN(2), true))
	}
}

// edgeArgs are the arguments of every call: each pair of edge ints,
// negative ones among them.
func edgeArgs() []starlark.Tuple {
	var vals []starlark.Value
	for _, s := range append(append([]string{}, edgeInts...), "-1", "-64", "-9223372036854775808") {
		v, err := starlark.Eval(&starlark.Thread{}, "edge", s, nil)
		if err != nil {
			panic(err)
		}
		vals = append(vals, v)
	}
	var out []starlark.Tuple
	for _, x := range vals {
		for _, y := range vals {
			out = append(out, starlark.Tuple{x, y})
		}
	}
	return out
}

// edgeOutcome is a call's result or its error's text.
func edgeOutcome(v starlark.Value, err error) string {
	if err != nil {
		if e, ok := err.(*starlark.EvalError); ok {
			return "error: " + e.Msg
		}
		return "error: " + err.Error()
	}
	return v.Type() + " " + v.String()
}

// TestNativeEdges: random plain functions around the edges of the words
// and of Starlark's ints (edgeFunc) give, run as code, the interpreter's
// answer, or its error with the same text: called directly as code on
// every pair of edge ints, and through the fork's hook (at the first call
// where the function loops, at the 1000th where it does not) on each
// call until past the 1000th. BITSH_SLOW=1 runs many more functions
// (docs/reliability.md, "Fourth sweep").
func TestNativeEdges(t *testing.T) {
	needAMD64(t)
	n, forked := 60, 6
	if testscale.Short() {
		n, forked = 20, 2
	}
	if os.Getenv("BITSH_SLOW") != "" {
		n, forked = 300000, 3000
	}
	// BITSH_EDGE_SEED starts the seeds elsewhere: other functions.
	first, _ := strconv.ParseUint(os.Getenv("BITSH_EDGE_SEED"), 10, 64)
	sum, refused := edgeSweep(t, first, n, forked, 0xed6e, edgeFunc)
	t.Logf("%d functions (%d refused): %d calls as code, %d calls through the fork as code", n, refused, sum.coded, sum.forkCoded)
	if sum.coded < 2*n || sum.forkCoded == 0 && starlarkfork.InUse() {
		t.Errorf("%d calls as code, %d through the fork, %d functions refused: the test tests little", sum.coded, sum.forkCoded, refused)
	}
}

// edgeResult is what edgeDiff found of a function: its calls answered as
// code, directly and through the fork, whether the compiler refused it,
// and its first answer as code that is not the interpreter's ("" where
// none).
type edgeResult struct {
	coded, forkCoded int
	refused          bool
	wrong            string
}

// edgeDiff runs the f(x, y) of src on each of args interpreted, then as
// code (where the compiler takes f), and, with fork, through the fork's
// hook on every call from the first to past the 1000th (loop: f loops,
// and is offered at its first call), comparing the outcomes. err is a
// failure of the test itself (src does not run; the offer is not heard).
func edgeDiff(src string, args []starlark.Tuple, loop, fork bool) (res edgeResult, err error) {
	plain, plainThread, err := edgeExec(src, true, nil)
	if err != nil {
		return res, nil // a global that fails (G0 = 1 << -1): nothing to compare
	}
	want := make([]string, len(args))
	for i, a := range args {
		want[i] = edgeOutcome(starlark.Call(plainThread, plain, a, nil))
	}

	// As code, called directly.
	code, codeThread, err := edgeExec(src, true, nil)
	if err != nil {
		return res, err
	}
	nf, err := compileWait(codeThread, code)
	res.refused = err != nil
	for i, a := range args {
		if res.refused {
			break
		}
		v, ok := nf.call(codeThread, a)
		if !ok {
			continue
		}
		res.coded++
		if got := edgeOutcome(v, nil); got != want[i] {
			res.wrong = fmt.Sprintf("f%v = %s as code; the interpreter gives %s", a, got, want[i])
			return res, nil
		}
	}
	if !fork || !starlarkfork.InUse() {
		return res, nil // (upstream's go.starlark.net offers nothing)
	}

	// Through the fork: each call as the interpreter would answer it,
	// before and after the function is offered.
	reports := make(chan error, 1)
	fn, thread, err := edgeExec(src, false, func(fn *starlark.Function, err error) {
		if fn.Name() == "f" { // (not its helper h)
			select {
			case reports <- err:
			default:
			}
		}
	})
	if err != nil {
		return res, err
	}
	offered := false
	for k := 0; k < 1000+len(args); k++ {
		a := args[k%len(args)]
		steps := thread.ExecutionSteps()
		got := edgeOutcome(starlark.Call(thread, fn, a, nil))
		if got != want[k%len(args)] {
			res.wrong = fmt.Sprintf("call %d: f%v = %s through the fork; the interpreter gives %s", k+1, a, got, want[k%len(args)])
			return res, nil
		}
		if thread.ExecutionSteps() == steps {
			res.forkCoded++
		}
		if !offered && (k == 0 && loop || k == 999) {
			// The offer's report, which may come once the code is
			// generated: later calls then run as code.
			select {
			case <-reports:
				offered = true
			case <-time.After(5 * time.Second):
				return res, fmt.Errorf("no report of the offer at call %d", k+1)
			}
		}
	}
	return res, nil
}

// TestNativeEdgeCases: the wrong answers the edge tester found, as plain
// scripts write them, each run through the fork to past its 1000th call
// and directly as code on every pair of edge ints: each call gives the
// interpreter's answer or error.
func TestNativeEdgeCases(t *testing.T) {
	needAMD64(t)
	head := "U64 = (1 << 64) - 1\nPHI = 0x9e3779b97f4a7c15\n"
	cases := []string{
		"def f(x, y): return (x << y) & U64",
		"def f(x, y):\n    if (x << y) & 1:\n        return 1\n    return 2",
		"def f(x, y): return (x >> y) | ((x << (64 - y)) & U64)",
		"def f(x, y): return ((x + y) - 1) & (x + y)",
		"def f(x, y): return -(x * y) & (x * y)",
		"def f(x, y): return x if y != 2 else (((9 << 65) - 1) & (9 << 65)) | x",
		"def f(x, y): return x if y != 2 else (-(y << 65) & (y << 65)) | x",
		"def f(x, y): return abs(0x9e3779b97f4a7c15) ^ x",
		"def f(x, y): return abs(PHI) + x",
		"def f(x, y): return abs(PHI ^ 1) + x",
		"def f(x, y): return x if y != 2 else (5 >> (1 << 31)) + x",
		"def f(x, y): return x if y != 2 else (U64 >> 2147483648) | y",
		"def f(x, y): return x if y != 2 else (x * y) >> 2147483648",
		"def f(x, y):\n    limit = 1 << 64\n    v = x | 1\n    n = 0\n    while v < limit and n < 70:\n        n += 1\n        c = v & -v\n        r = v + c\n        v = (((r ^ v) >> 2) // c) | r\n    return n + (v >> 1)",
		"def f(x, y): return 1 if x - y == (x << (64 - y)) & 0xff else 2",
		"def f(x, y): return 1 if (x - 1) != (5 % y) else 2",
		"def f(x, y):\n    a = (x + y) & 0xff\n    if rotl(a, y - 1, 8) != ((x and 65) & y):\n        a = abs(y)\n    return (a & x) & 0xff",
	}
	args := edgeArgs()
	for i, c := range cases {
		for _, loop := range []bool{false, true} {
			body := strings.TrimPrefix(c, "def f(x, y):")
			if !strings.HasPrefix(body, "\n") {
				body = "\n    return" + strings.TrimPrefix(body, " return")
			}
			if loop {
				body = "\n    for _ in range(1):\n        pass" + body
			}
			src := head + "def f(x, y):" + body
			res, err := edgeDiff(src, args, loop, true)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if res.wrong != "" {
				t.Errorf("case %d: %s\n%s", i, res.wrong, src)
			}
			if res.refused || res.coded == 0 {
				t.Errorf("case %d: no call as code (refused: %v)\n%s", i, res.refused, src)
			}
		}
	}
}

// edgeExec runs src, interpreted or with the hook (report hearing its
// offers), and returns its f and the thread.
func edgeExec(src string, interpreted bool, report func(*starlark.Function, error)) (*starlark.Function, *starlark.Thread, error) {
	thread := &starlark.Thread{Name: "edge", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"edge.star": src}, Context: context.Background(), Interpreted: interpreted, NativeReport: report})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "edge.star", src, Predeclared())
	if err != nil {
		return nil, nil, fmt.Errorf("%w\n%s", err, src)
	}
	return g["f"].(*starlark.Function), thread, nil
}

// edgeSweep runs edgeDiff on n random functions that gen makes (a loop in
// every other one), from seed first on (the random stream's second word
// stream), every n/forked-th through the fork's hook too, on every pair of
// edge ints; it reports each wrong answer (stopping after 20) and returns
// the calls run as code and the functions refused.
func edgeSweep(t *testing.T, first uint64, n, forked int, stream uint64, gen func(*rand.Rand, bool) string) (sum edgeResult, refused int) {
	t.Helper()
	args := edgeArgs()
	wrong := 0
	for seed := first; seed < first+uint64(n) && wrong < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, stream))
		loop := seed%2 == 1
		src := gen(r, loop)
		res, err := edgeDiff(src, args, loop, seed%uint64(n/forked) == 0)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.wrong != "" {
			t.Errorf("seed %d: %s\n%s", seed, res.wrong, src)
			wrong++
		}
		sum.coded += res.coded
		sum.forkCoded += res.forkCoded
		if res.refused {
			refused++
		}
	}
	return sum, refused
}
