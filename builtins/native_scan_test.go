package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// scanFunc writes a random plain function f(x, y) around the bit scan
// `while (v >> i) & 1: i += 1` (the x86-64 engine runs it as one tzcnt
// where i < 64 on entry, docs/internals/fuse.md): the word a parameter, a
// mask of it, or all ones; the start 0, a constant at the edges of 64 and
// of the shift counts, or a parameter that may be negative or huge; the
// scan alone, twice, in a loop, or in a helper that recurses (cover's
// solve); and forms near it that are no scan (a step of 2, a test of 2
// bits, the word changed in the body), which run as written.
func scanFunc(r *rand.Rand, loop bool) string {
	var b strings.Builder
	b.WriteString("U64 = (1 << 64) - 1\n\n")
	// (A negative word would scan forever: its ones go on.)
	word := "(" + []string{"x", "x | 1", "x | 0xff", "U64", "x & 0xffffffff", "~x", "x | (1 << 63)", "x << 3", "0"}[r.IntN(9)] + ") & U64"
	start := []string{"0", "y", "y & 63", "63", "64", "65", "(y - 1)", "2147483647", "2147483648", "y >> 1"}[r.IntN(10)]
	scan := func(ind, v, i string) string {
		switch r.IntN(8) {
		case 0:
			return fmt.Sprintf("%swhile (%s >> %s) & 1:\n%s    %s += 2\n", ind, v, i, ind, i)
		case 1:
			return fmt.Sprintf("%swhile (%s >> %s) & 3:\n%s    %s += 1\n", ind, v, i, ind, i)
		case 2:
			return fmt.Sprintf("%swhile (%s >> %s) & 1:\n%s    %s += 1\n%s    t += 1\n", ind, v, i, ind, i, ind)
		}
		return fmt.Sprintf("%swhile (%s >> %s) & 1:\n%s    %s += 1\n", ind, v, i, ind, i)
	}
	if r.IntN(3) == 0 {
		// A helper that recurses over the word, cover's shape: a call of
		// a Proc, its scan in the Proc's code.
		b.WriteString("def h(v, d):\n    if v == U64 or d == 0:\n        return d\n    c = 0\n    t = 0\n")
		b.WriteString(scan("    ", "v", "c"))
		b.WriteString("    return c + t + h(v | (1 << c) if c < 64 else U64, d - 1)\n\n")
		b.WriteString("def f(x, y):\n    t = 0\n")
		if loop {
			b.WriteString("    for k in range(3):\n        t += k\n")
		}
		fmt.Fprintf(&b, "    return h(%s, %d) + t\n", word, 1+r.IntN(70))
		return b.String()
	}
	b.WriteString("def f(x, y):\n    t = 0\n")
	if loop {
		b.WriteString("    for k in range(3):\n        t += k\n")
	}
	fmt.Fprintf(&b, "    v = %s\n    i = %s\n", word, start)
	b.WriteString(scan("    ", "v", "i"))
	switch r.IntN(3) {
	case 0:
		b.WriteString("    j = i + 1\n")
		b.WriteString(scan("    ", "v", "j"))
		b.WriteString("    return i * 1000 + j + t\n")
	case 1:
		b.WriteString("    n = 0\n    w = v\n    for _ in range(4):\n        k = 0\n")
		b.WriteString(scan("        ", "w", "k"))
		b.WriteString("        n = n * 100 + k\n        w = (w | (w + 1)) & U64\n    return n * 1000 + i + t\n")
	default:
		b.WriteString("    return i + t\n")
	}
	return b.String()
}

// TestNativeBitScans: random functions around the bit scan (scanFunc)
// give, run as code, the interpreter's answer or its error, on words
// whose runs of ones end everywhere, and starts at the edges (edgeArgs).
func TestNativeBitScans(t *testing.T) {
	needAMD64(t)
	n, forked := 300, 10
	if testscale.Short() {
		n, forked = 100, 4
	}
	args := edgeArgs()
	for k := 0; k <= 64; k += 3 {
		// k ones, then a zero, then ones again: the scan stops at k.
		ones := starlark.MakeUint64(^uint64(0) &^ (1 << k % 64))
		if k == 64 {
			ones = starlark.MakeUint64(^uint64(0))
		}
		for _, y := range []int{0, 1, k, 63, 64} {
			args = append(args, starlark.Tuple{ones, starlark.MakeInt(y)})
		}
	}
	sum := edgeResult{}
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5ca4))
		loop := seed%2 == 1
		src := scanFunc(r, loop)
		res, err := edgeDiff(src, args, loop, seed%uint64(n/forked) == 0)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.wrong != "" {
			t.Fatalf("seed %d: %s\n%s", seed, res.wrong, src)
		}
		sum.coded += res.coded
	}
	t.Logf("%d functions: %d calls as code", n, sum.coded)
	if sum.coded < 20*n {
		t.Errorf("%d calls as code of %d functions: the test tests little", sum.coded, n)
	}
}
