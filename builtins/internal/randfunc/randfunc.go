// Package randfunc writes random Starlark functions in the subset that fuse
// compiles (loops, tables, scratch arrays, helpers, the word builtins), for
// differential tests between back ends: the plain Starlark function, the
// reference evaluator, the generated C and native code must all agree.
//
// The functions always end quickly (every loop is bounded: a range of a
// few items, the subsets of a few bits, a while with a counter) and keep
// their arithmetic in words where plain Starlark would leave them: a sum,
// difference, product, left shift, negation or complement is masked with
// & U64, so plain Starlark computes the same word as the fused function.
// Errors (a division by zero, an index out of range) happen now and then,
// on purpose: both sides must fail on the same inputs.
package randfunc

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Source returns a script that defines tables (T0, R0, ...), helpers (h0,
// h1, ...) and the function f(x, y), which is the one to fuse.
func Source(r *rand.Rand) string { return source(r, false) }

// RecursiveSource returns a script as Source does whose helpers also
// recurse: each of one or two of them starts a helper that calls itself, or
// another that calls it back, a few calls deep (at most 3 levels, one or
// two calls a level), on words computed from its parameters.
func RecursiveSource(r *rand.Rand) string { return source(r, true) }

func source(r *rand.Rand, recursion bool) string {
	g := &gen{r: r}
	var b strings.Builder
	for i, n := 0, r.IntN(3); i < n; i++ {
		b.WriteString(g.flatTable())
	}
	for i, n := 0, r.IntN(3); i < n; i++ {
		b.WriteString(g.rowTable())
	}
	for i, n := 0, r.IntN(3); i < n; i++ {
		b.WriteString(g.helper())
	}
	if recursion {
		for i, n := 0, 1+r.IntN(2); i < n; i++ {
			b.WriteString(g.recursive())
		}
	}
	b.WriteString(g.function("f", []string{"x", "y"}, 2, 10+r.IntN(14)))
	return b.String()
}

type table struct {
	name string
	rows []int // row lengths; nil for a flat table
	n    int   // a flat table's length
}

type helper struct {
	name   string
	params int
	loopy  bool // it has a loop: other helpers do not call it
}

type rowVar struct {
	name  string
	table int
}

type scratch struct {
	name string
	n    int
	init string // V of [V] * n; "" for an array written as a list
}

// scope is what the function being written can read at the current point.
type scope struct {
	words   []string
	rows    []rowVar
	scratch []scratch
	loops   int // loops around the current point
	maxLoop int // loops that may nest
	depth   int // statement nesting
	budget  int // statements left to write
}

type gen struct {
	r       *rand.Rand
	tables  []table
	helpers []helper
	sc      *scope
	out     *strings.Builder
	indent  int
	names   int
	inHelp  bool
	looped  bool // the function being written has a loop
}

func (g *gen) name(prefix string) string {
	g.names++
	return fmt.Sprintf("%s%d", prefix, g.names)
}

// word returns a random word: small, a power of two near a boundary, or any.
func (g *gen) word() uint64 {
	switch g.r.IntN(6) {
	case 0, 1:
		return g.r.Uint64N(16)
	case 2:
		return g.r.Uint64N(1000)
	case 3:
		return 1 << g.r.IntN(64)
	case 4:
		return ^uint64(0) - g.r.Uint64N(4)
	}
	return g.r.Uint64()
}

func lit(w uint64) string {
	if w < 1000 {
		return fmt.Sprint(w)
	}
	return fmt.Sprintf("0x%x", w)
}

func (g *gen) flatTable() string {
	t := table{name: fmt.Sprintf("T%d", len(g.tables)), n: 1 + g.r.IntN(9)}
	g.tables = append(g.tables, t)
	ws := make([]string, t.n)
	for i := range ws {
		ws[i] = lit(g.word())
	}
	if g.r.IntN(4) == 0 {
		return fmt.Sprintf("%s = (%s,)\n", t.name, strings.Join(ws, ", "))
	}
	return fmt.Sprintf("%s = [%s]\n", t.name, strings.Join(ws, ", "))
}

func (g *gen) rowTable() string {
	t := table{name: fmt.Sprintf("R%d", len(g.tables))}
	var rows []string
	for i, n := 0, 1+g.r.IntN(5); i < n; i++ {
		k := 1 + g.r.IntN(6)
		if g.r.IntN(8) == 0 {
			k = 0
		}
		t.rows = append(t.rows, k)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = lit(g.word())
		}
		rows = append(rows, "["+strings.Join(ws, ", ")+"]")
	}
	g.tables = append(g.tables, t)
	return fmt.Sprintf("%s = [%s]\n", t.name, strings.Join(rows, ", "))
}

func (g *gen) helper() string {
	h := helper{name: fmt.Sprintf("h%d", len(g.helpers)), params: 1 + g.r.IntN(2)}
	params := []string{"p", "q"}[:h.params]
	g.inHelp, g.looped = true, false
	src := g.function(h.name, params, g.r.IntN(2), 2+g.r.IntN(5))
	g.inHelp = false
	h.loopy = g.looped
	g.helpers = append(g.helpers, h)
	return src
}

// recursive writes a helper hN(p, q) that starts hN_r(p, q, q & 3), which
// recurses on d, directly or through hN_s, with one or two calls a level.
func (g *gen) recursive() string {
	name := fmt.Sprintf("h%d", len(g.helpers))
	var b strings.Builder
	saved, savedOut, savedIndent := g.sc, g.out, g.indent
	g.inHelp = true
	g.out = &b
	callee := name + "_r"
	if g.r.IntN(2) == 0 {
		callee = name + "_s"
	}
	level := func(self, next string) {
		g.sc = &scope{words: []string{"p", "q"}, budget: 2}
		g.indent = 0
		g.line("def %s(p, q, d):", self)
		g.indent = 1
		// The last call may be in tail position: returned, or (calling
		// itself) returned added to a word below 2^32, whose results then
		// stay below 2^50 at the depths written here, so that plain
		// Starlark's sum is the fused function's word.
		form := g.r.IntN(3)
		if self != next && form == 2 {
			form = 1
		}
		g.line("if d == 0:")
		g.indent = 2
		if form == 2 {
			g.line("return (%s) & 0xffffffffffff", g.expr(2))
		} else {
			g.line("return %s", g.expr(2))
		}
		g.indent = 1
		switch form {
		case 1:
			g.line("return %s(%s, %s, d - 1)", next, g.expr(1), g.expr(1))
			return
		case 2:
			if g.r.IntN(2) == 0 {
				g.line("a = %s(%s, %s, d - 1)", next, g.expr(1), g.expr(1))
				g.line("if a & 1:")
				g.indent = 2
				g.line("return a")
				g.indent = 1
			}
			g.line("return (%s & 0xffffffff) + %s(%s, %s, d - 1)", g.expr(1), next, g.expr(1), g.expr(1))
			return
		}
		if g.r.IntN(3) == 0 {
			// A scratch array of the frame, written before and read after
			// the call: each call has its own.
			g.line("m = [0] * 4")
			g.line("m[d & 3] = %s", g.expr(1))
			g.line("a = %s(%s, %s, d - 1) ^ m[d & 3]", next, g.expr(1), g.expr(1))
		} else {
			g.line("a = %s(%s, %s, d - 1)", next, g.expr(1), g.expr(1))
		}
		if g.r.IntN(2) == 0 {
			g.line("a = (a + %s(%s, %s, d - 1)) & U64", next, g.expr(1), g.expr(1))
		}
		g.line("return (a ^ %s) & U64", g.expr(1))
	}
	level(name+"_r", callee)
	if callee != name+"_r" {
		level(callee, name+"_r")
	}
	fmt.Fprintf(&b, "def %s(p, q):\n    return %s_r(p, q, q & 3)\n", name, name)
	g.inHelp = false
	g.sc, g.out, g.indent = saved, savedOut, savedIndent
	g.helpers = append(g.helpers, helper{name: name, params: 2})
	return b.String()
}

// function writes def name(params): locals, scratch arrays, statements and
// a final return.
func (g *gen) function(name string, params []string, maxLoops, budget int) string {
	var b strings.Builder
	saved, savedOut, savedIndent := g.sc, g.out, g.indent
	g.sc = &scope{words: append([]string(nil), params...), budget: budget, maxLoop: maxLoops}
	g.out, g.indent = &b, 1
	fmt.Fprintf(&b, "def %s(%s):\n", name, strings.Join(params, ", "))
	for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
		v := g.name("v")
		g.line("%s = %s", v, g.expr(2))
		g.sc.words = append(g.sc.words, v)
	}
	for i, n := 0, g.r.IntN(3); i < n; i++ {
		a := scratch{name: g.name("a"), n: 1 + g.r.IntN(16)}
		if g.r.IntN(3) == 0 {
			els := make([]string, 1+g.r.IntN(4))
			for j := range els {
				els[j] = g.expr(1)
			}
			a.n = len(els)
			g.line("%s = [%s]", a.name, strings.Join(els, ", "))
		} else {
			a.init = lit(g.r.Uint64N(3))
			g.line("%s = [%s] * %d", a.name, a.init, a.n)
		}
		g.sc.scratch = append(g.sc.scratch, a)
	}
	g.block()
	g.line("return %s", g.expr(3))
	g.sc, g.out, g.indent = saved, savedOut, savedIndent
	return b.String()
}

func (g *gen) line(format string, args ...any) {
	g.out.WriteString(strings.Repeat("    ", g.indent))
	fmt.Fprintf(g.out, format, args...)
	g.out.WriteByte('\n')
}

// block writes statements until the budget or chance ends it.
func (g *gen) block() {
	for n := 0; g.sc.budget > 0; n++ {
		g.stmt()
		if n > 0 && g.r.IntN(4) == 0 {
			break
		}
	}
}

// nested writes an indented block in a new scope (names bound in it are
// not read after it) and at least one statement.
func (g *gen) nested(loop bool) {
	sc := *g.sc
	g.indent++
	g.sc.depth++
	if loop {
		g.sc.loops++
	}
	g.sc.budget = max(g.sc.budget, 1)
	g.block()
	left := g.sc.budget
	g.indent--
	*g.sc = sc
	g.sc.budget = left
}

func (g *gen) stmt() {
	sc := g.sc
	sc.budget--
	w := g.pickWord
	canNest := sc.depth < 3
	canLoop := canNest && sc.loops < sc.maxLoop
	switch k := g.r.IntN(20); {
	case k < 4:
		v := w()
		switch g.r.IntN(4) {
		case 0:
			g.line("%s ^= %s", v, g.expr(3))
		case 1:
			g.line("%s = (%s + %s) & U64", v, v, g.expr(2))
		default:
			g.line("%s = %s", v, g.expr(3))
		}
	case k == 4 && len(sc.words) >= 2:
		a, b := w(), w()
		for b == a {
			b = w()
		}
		g.line("%s, %s = %s, %s", a, b, g.expr(2), g.expr(2))
	case k < 7 && len(sc.scratch) > 0:
		a := sc.scratch[g.r.IntN(len(sc.scratch))]
		i := g.index(a.n)
		switch g.r.IntN(3) {
		case 0:
			g.line("%s[%s] ^= %s", a.name, i, g.expr(2))
		case 1:
			g.line("%s[%s] = (%s[%s] + %s) & U64", a.name, i, a.name, i, g.expr(2))
		default:
			g.line("%s[%s] = %s", a.name, i, g.expr(2))
		}
	case k == 7 && len(sc.scratch) > 0 && sc.loops > 0:
		// Fresh again: each iteration starts from the initial values.
		a := sc.scratch[g.r.IntN(len(sc.scratch))]
		if a.init == "" {
			g.line("%s[0] = %s", a.name, g.expr(1))
		} else {
			g.line("%s = [%s] * %d", a.name, a.init, a.n)
		}
	case k == 8 && canNest && g.rowTables() > 0:
		t := g.randRowTable()
		rv := rowVar{name: g.name("r"), table: t}
		g.line("%s = %s[%s]", rv.name, g.tables[t].name, g.index(len(g.tables[t].rows)))
		sc.rows = append(sc.rows, rv)
	case k < 12 && canNest:
		g.line("if %s:", g.cond(2))
		g.nested(false)
		if g.r.IntN(2) == 0 {
			g.line("else:")
			g.nested(false)
		}
	case k < 17 && canLoop:
		g.loop()
	case k == 17 && sc.loops > 0:
		kw := "break"
		if g.r.IntN(2) == 0 {
			kw = "continue"
		}
		g.line("if %s:", g.cond(1))
		g.line("    %s", kw)
	case k == 18:
		g.line("if %s:", g.cond(2))
		g.line("    return %s", g.expr(2))
	default:
		v := w()
		g.line("%s |= %s", v, g.expr(2))
	}
}

func (g *gen) loop() {
	g.looped = true
	v := g.name("i")
	switch g.r.IntN(7) {
	case 5:
		// Constant bounds: the cursor runs to its end value.
		if g.r.IntN(2) == 0 {
			g.line("for %s in range(%d):", v, g.r.IntN(12))
		} else {
			g.line("for %s in range(%d, %d, -%d):", v, 5+g.r.IntN(20), g.r.IntN(6), 1+g.r.IntN(4))
		}
	case 0:
		g.line("for %s in range(%s %% 9):", v, g.expr(1))
	case 1:
		g.line("for %s in range(%s %% 5, 3 + %s %% 10, 1 + %s %% 3):", v, g.expr(1), g.expr(1), g.expr(1))
	case 2:
		g.line("for %s in range(%d, %s %% 4, -%d):", v, 6+g.r.IntN(8), g.expr(1), 1+g.r.IntN(3))
	case 3:
		g.line("for %s in subsets(%s & %s):", v, g.expr(1), lit(g.mask(4)))
	case 4:
		g.line("for %s in subsets(%s & %s, %s):", v, g.expr(1), lit(g.mask(6)), g.subsetK())
	default:
		if g.r.IntN(2) == 0 {
			g.line("for %s in bits(%s & %s):", v, g.expr(1), lit(g.mask(10)))
		} else {
			c := g.name("w")
			g.line("%s = 0", c)
			g.line("while %s < %d and (%s):", c, 1+g.r.IntN(8), g.cond(1))
			g.line("    %s += 1", c)
			g.nested(true)
			return
		}
	}
	sc := *g.sc
	g.sc.words = append(g.sc.words[:len(g.sc.words):len(g.sc.words)], v)
	g.nested(true)
	left := g.sc.budget
	*g.sc = sc
	g.sc.budget = left
}

func (g *gen) subsetK() string {
	if g.r.IntN(2) == 0 {
		return fmt.Sprint(g.r.IntN(5))
	}
	return g.expr(1) + " % 5"
}

// mask returns a random mask of at most n one bits.
func (g *gen) mask(n int) uint64 {
	var m uint64
	for i, k := 0, g.r.IntN(n+1); i < k; i++ {
		m |= 1 << g.r.IntN(64)
	}
	return m
}

func (g *gen) pickWord() string {
	// Loop variables and parameters are read but assigned only through
	// the locals, so that a loop's own counting is never disturbed.
	var ws []string
	for _, w := range g.sc.words {
		if w[0] == 'v' || w[0] == 'p' || w[0] == 'q' || w == "x" || w == "y" {
			ws = append(ws, w)
		}
	}
	return ws[g.r.IntN(len(ws))]
}

func (g *gen) rowTables() int {
	n := 0
	for _, t := range g.tables {
		if t.rows != nil {
			n++
		}
	}
	return n
}

func (g *gen) randRowTable() int {
	for {
		i := g.r.IntN(len(g.tables))
		if g.tables[i].rows != nil {
			return i
		}
	}
}

// index returns an index into n elements: mostly in range (also from the
// end), now and then out of range, on purpose.
func (g *gen) index(n int) string {
	switch g.r.IntN(30) {
	case 0:
		return fmt.Sprintf("%s %% %d", g.expr(1), n+2)
	case 1, 2, 3, 4, 5:
		return fmt.Sprintf("-1 - %s %% %d", g.expr(1), n)
	case 6, 7:
		return fmt.Sprint(g.r.IntN(n))
	}
	return fmt.Sprintf("%s %% %d", g.expr(1), n)
}

// cond returns a condition (its value may be a bool in plain Starlark, so
// it is used only where a truth value is read).
func (g *gen) cond(d int) string {
	ops := []string{"<", "<=", "==", "!=", ">", ">="}
	switch k := g.r.IntN(8); {
	case k < 4 || d == 0:
		return fmt.Sprintf("%s %s %s", g.expr(d), ops[g.r.IntN(len(ops))], g.expr(d))
	case k == 4:
		return fmt.Sprintf("not (%s)", g.cond(d-1))
	case k == 5:
		return fmt.Sprintf("(%s) and (%s)", g.cond(d-1), g.cond(d-1))
	case k == 6:
		return fmt.Sprintf("(%s) or (%s)", g.cond(d-1), g.cond(d-1))
	}
	return fmt.Sprintf("%s & %s", g.expr(d), lit(g.mask(3)|1))
}

var deltas = []struct {
	mask  uint64
	delta int
}{{0x5555555555555555, 1}, {0x3333333333333333, 2}, {0x0f0f0f0f0f0f0f0f, 4}, {0x00ff00ff00ff00ff, 8}, {0x0000ffff, 32}, {0x7, 60}}

// expr returns a word expression of depth at most d.
func (g *gen) expr(d int) string {
	if d <= 0 || g.r.IntN(5) == 0 {
		return g.leaf()
	}
	a := func() string { return g.expr(d - 1) }
	switch k := g.r.IntN(34); k {
	case 0:
		return fmt.Sprintf("((%s + %s) & U64)", a(), a())
	case 1:
		return fmt.Sprintf("((%s - %s) & U64)", a(), a())
	case 2:
		return fmt.Sprintf("((%s * %s) & U64)", a(), a())
	case 3:
		return fmt.Sprintf("(%s & %s)", a(), a())
	case 4:
		return fmt.Sprintf("(%s | %s)", a(), a())
	case 5:
		return fmt.Sprintf("(%s ^ %s)", a(), a())
	case 6:
		return fmt.Sprintf("((%s << %s %% 70) & U64)", a(), a())
	case 7:
		return fmt.Sprintf("(%s >> %s %% 70)", a(), a())
	case 8:
		if g.r.IntN(12) == 0 {
			return fmt.Sprintf("(%s // (%s %% 3))", a(), a())
		}
		return fmt.Sprintf("(%s // (1 + %s %% 1000))", a(), a())
	case 9:
		if g.r.IntN(12) == 0 {
			return fmt.Sprintf("(%s %% (%s & 3))", a(), a())
		}
		return fmt.Sprintf("(%s %% (1 + %s %% 1000))", a(), a())
	case 10:
		return fmt.Sprintf("((~%s) & U64)", a())
	case 11:
		return fmt.Sprintf("((-%s) & U64)", a())
	case 12:
		return fmt.Sprintf("(%s if %s else %s)", a(), g.cond(d-1), a())
	case 13:
		return fmt.Sprintf("(%s and %s)", a(), a())
	case 14:
		return fmt.Sprintf("(%s or %s)", a(), a())
	case 15:
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("min(%s, %s)", a(), a())
		}
		return fmt.Sprintf("min(%s, %s, %s)", a(), a(), a())
	case 16:
		return fmt.Sprintf("max(%s, %s)", a(), a())
	case 17:
		// The difference of two words below 2^62: negative in plain
		// Starlark, a wrapped word in the fused one, the same abs.
		return fmt.Sprintf("abs((%s & 0x3fffffffffffffff) - (%s & 0x3fffffffffffffff))", a(), a())
	case 18:
		return fmt.Sprintf("popcount(%s)", a())
	case 19:
		if g.r.IntN(12) == 0 {
			return fmt.Sprintf("bsf(%s)", a())
		}
		return fmt.Sprintf("bsf(%s | %s)", a(), lit(1<<g.r.IntN(64)))
	case 20:
		return fmt.Sprintf("bsr(%s | 1)", a())
	case 21:
		return fmt.Sprintf("lsb(%s)", a())
	case 22:
		return fmt.Sprintf("parity(%s)", a())
	case 23:
		return fmt.Sprintf("gray(%s)", a())
	case 24:
		return fmt.Sprintf("gray_inverse(%s)", a())
	case 25:
		f := []string{"rotl", "rotr"}[g.r.IntN(2)]
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf("%s(%s & 0xffff, %s, 16)", f, a(), a())
		}
		return fmt.Sprintf("%s(%s, %s)", f, a(), a())
	case 26:
		switch g.r.IntN(3) {
		case 0:
			return fmt.Sprintf("reverse_bits(%s & 0xff, 8)", a())
		case 1:
			return fmt.Sprintf("swap_bytes(%s & 0xffffffff, 32)", a())
		}
		return fmt.Sprintf("%s(%s)", []string{"reverse_bits", "swap_bytes"}[g.r.IntN(2)], a())
	case 27:
		return fmt.Sprintf("pdep(%s, %s)", a(), a())
	case 28:
		return fmt.Sprintf("pext(%s, %s)", a(), a())
	case 29:
		ds := deltas[g.r.IntN(len(deltas))]
		return fmt.Sprintf("delta_swap(%s, %s, %d)", a(), lit(ds.mask), ds.delta)
	case 32:
		// The lowest-bit idioms (BMI1's blsr, blsmsk, blsi) on one leaf.
		x := g.leaf()
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprintf("(%s & ((%s - 1) & U64))", x, x)
		case 1:
			return fmt.Sprintf("(((%s - 1) & U64) ^ %s)", x, x)
		case 2:
			return fmt.Sprintf("(%s & ((-%s) & U64))", x, x)
		}
		return fmt.Sprintf("(%s & ((%s + 0xffffffffffffffff) & U64))", x, x)
	case 30, 31:
		// f calls any helper; a helper calls only the loop-free helpers
		// written before it (so the work stays small).
		var hs []helper
		for _, h := range g.helpers {
			if !g.inHelp || !h.loopy {
				hs = append(hs, h)
			}
		}
		if len(hs) > 0 {
			h := hs[g.r.IntN(len(hs))]
			args := make([]string, h.params)
			for i := range args {
				args[i] = a()
			}
			return fmt.Sprintf("%s(%s)", h.name, strings.Join(args, ", "))
		}
	}
	return g.leaf()
}

// leaf returns a variable, a constant, or a read of a table, a row or a
// scratch array.
func (g *gen) leaf() string {
	sc := g.sc
	switch k := g.r.IntN(12); {
	case k < 5:
		return sc.words[g.r.IntN(len(sc.words))]
	case k < 7:
		return lit(g.word())
	case k == 7 && len(g.tables) > 0:
		t := g.tables[g.r.IntN(len(g.tables))]
		if t.rows == nil {
			if g.r.IntN(4) == 0 {
				return fmt.Sprintf("len(%s)", t.name)
			}
			return fmt.Sprintf("%s[%s]", t.name, g.index(t.n))
		}
		i := g.r.IntN(len(t.rows))
		switch g.r.IntN(3) {
		case 0:
			return fmt.Sprintf("len(%s[%s])", t.name, g.index(len(t.rows)))
		case 1:
			return fmt.Sprintf("len(%s)", t.name)
		}
		if t.rows[i] == 0 {
			return fmt.Sprintf("len(%s[%d])", t.name, i)
		}
		return fmt.Sprintf("%s[%d][%s]", t.name, i, g.index(t.rows[i]))
	case k == 8 && len(sc.rows) > 0:
		rv := sc.rows[g.r.IntN(len(sc.rows))]
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf("len(%s)", rv.name)
		}
		// The row may be empty: % len(row) then fails on both sides.
		return fmt.Sprintf("%s[%s %% len(%s)]", rv.name, g.expr(0), rv.name)
	case k < 11 && len(sc.scratch) > 0:
		a := sc.scratch[g.r.IntN(len(sc.scratch))]
		if g.r.IntN(5) == 0 {
			return fmt.Sprintf("len(%s)", a.name)
		}
		return fmt.Sprintf("%s[%s]", a.name, g.index(a.n))
	}
	w := g.word()
	if bits.OnesCount64(w) > 32 {
		w = ^w
	}
	return lit(w)
}
