package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// gridsScript fills and reads lists of lists: a board of ints, a grid of
// bools, updates, and indices past the rows or columns.
const gridsScript = `
N = 8

def fill(n):
    board = [[0] * N for _ in range(N)]
    cnt = 0
    for r in range(n):
        for c in range(n):
            board[r][c] = (r * 3 + c) % 5
            board[r][c] += 1
    for r in range(N):
        for c in range(N):
            if board[r][c] > 2:
                cnt += board[r][c]
    return cnt

def life(k):
    g = [[False] * 6 for i in range(6)]
    g[k % 6][(k * 7) % 6] = True
    g[1][2] = not g[1][2]
    t = 0
    for r in range(6):
        for c in range(6):
            if g[r][c]:
                t += r * 6 + c
    return g[1][2] == g[k % 6][k % 5] or t > 20

def at(r, c):
    b = [[7] * 3 for _ in range(4)]
    b[r % 4][c % 3] = r
    return b[r][c]

res = []
for i in range(1300):
    res.append(fill(i % 9))
    res.append(life(i))
    res.append(at(i % 4, i % 3))
`

// TestNativeGrids: functions on lists of lists run as code and leave the
// interpreter's answers and errors.
func TestNativeGrids(t *testing.T) {
	requireLoops(t)
	for _, tail := range []string{
		"",
		"print(at(4, 0))\n", // a row past the grid
		"print(at(1, 3))\n", // a column past its row
		"print(at(1, 1 << 40))\n",
		"def h(n):\n    g = [[0] * 2 for _ in range(2)]\n    return g[n]\n\nprint(h(1), h(0))\n",                                              // a row read as a value
		"def h(n):\n    g = [[0] * 2] * 2\n    g[0][1] = n\n    return g[1][1]\n\nprint([h(i) for i in range(1200)][-1])\n",                   // rows that are one list
		"def h(n):\n    g = [[False] * 2 for _ in range(2)]\n    g[0][1] = n\n    return g[0][1]\n\nprint([h(i) for i in range(1200)][-1])\n", // an int stored in a grid of bools
	} {
		diffLoops(t, gridsScript+tail, false)
	}
	funcs := nativeFuncs(t, gridsScript)
	for _, name := range []string{"fill", "life", "at"} {
		if f := funcs[name]; f.Refused != "" || f.Code < 1000 || f.Interpreted > 0 {
			t.Errorf("%s did not run as code: %+v", name, f)
		}
	}
}

// TestNativeRandomGrids: random functions storing in and reading lists of
// lists give the interpreter's answers.
func TestNativeRandomGrids(t *testing.T) {
	diffRandomFuncs(t, 40, 15, rand.New(rand.NewPCG(0x9a1d5, 11)), randomGridFunc)
}

// randomGridFunc returns a script calling a random f(x, y) on a list of
// lists many times.
func randomGridFunc(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	rows, cols := 1+rng.IntN(6), 1+rng.IntN(6)
	// An index past the grid now and then (an error in both).
	row := func() string {
		return pick("i % R", "(x + i) % R", "y % R", "i % R", "(x * y + i) % R", "(x + i) % R", "y % R", "x % (R + 1)")
	}
	col := func() string {
		return pick("j % C", "(y * i + j) % C", "x % C", "j % C", "(x + j) % C", "j % C", "x % C", "y % (C + 1)")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "R = %d\nC = %d\n\ndef f(x, y):\n", rows, cols)
	fmt.Fprintf(&b, "    g = [[%s] * C for _ in range(%s)]\n", pick("0", "1", "5"), pick("R", fmt.Sprint(rows)))
	b.WriteString("    t = 0\n    for i in range(R + 2):\n        for j in range(C):\n")
	for s := 0; s < 1+rng.IntN(4); s++ {
		switch rng.IntN(5) {
		case 0, 1:
			fmt.Fprintf(&b, "            g[%s][%s] = %s\n", row(), col(), pick("i", "x % 100", "i * j", "g[i % R][j % C] + 1"))
		case 2:
			fmt.Fprintf(&b, "            g[%s][%s] %s %s\n", row(), col(), pick("+=", "^=", "|="), pick("1", "j", "x & 7"))
		case 3:
			fmt.Fprintf(&b, "            if g[%s][%s] > %s:\n                t += 1\n", row(), col(), pick("0", "2", "y"))
		case 4:
			fmt.Fprintf(&b, "            t = (t * 7 + g[%s][%s]) %% 10007\n", row(), col())
		}
	}
	fmt.Fprintf(&b, "    return t + g[%s][%s]\n", pick("x % R", "0", "R - 1"), pick("y % C", "0"))
	b.WriteString("\nres = []\nfor k in range(1200):\n    res.append(f(k * 2654435761 % 1000, k % 37))\n")
	return b.String()
}
