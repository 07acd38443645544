package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
)

// TestNativeNegativeIntermediates: negative ints, on the way to a result
// or returned, that once sent the call back to the interpreter: return
// d.get(k, -1) on a missing key (of the function, or of a helper), return
// -3, t + 10 + d.get(k, -3), t + nr * 2 + 5 with nr * 2 negative, (nr -
// 2) % 7 with nr - 2 negative. Each gives the interpreter's output, every
// call as code.
func TestNativeNegativeIntermediates(t *testing.T) {
	requireNative(t)
	const dict = "    d = {}\n    for i in range(n):\n        d[i * 3] = i\n"
	for _, c := range []struct{ name, src string }{
		{"helper_get", "def look(d, k):\n    return d.get(k, -1)\ndef f(n):\n" + dict +
			"    t = 1000\n    for k in range(n * 3):\n        t += look(d, k)\n    return t\n"},
		{"helper_branches", "def look(d, k):\n    if k > 50:\n        return 7\n    if k % 5 == 4:\n        return -2\n    return d.get(k, -1)\ndef f(n):\n" + dict +
			"    t = 1000\n    for k in range(n * 3):\n        t += look(d, k) * 2 + 1\n    return t\n"},
		{"return_get", "def f(n):\n" + dict +
			"    t = 0\n    for k in range(n):\n        t += 1\n    return d.get(n, -1) if t < 50 else d.get(3, -7)\n"},
		{"return_negative", "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    if s % 3 == 1:\n        return -3\n    return s if s > 100 else -4\n"},
		{"get_sum", "def f(n):\n" + dict +
			"    s = 0\n    for k in range(n * 3):\n        t = k\n        s += t + 10 + d.get(k, -3)\n    return s\n"},
		{"mul_biased", "DIRS = (-1, 0, 1)\ndef f(n):\n    s = 0\n    for i in range(n):\n        r = i % 7\n        for dr in DIRS:\n" +
			"            nr = r + dr\n            t = i * 3\n            s += t + nr * 2 + 5\n    return s\n"},
		{"mul_const_local", "def f(n):\n    s = 0\n    for i in range(n):\n        nr = -1 if i % 3 == 0 else i % 5\n" +
			"        s += i * 3 + nr * 2 + 5\n    return s\n"},
		{"mod_diff", "def f(n):\n    s = 0\n    for i in range(n):\n        nr = i % 5\n        s += (nr - 2) % 7 + (i - 9) % 4\n    return s\n"},
		{"mod_biased", "DIRS = (-3, -1, 0, 2)\ndef f(n):\n    s = 0\n    for i in range(n):\n        r = i % 4\n        for dr in DIRS:\n" +
			"            nr = r + dr\n            s += (nr - 2) % 7 + (nr * 3) % 5 + (r - 3) % 4 + (nr + 1) % 9\n    return s\n"},
	} {
		src := c.src + "for n in (0, 1, 5, 40, 100):\n    print(f(n))\n"
		got := diffScript(t, c.name+".star", src)
		for _, f := range got.funcs {
			if f.Name == "f" && (f.Code != 5 || f.Interpreted != 0) {
				t.Errorf("%s: f: %d calls as code, %d interpreted; want 5 and 0: %+v", c.name, f.Code, f.Interpreted, f)
			}
		}
	}
}

// signedGen writes random functions whose locals go negative: nr = r +
// dr over a table of steps holding negative ints, locals given negative
// constants, a helper returning d.get(k, -j) or a negative constant, and
// such results of the function itself;
// read through products by constants, remainders by constants, sums and
// differences with constants, as the interpreter computes them.
type signedGen struct {
	r *rand.Rand
	b strings.Builder
}

func (g *signedGen) k(n int) int { return 1 + g.r.IntN(n) }

// term is an int term that may be negative on the way.
func (g *signedGen) term() string {
	v := []string{"nr", "m", "look(d, i + dr)", "(nr - %d)", "(m + %d)"}[g.r.IntN(5)]
	if strings.Contains(v, "%d") {
		v = fmt.Sprintf(v, g.k(9))
	}
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("%s * %d", v, g.k(5))
	case 1:
		return fmt.Sprintf("%s %% %d", v, g.k(11))
	case 2:
		return fmt.Sprintf("(%s - %d) %% %d", v, g.k(20), g.k(9))
	case 3:
		return fmt.Sprintf("(%s + %d)", v, g.k(3))
	}
	return v
}

// signedScript writes a random function f(n) and calls of it.
func signedScript(r *rand.Rand) string {
	g := &signedGen{r: r}
	steps := []string{}
	for range 2 + r.IntN(3) {
		steps = append(steps, fmt.Sprint(r.IntN(7)-4))
	}
	fmt.Fprintf(&g.b, "DIRS = (%s,)\n", strings.Join(steps, ", "))
	fmt.Fprintf(&g.b, "def look(d, k):\n    if k %% %d == 0:\n        return -%d\n    return d.get(k, -%d)\n", g.k(5), g.k(4), g.k(6))
	g.b.WriteString("def f(n):\n    d = {}\n    for i in range(n):\n        d[i * 2] = i\n    s = 1000\n    m = -1\n")
	g.b.WriteString("    for i in range(n):\n        r = i % 6\n        for dr in DIRS:\n            nr = r + dr\n")
	for range 1 + r.IntN(3) {
		fmt.Fprintf(&g.b, "            s += %s\n", g.term())
	}
	fmt.Fprintf(&g.b, "            m = -%d if nr < 0 else nr\n", g.k(3))
	switch r.IntN(3) {
	case 0:
		g.b.WriteString("    return s\n")
	case 1:
		fmt.Fprintf(&g.b, "    return s if s %% %d == 0 else -%d\n", g.k(3), g.k(9))
	default:
		fmt.Fprintf(&g.b, "    return d.get(s %% %d, -%d)\n", g.k(40), g.k(9))
	}
	g.b.WriteString("for n in (0, 1, 3, 9, 30):\n    print(f(n))\n")
	return g.b.String()
}

// TestNativeRandomNegatives: random functions of signedGen give the
// interpreter's output (and its error: s may go below 0 and be returned
// negative), and a third of them at least run every call as code (18 of
// the first 100 did before products, remainders and helpers' results kept
// biased ints; 50 now).
func TestNativeRandomNegatives(t *testing.T) {
	requireNative(t)
	n := 400
	if testscale.Short() {
		n = 100
	}
	coded, wrong := 0, 0
	for seed := uint64(0); seed < uint64(n) && wrong < 5; seed++ {
		src := signedScript(rand.New(rand.NewPCG(seed, 0x5e9)))
		name := fmt.Sprintf("neg%d.star", seed)
		want := runDiff(t, name, src, true)
		got := runDiff(t, name, src, false)
		if got.out != want.out || got.err != want.err {
			t.Errorf("seed %d: with the hook:\n%s%s\ninterpreted:\n%s%s\nscript:\n%s", seed, got.out, got.err, want.out, want.err, src)
			wrong++
		}
		for _, f := range got.funcs {
			if f.Name == "f" && f.Code > 0 && f.Interpreted == 0 {
				coded++
			}
		}
	}
	if coded < n/3 {
		t.Errorf("%d of %d functions ran every call as code; want a third at least", coded, n)
	}
	t.Logf("%d of %d functions ran every call as code", coded, n)
}
