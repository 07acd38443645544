package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// negStepScript walks a board with a direction table holding -1: nr = r +
// dr and nc = c + dc as two statements (walk) and as one tuple (walk2),
// their results below 0 and past the board compared, summed and kept.
const negStepScript = `
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))

def walk(n):
    total = 0
    for i in range(n):
        r = i % 8
        c = (i * 3) % 8
        for dr, dc in DIRS:
            nr = r + dr
            nc = c + dc
            if 0 <= nr and nr < 8 and 0 <= nc and nc < 8:
                total += nr * 8 + nc
            else:
                total -= 1
    return total

def walk2(n):
    total = 0
    for i in range(n):
        r = i % 8
        c = (i * 3) % 8
        for dr, dc in DIRS:
            nr, nc = r + dr, c + dc
            if 0 <= nr and nr < 8 and 0 <= nc and nc < 8:
                total += nr * 8 + nc
            else:
                total -= 1
    return total

def knight(s):
    r = s // 8
    c = s % 8
    moves = 0
    far = 0
    for dr, dc in KNIGHT:
        nr = r + dr
        nc = c + dc
        if nr >= 0 and nr < 8 and nc >= 0 and nc < 8:
            moves += 1
        if nr < -1 or nc > 8:
            far += 1
    return moves * 100 + far

def hashed(s):
    r = s % 8
    h = 0
    for dr, dc in DIRS:
        nr = r + dr
        h = (h * 31 + (nr + 1) % 9 + ((nr + 2) >> 1)) % 1000003
    return h

res = [walk(j % 50) for j in range(1500)]
hs = [hashed(j) for j in range(1500)]
res2 = [walk2(j % 50) for j in range(1500)]
kn = [knight(j % 64) for j in range(1500)]
`

// TestNativeNegativeStep: nr = r + dr, dr from a table holding -1, runs
// as code in both forms and gives the interpreter's answers, also where
// the sum below 0 is returned or kept in a list, and (nr + 1) % 9 and
// (nr + 2) >> 1 (no pair of words: nr is biased).
func TestNativeNegativeStep(t *testing.T) {
	requireLoops(t)
	for _, tail := range []string{
		"",
		"def g(r):\n    t = 0\n    for dr, dc in DIRS:\n        nr = r + dr\n        t = nr\n    return t\n\nprint([g(i % 3) for i in range(1200)])\n", // -1 returned
		"def h(r):\n    out = []\n    for dr, dc in DIRS:\n        nr = r + dr\n        out.append(nr)\n    return out\n\nprint([h(i % 2) for i in range(1200)][:3])\n",
	} {
		diffLoops(t, negStepScript+tail, false)
	}
	funcs := nativeFuncs(t, negStepScript)
	for _, name := range []string{"walk", "walk2", "knight", "hashed"} {
		if f := funcs[name]; f.Refused != "" || f.Code < 1000 || f.Interpreted > 0 {
			t.Errorf("%s did not run as code: %+v", name, f)
		}
	}
}

// TestNativeRandomNegativeStep: random board walks with direction tables
// holding negative steps give the interpreter's answers.
func TestNativeRandomNegativeStep(t *testing.T) {
	diffRandomFuncs(t, 40, 15, rand.New(rand.NewPCG(0x5e9, 7)), randomNegStepFunc)
}

// randomNegStepFunc returns a script calling a random f(x, y) that walks
// a board of random size with a random direction table, its sums as two
// statements or one tuple.
func randomNegStepFunc(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	step := func() int { return rng.IntN(7) - 3 }
	var b strings.Builder
	b.WriteString("D = (")
	for range 2 + rng.IntN(6) {
		fmt.Fprintf(&b, "(%d, %d), ", step(), step())
	}
	b.WriteString("(-1, 0))\n\n")
	size := 3 + rng.IntN(8)
	b.WriteString("def f(x, y):\n    t = 0\n")
	fmt.Fprintf(&b, "    r = x %% %d\n    c = y %% %d\n", size, size)
	b.WriteString("    for dr, dc in D:\n")
	if rng.IntN(2) == 0 {
		b.WriteString("        nr = r + dr\n        nc = c + dc\n")
	} else {
		b.WriteString("        nr, nc = r + dr, c + dc\n")
	}
	for range 1 + rng.IntN(3) {
		switch rng.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "        if 0 <= nr and nr < %d and 0 <= nc and nc < %d:\n            t += nr * %d + nc\n", size, size, size)
		case 1:
			fmt.Fprintf(&b, "        if nr < 0 or nc >= %d:\n            t += 1\n", size)
		case 2:
			fmt.Fprintf(&b, "        if nr %s %s:\n            t ^= %s\n", pick("==", "!=", "<", ">="), pick("-1", "0", "-2", fmt.Sprint(size)), pick("1", "dr + 3", "nc + 5"))
		case 3:
			b.WriteString("        r2 = nr + dr\n        if r2 > 0:\n            t += r2\n")
		case 4:
			b.WriteString("        t = (t + 20 + nr - nc) % 1009\n")
		}
	}
	b.WriteString(pick("    return t\n", "    return t\n", "    return t + nr\n"))
	b.WriteString("\nres = []\nfor j in range(1200):\n    res.append(f(j * 2654435761 % 1000, j % 37))\n")
	return b.String()
}
