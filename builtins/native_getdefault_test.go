package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNativeGetNegativeDefault: d.get(k, -1) runs as code and gives the
// interpreter's answers: the default compared, kept in a local, added to,
// returned (a negative int goes back to the interpreter), and a value
// near 2^64 that the bias would carry past it.
func TestNativeGetNegativeDefault(t *testing.T) {
	requireLoops(t)
	head := `
def f(n, big):
    d = {}
    for i in range(n):
        d[i * 7 % 13] = i
    d[5] = big
    t = 0
    for k in range(20):
        v = d.get(k, -1)
        if v == -1:
            t += 1
        elif v < 100:
            t += v
        if d.get(k + 1, -3) != -3:
            t ^= 1
    return t

res = [f(j % 40, j) for j in range(1500)]
`
	for _, tail := range []string{
		"",
		"print(f(3, (1 << 64) - 1))\n", // 2^64 - 1 + 1 is past the words
		"def g(k):\n    d = {1: 2}\n    return d.get(k, -1)\n\nprint([g(i % 3) for i in range(1200)])\n", // -1 returned
		"def g(k):\n    d = {1: 2}\n    return d.get(k, -2) + 1\n\nprint([g(i % 3) for i in range(1200)])\n",
	} {
		diffLoops(t, head+tail, false)
	}
	if f := nativeFuncs(t, head)["f"]; f.Refused != "" || f.Code < 1000 || f.Interpreted > 0 {
		t.Errorf("f did not run as code: %+v", f)
	}
}

// TestNativeRandomGetDefault: random functions reading a dict through
// d.get(k, -j) give the interpreter's answers.
func TestNativeRandomGetDefault(t *testing.T) {
	diffRandomFuncs(t, 40, 15, rand.New(rand.NewPCG(0x6e7de, 3)), randomGetFunc)
}

// randomGetFunc returns a script calling a random f(x, y) that fills a
// dict and reads it with d.get(k, -j) many times.
func randomGetFunc(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	def := func() string { return pick("-1", "-1", "-2", "-7", "-(1 << 62)") }
	key := func() string { return pick("i", "(x + i) % 17", "y % 11", "i * 3 % 19") }
	var b strings.Builder
	b.WriteString("def f(x, y):\n    d = {}\n")
	fmt.Fprintf(&b, "    for i in range(x %% 12):\n        d[%s] = %s\n", key(), pick("i", "x * i", "y - 1 if y else 0", "i + 100"))
	b.WriteString("    t = 0\n    for i in range(16):\n")
	for s := 0; s < 1+rng.IntN(3); s++ {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "        v = d.get(%s, %s)\n        if v %s %s:\n            t += 1\n", key(), def(), pick("==", "!=", "<", ">="), pick("-1", "0", "5", "-2"))
		case 1:
			fmt.Fprintf(&b, "        w = d.get(%s, %s)\n        if w >= 0:\n            t += w\n", key(), def())
		case 2:
			fmt.Fprintf(&b, "        if d.get(%s, %s) == %s:\n            t ^= i\n", key(), def(), def())
		case 3:
			fmt.Fprintf(&b, "        u = d.get(%s, %s)\n        t = (t + 10 + u) %% 1009\n", key(), pick("-1", "-3"))
		}
	}
	b.WriteString(pick("    return t\n", "    return t\n", "    return d.get(y % 7, -1)\n"))
	b.WriteString("\nres = []\nfor j in range(1200):\n    res.append(f(j * 2654435761 % 1000, j % 37))\n")
	return b.String()
}
