package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNativeWideMinMax: min and max of an int past 64 bits and a word,
// met as a word (t += min(i * (1 << 62), 5)), give the interpreter's
// output; where the result is a word on every call the function runs as
// code (10 of these 60 did before min and max took pairs there, 16 now),
// where it is not
// the calls go back to the interpreter.
func TestNativeWideMinMax(t *testing.T) {
	requireNative(t)
	wide := []string{"i * (1 << 62)", "i << 63", "(1 << 70) + i", "x * x * x", "(x << 64) - i"}
	small := []string{"5", "i", "x & 255", "x", "(1 << 64) - 1"}
	r := rand.New(rand.NewPCG(7, 0x3131))
	coded := 0
	for k := range 60 {
		var terms []string
		for range 1 + r.IntN(2) {
			a, b := wide[r.IntN(len(wide))], small[r.IntN(len(small))]
			if r.IntN(2) == 0 {
				a, b = b, a
			}
			terms = append(terms, fmt.Sprintf("%s(%s, %s)", []string{"min", "max"}[r.IntN(2)], a, b))
		}
		src := fmt.Sprintf("def f(n, x):\n    t = 0\n    for i in range(n):\n        t = (t + %s) & 0xFFFFFFFF\n    return t\n"+
			"for n in (0, 3, 20):\n    for x in (0, 7, 1 << 40, (1 << 64) - 1):\n        print(f(n, x))\n", strings.Join(terms, " + "))
		got := diffScript(t, fmt.Sprintf("wide%d.star", k), src)
		for _, f := range got.funcs {
			if f.Name == "f" && f.Interpreted == 0 {
				coded++
			}
		}
	}
	t.Logf("%d of 60 functions ran every call as code", coded)
	if coded < 14 {
		t.Errorf("%d of 60 functions ran every call as code; want 14 at least", coded)
	}
}
