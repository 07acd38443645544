package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
)

// growGen writes random plain functions whose locals grow in loops
// (a = a + b, b = a * 2, a chain c = b, b = a, a = c + 1 longer than a few
// rounds of a range analysis can follow), mixed with constants, masks and
// remainders across branches, and index a table, a scratch list and a
// list with them: the x86-64 generator leaves out an index check where it
// finds a bound of the index (fuse/native's bounds), and a wrong bound
// would read past the end where the interpreter fails, or give another
// answer.
type growGen struct {
	r       *rand.Rand
	b       strings.Builder
	vars    []string
	bounded float64 // how often a local is given a bounded form
}

func (g *growGen) v() string { return g.vars[g.r.IntN(len(g.vars))] }

// rhs is a value for a local: growing, bounded or constant.
func (g *growGen) rhs() string {
	c := g.r.IntN(20)
	if g.r.Float64() < g.bounded {
		// A form with a bound of its own, or one of its operands'.
		return g.boundedRHS(c)
	}
	switch g.r.IntN(14) {
	case 0:
		return fmt.Sprint(c)
	case 1:
		return fmt.Sprintf("%s + %d", g.v(), 1+g.r.IntN(3))
	case 2:
		return fmt.Sprintf("%s + %s", g.v(), g.v())
	case 3:
		return fmt.Sprintf("%s * 2", g.v())
	case 4:
		return fmt.Sprintf("%s %% %d", g.v(), 1+g.r.IntN(20))
	case 5:
		return fmt.Sprintf("%s & %d", g.v(), []int{7, 15, 31, 3}[g.r.IntN(4)])
	case 6:
		return fmt.Sprintf("%s >> 1", g.v())
	case 7:
		return fmt.Sprintf("min(%s, %d)", g.v(), c)
	case 8:
		return fmt.Sprintf("max(%s, %d)", g.v(), c)
	case 9:
		return fmt.Sprintf("%s if %s < %d else %d", g.v(), g.v(), 1+c, g.r.IntN(16))
	case 10:
		return fmt.Sprintf("(%s + 1) %% %d", g.v(), 1+g.r.IntN(17))
	case 11:
		return g.v()
	case 12:
		return fmt.Sprintf("%s - 1 if %s > 0 else %d", g.v(), g.v(), c)
	}
	return fmt.Sprintf("%s | %d", g.v(), g.r.IntN(16))
}

// boundedRHS is a value for a local that a range analysis bounds where
// its operands are bounded (or at once).
func (g *growGen) boundedRHS(c int) string {
	switch g.r.IntN(9) {
	case 0:
		return fmt.Sprint(c)
	case 1:
		return fmt.Sprintf("%s %% %d", g.v(), 1+g.r.IntN(20))
	case 2:
		return fmt.Sprintf("%s & %d", g.v(), []int{7, 15, 31, 3}[g.r.IntN(4)])
	case 3:
		return fmt.Sprintf("min(%s, %d)", g.v(), c)
	case 4:
		return fmt.Sprintf("%s if %s < %d else %d", g.v(), g.v(), 1+c, g.r.IntN(16))
	case 5:
		return fmt.Sprintf("%s + %d", g.v(), 1+g.r.IntN(3))
	case 6:
		return fmt.Sprintf("%s + %s", g.v(), g.v())
	case 7:
		return g.v()
	}
	return fmt.Sprintf("%s >> 1", g.v())
}

// use is a statement that reads a local as an index or an operand.
func (g *growGen) use(ind string) {
	v := g.v()
	switch g.r.IntN(5) {
	case 0:
		fmt.Fprintf(&g.b, "%ss += T[%s]\n", ind, v)
	case 1:
		fmt.Fprintf(&g.b, "%sxs[%s] += 1\n", ind, v)
	case 2:
		fmt.Fprintf(&g.b, "%ss += ys[%s]\n", ind, v)
	case 3:
		fmt.Fprintf(&g.b, "%ss += %s * %s\n", ind, v, g.v())
	default:
		fmt.Fprintf(&g.b, "%ss = (s + %s) & 1023\n", ind, v)
	}
}

// stmts writes n statements at depth d.
func (g *growGen) stmts(ind string, n, d int) {
	for range n {
		switch k := g.r.IntN(10); {
		case k < 4:
			fmt.Fprintf(&g.b, "%s%s = %s\n", ind, g.v(), g.rhs())
		case k < 6:
			g.use(ind)
		case k < 7 && d < 3:
			fmt.Fprintf(&g.b, "%sif %s %s %d:\n", ind, g.v(), []string{"<", ">", "=="}[g.r.IntN(3)], g.r.IntN(16))
			g.stmts(ind+"    ", 1+g.r.IntN(3), d+1)
			if g.r.IntN(2) == 0 {
				fmt.Fprintf(&g.b, "%selse:\n", ind)
				g.stmts(ind+"    ", 1+g.r.IntN(3), d+1)
			}
		case k < 9 && d < 3:
			fmt.Fprintf(&g.b, "%sfor j%d in range(%s):\n", ind, d, []string{"n", "3", "m % 5", g.v() + " % 4"}[g.r.IntN(4)])
			g.stmts(ind+"    ", 1+g.r.IntN(4), d+1)
		default:
			fmt.Fprintf(&g.b, "%s%s = %d\n", ind, g.v(), g.r.IntN(16))
		}
	}
}

// growScript writes a script of one random function f(n, m) and calls
// of it, each printed, the first that fails ending the script.
func growScript(r *rand.Rand) string {
	g := &growGen{r: r, vars: []string{"a", "b", "c", "d"}[:2+r.IntN(3)], bounded: 0.5 + r.Float64()/2}
	g.b.WriteString("T = (3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3)\n")
	g.b.WriteString("def f(n, m):\n    xs = [0] * 16\n    ys = [1, 2, 3, 4, 5, 6, 7, 8]\n    s = 0\n")
	for _, v := range g.vars {
		fmt.Fprintf(&g.b, "    %s = %d\n", v, r.IntN(8))
	}
	g.b.WriteString("    for i in range(n):\n")
	g.stmts("        ", 3+r.IntN(6), 1)
	fmt.Fprintf(&g.b, "    return s + %s + xs[m %% 16]\n", strings.Join(g.vars, " + "))
	g.b.WriteString("for n in range(12):\n    print(n, f(n, n * 7))\n")
	return g.b.String()
}

// TestNativeGrowingBounds: random functions whose locals grow in loops give
// the interpreter's output and error as code.
func TestNativeGrowingBounds(t *testing.T) {
	requireNative(t)
	n := 300
	if testscale.Short() {
		n = 80
	}
	coded, wrong := 0, 0
	for seed := uint64(0); seed < uint64(n) && wrong < 5; seed++ {
		src := growScript(rand.New(rand.NewPCG(seed, 0xb0d5)))
		name := fmt.Sprintf("grow%d.star", seed)
		want := runDiff(t, name, src, true)
		got := runDiff(t, name, src, false)
		if got.out != want.out || got.err != want.err {
			t.Errorf("seed %d: with the hook:\n%s%s\ninterpreted:\n%s%s\nscript:\n%s", seed, got.out, got.err, want.out, want.err, src)
			wrong++
		}
		if len(got.funcs) > 0 && got.funcs[0].Code > 0 {
			coded++
		}
	}
	if coded < n/4 {
		t.Errorf("%d of %d functions ran as code; want a quarter at least", coded, n)
	}
	t.Logf("%d of %d functions ran as code", coded, n)
}
