package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
)

// randomHoistScript writes a random script whose function f(n, a, b) and
// top-level loop hold what the loop passes and the divisions by powers of
// two change: hashes of a range's variable by the module's wide constants
// into a list, a shift count 32 - b and an index that fail for some b,
// a division by a % 5, a break, a sum that leaves the words for some
// parameters, and
// Gosper's step dividing by c = x & -x (a global in the top-level loop).
func randomHoistScript(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("A = 0x9E3779B97F4A7C15\nB = 0xD1B54A32D192ED03\n\ndef f(n, a, b):\n    s = 0\n    counts = [0] * 64\n    c = 1\n")
	ranges := []string{"n", "a, n", "0, n, 3", "n, 0, -1"}
	fmt.Fprintf(&b, "    for x in range(%s):\n", ranges[r.IntN(len(ranges))])
	for k := 2 + r.IntN(3); k > 0; k-- {
		switch r.IntN(7) {
		case 0:
			b.WriteString("        h = ((A * x + B) >> 32) & 0xFFFFFFFF\n        counts[h >> (32 - b)] += 1\n")
		case 1:
			b.WriteString("        s += (a - b + 10) * x\n")
		case 2:
			b.WriteString("        s += x // (a % 5)\n")
		case 3:
			b.WriteString("        s ^= (x * 0xBF58476D1CE4E5B9) & 0xFFFF\n")
		case 4:
			b.WriteString("        if x == a + 50:\n            break\n")
		case 5:
			b.WriteString("        c = (x + a + 1) & -(x + a + 1)\n        s += (s + a) // c + (s % c)\n")
		default:
			b.WriteString("        s += x * 0x10000000000\n")
		}
	}
	b.WriteString("    return s + counts[a % 64] + c\n\n")
	n := []int{0, 3, 300, 2000, 2000}[r.IntN(5)]
	a := r.IntN(12)
	bb := []int{3, 5, 6, 7, 40}[r.IntN(5)]
	fmt.Fprintf(&b, "result = [f(%d, %d, %d)]\n", n, a, bb)
	fmt.Fprintf(&b, "c = 0\nx = %d\nk = 0\nwhile x < %d:\n    if x & (x >> 1) == 0:\n        k += 1\n    c = x & -x\n    r = x + c\n    x = (((r ^ x) >> 2) // c) | r\nresult.append(k + c)\n",
		(1<<(1+r.IntN(5)))-1, 1<<(10+r.IntN(8)))
	return b.String()
}

// TestNativeHoistRandom: random scripts of loops that the loop passes and
// the divisions by powers of two change give, with their code, the
// interpreter's result or its error.
func TestNativeHoistRandom(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	n := 200
	if testscale.Short() {
		n = 60
	}
	errs, coded := 0, 0
	for seed := range uint64(n) {
		src := randomHoistScript(rand.New(rand.NewPCG(seed, 0x4015)))
		got, codeSteps := runNative(t, src, true)
		want, steps := runNative(t, src, false)
		if 2*codeSteps < steps {
			coded++
		}
		if got != want {
			t.Fatalf("seed %d: %s with code; %s interpreted\n%s", seed, got, want, src)
		}
		if strings.HasPrefix(want, "error: ") {
			errs++
		}
	}
	t.Logf("%d scripts: %d fail, %d took less than half the interpreter's steps with their code", n, errs, coded)
	if errs == 0 || errs == n || coded < n/4 {
		t.Errorf("%d of %d scripts fail, %d ran as code: the test tests little", errs, n, coded)
	}
}
