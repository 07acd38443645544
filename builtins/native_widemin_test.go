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

// TestNativeDictPairs: d = dict(x) gives the interpreter's dict (entries,
// order, a key met again, dict's errors), as code where x is a list of
// pairs the code takes.
func TestNativeDictPairs(t *testing.T) {
	requireNative(t)
	for i, c := range []struct {
		x    string
		code bool
	}{
		{"pairs", true},
		{"[(1, 2), (3, 4), (1, 5)]", true},
		{"[]", false},
		{"d2", false}, // a copy: not a loop over pairs
		{"[(1, 2, 3)]", false},
		{"ps3", false},
		{"[[1, 2], [3, 4]]", false},
		{"zip(range(n), range(n))", false},
	} {
		src := fmt.Sprintf(`def f(n):
    pairs = [(i %% 5, i * i) for i in range(n)]
    ps3 = [(i, i, i) for i in range(n)]
    d2 = {}
    d2[3] = 4
    if n > 3:
        d = dict(%s)
    else:
        d = {}
        d[n] = 1
    t = 0
    for k in d:
        t = t * 7 + k + d[k]
    return t + len(d)
for n in (0, 1, 5, 12):
    print(f(n))
`, c.x)
		got := diffScript(t, fmt.Sprintf("dict%d.star", i), src)
		for _, f := range got.funcs {
			if f.Name == "f" && (f.Code > 0) != c.code {
				t.Errorf("dict(%s): %d calls as code; want some: %v: %+v", c.x, f.Code, c.code, f)
			}
		}
	}
}
