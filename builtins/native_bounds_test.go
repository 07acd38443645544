package builtins

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
)

// boundsFunc writes a script whose f(x, y) leans on what the x86-64 code
// generator knows of its values' ranges to drop checks: values bounded by
// a mask, a table, a row's length or a while loop's condition (a shift
// count there is below 2^31 in the body and after the loop), copied into
// other locals, then added, multiplied and shifted near the edges of the
// words; range loops whose end is such a value, stepping by powers of two
// and other steps; rows of pairs read two at a time. Every check the
// generator drops must be one that cannot fail: the interpreter's answer
// is the oracle.
func boundsFunc(r *rand.Rand, loop bool) string {
	g := &edgeGen{r: r}
	b := &g.b
	b.WriteString("U64 = (1 << 64) - 1\n")
	for i := range 4 {
		fmt.Fprintf(b, "G%d = %s\n", i, g.constant())
	}
	fmt.Fprintf(b, "T = (%s, %s, 3, 63, 7)\n", edgeInts[r.IntN(len(edgeInts)-1)], edgeInts[r.IntN(8)])
	b.WriteString("R = ((1, 0xff, 2, 3), (0, 1), (), (5, 1 << 40, 11, 12, 13, 14), (63, 64))\n")
	b.WriteString("\ndef f(x, y):\n")
	ind := "    "
	if loop {
		b.WriteString("    for _ in range(1):\n")
		ind = "        "
	}
	// Bounded values.
	bounded := []string{"x & 0xff", "y % 13", "popcount(x)", "T[y & 3]", "len(R[x % 5])", "R[3][y % 6]", "(x >> 58)",
		"x & 0x7fffffff", "y & U64", "min(x, 70)", "(x & 7) * (y & 7)", "(x | 3) & 0xffff", "G0 & 0xff"}
	fmt.Fprintf(b, "%sn = %s\n", ind, bounded[r.IntN(len(bounded))])
	fmt.Fprintf(b, "%sm = %s\n", ind, bounded[r.IntN(len(bounded))])
	fmt.Fprintf(b, "%sa = %s\n", ind, g.expr(1, false))
	for k := 1 + r.IntN(4); k > 0; k-- {
		g.boundsStmt(ind)
	}
	uses := []string{"a + n", "n + m", "n * m", "(n << 7) + a", "n << m", "(1 << n) | a", "T[n % 5] + m", "a * n + m",
		"(n + m) * (n + 1)", "(a << 1) & U64", "a", "n ^ m ^ a", "m - n", "(n | m) + 1"}
	fmt.Fprintf(b, "%sreturn %s\n", ind, uses[r.IntN(len(uses))])
	return b.String()
}

// boundsStmt writes a statement of boundsFunc's body.
func (g *edgeGen) boundsStmt(ind string) {
	b, r := &g.b, g.r
	sub := func() string { return g.expr(1, true) }
	steps := []string{"1", "2", "4", "8", "3", "-1", "-2", "(n | 1)"}
	switch r.IntN(9) {
	case 0:
		// The lowest clear bit at or past a start: the count is a
		// shift count, checked in the condition.
		start := []string{"0", "n", "y", "m & 3", "x & 63"}[r.IntN(5)]
		fmt.Fprintf(b, "%sc = %s\n%swhile (%s >> c) & 1:\n%s    c += 1\n", ind, start, ind, []string{"(x & U64)", "(a & 0xffff)", "(~x & U64)"}[r.IntN(3)], ind)
		fmt.Fprintf(b, "%sn = c\n", ind)
	case 1:
		// A counter stepped while a condition on it holds.
		fmt.Fprintf(b, "%sc = %s\n%swhile c < %s:\n%s    c += %s\n", ind, []string{"n & 0xff", "m & 0x3f", "0"}[r.IntN(3)], ind,
			[]string{"(m & 0xff)", "70", "(n & 0x3f) * 3", "x & 0x3ff"}[r.IntN(4)], ind, []string{"1", "(n & 7) + 1", "3"}[r.IntN(3)])
		fmt.Fprintf(b, "%sm = c + %s\n", ind, []string{"1", "n", "G1 & 0xff", "a & 1"}[r.IntN(4)])
	case 2:
		fmt.Fprintf(b, "%sfor i in range(%s, %s, %s):\n%s    a = %s\n", ind, []string{"0", "1", "n & 0x3ff", "m & 7"}[r.IntN(4)],
			[]string{"n & 0xff", "m % 97", "(n + m) & 0x1ff", "len(R[n % 5])", "70"}[r.IntN(5)], steps[r.IntN(len(steps))], ind,
			[]string{"a + i", "a * 3 + i * i", "(a ^ (i << 3)) & U64", "a + (1 << i)", "a | T[i % 5]", "(a + i + 1) & 0xff"}[r.IntN(6)])
	case 3:
		// Pairs of a row, two at a time.
		fmt.Fprintf(b, "%sk = %s\n%sfor j in range(0, len(R[k]), 2):\n%s    p = R[k][j]\n%s    q = R[k][j + 1]\n%s    if not (a >> p) & 1 and not a & q:\n%s        a = (a | q | (1 << p)) & U64\n",
			ind, []string{"n % 5", "m % 5", "y & 3"}[r.IntN(3)], ind, ind, ind, ind, ind)
	case 4:
		fmt.Fprintf(b, "%sn = %s\n", ind, []string{"n + m", "n * m", "n << 3", "(n << 60) + 1", "n * n * n", "n + 0xffffffffffffff00", "(n | m) << 56"}[r.IntN(7)])
	case 5:
		fmt.Fprintf(b, "%sif %s:\n%s    n = %s\n%selse:\n%s    m = n\n", ind, g.cond(1, true), ind, sub(), ind, ind)
	case 6:
		fmt.Fprintf(b, "%sm = n\n%sn = m + 1\n", ind, ind)
	case 7:
		fmt.Fprintf(b, "%sa = %s\n", ind, []string{"a + (n << m)", "(a << n) & U64", "a + n * m", "(a + (1 << n)) & U64", "a >> (n + m)"}[r.IntN(5)])
	default:
		fmt.Fprintf(b, "%sa = %s\n", ind, sub())
	}
}

// TestNativeBounds: random plain functions whose checks the code generator
// drops where the ranges of their values show they cannot fail
// (boundsFunc) give, run as code, the interpreter's answer or its error
// with the same text, on every pair of edge ints, directly and through the
// fork's hook. BITSH_SLOW=1 runs many more functions.
func TestNativeBounds(t *testing.T) {
	needAMD64(t)
	n, forked := 200, 10
	if testscale.Short() {
		n, forked = 60, 3
	}
	if os.Getenv("BITSH_SLOW") != "" {
		n, forked = 100000, 1000
	}
	first, _ := strconv.ParseUint(os.Getenv("BITSH_BOUNDS_SEED"), 10, 64)
	sum, refused := edgeSweep(t, first, n, forked, 0xb0d5, boundsFunc)
	t.Logf("%d functions (%d refused): %d calls as code, %d calls through the fork as code", n, refused, sum.coded, sum.forkCoded)
	if sum.coded < 20*n || refused > n/2 {
		t.Errorf("%d calls as code, %d functions refused: the test tests little", sum.coded, refused)
	}
}

// TestNativeBoundsShapes: the shapes of boundsFunc one at a time, each on
// every pair of edge ints.
func TestNativeBoundsShapes(t *testing.T) {
	needAMD64(t)
	head := "U64 = (1 << 64) - 1\nR = ((1, 0xff, 2, 3), (0, 1), (), (5, 1 << 40, 11, 12, 13, 14), (63, 64))\n"
	cases := []string{
		// cover's lowest empty cell, then a row of its table
		"def f(x, y):\n    c = 0\n    while ((x & U64) >> c) & 1:\n        c += 1\n    n = 0\n    for p in R[c % 5]:\n        n += p\n    return c + n",
		// a count past a start that may be negative or past 2^31
		"def f(x, y):\n    c = y\n    while ((x & U64) >> c) & 1:\n        c += 1\n    return c * c",
		// a counter near the top of the words
		"def f(x, y):\n    c = x\n    while c & 1:\n        c += 1\n    return c",
		"def f(x, y):\n    c = x & 0xff\n    while c < 300:\n        c += 7\n    return (c << 55) + c",
		// range ends known from a row's length; steps of powers of two
		"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[k][j] * R[k][j + 1]\n    return a",
		"def f(x, y):\n    a = 0\n    for i in range(x & 7, y & 0xff, 4):\n        a += i * i\n    return a",
		"def f(x, y):\n    a = 0\n    for i in range(x & 7, y & 0xff, 8):\n        a += 1 << i\n    return a",
		"def f(x, y):\n    a = 0\n    for i in range(x, y, 2):\n        a += 1\n        if a > 5:\n            break\n    return a",
		// the pairs of a row two at a time: the columns' own bounds
		"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += 1 << R[k][j + 1]\n    return a",
		"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]) - 1, 2):\n        a |= (1 << R[k][j]) + (R[k][j] << 58)\n    return a",
		"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(1, len(R[k]), 2):\n        a |= 1 << R[k][j]\n    return a",
		"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(1, len(R[k]), 2):\n        a += 1 << R[k][j - 1]\n    return a",
		// products and shifts of bounded values at the edge of the words
		"def f(x, y):\n    n = x & 0xffffffff\n    m = y & 0xffffffff\n    return n * m",
		"def f(x, y):\n    n = x & 0x1ffffffff\n    m = y & 0xffffffff\n    return n * m",
		"def f(x, y):\n    n = x & 0xff\n    return n << 56",
		"def f(x, y):\n    n = x & 0x1ff\n    return n << 56",
		"def f(x, y):\n    n = popcount(x)\n    return (1 << n) + (n << 57)",
		"def f(x, y):\n    n = x & 0xff\n    m = n\n    n = m + 0xffffffffffffff00\n    return n",
		"def f(x, y):\n    n = x & 0xff\n    m = n\n    n = m + 0xffffffffffffff00 + (y & 1)\n    return n",
		// sums and products whose bounds leave the words: checked
		"def f(x, y):\n    n = x & 0x8fffffffffffffff\n    m = y & 0x7fffffffffffffff\n    return n + m",
		"def f(x, y):\n    n = x & 0xff\n    return (n << 56) + (n << 56)",
		"def f(x, y):\n    n = x & 0xff\n    return (n << 55) + (n << 55) + (n << 55)",
		"def f(x, y):\n    n = (x & 0x3ff) | 1\n    return (n * n * n * n * n * n * n) | (y & 1)",
		// a value clamped by a comparison with a bounded one
		"def f(x, y):\n    n = x & 0xffff\n    m = y & 0x1ff\n    k = n if n < m else 7\n    return (k << 55) + (k << 55)",
		"def f(x, y):\n    n = x & U64\n    m = y & 0xff\n    k = n if n < m else 300\n    return (k << 55) + k * k",
		// a while loop left by a break: the condition's facts do not
		// hold after it
		"def f(x, y):\n    c = 0\n    while ((x & U64) >> c) & 1:\n        c += 1\n        if c > 3:\n            c = 1 << 40\n            break\n    return c * c",
		"def f(x, y):\n    c = 0\n    while ((x & U64) >> c) & 1:\n        if c > 3:\n            c = 1 << 40\n            break\n        c += 1\n    return c * c",
	}
	args := edgeArgs()
	for i, c := range cases {
		for _, loop := range []bool{false, true} {
			src := head + c
			if loop {
				src = head + strings.Replace(c, "def f(x, y):", "def f(x, y):\n    for _ in range(1):\n        pass", 1)
			}
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
