package builtins

import (
	"strings"
	"testing"
)

// TestNativeRowLoops: the x86-64 code of a loop over a row of a table
// (cover's `for piece, mask in PLACEMENTS[cell]`, a range over the row's
// words two at a time) keeps the row's address in a register and drops the
// checks of the row index and of the columns where they cannot fail; each
// case gives the interpreter's answer or its error, on every pair of edge
// ints, directly and through the fork's hook: rows of odd length, where
// the pair's second word is past the end; a row index or loop variable
// assigned in the body; the length of another row; a row's length read
// before the loop, then its index changed; a list of the module that a
// call appends to between two loops over it.
func TestNativeRowLoops(t *testing.T) {
	needAMD64(t)
	head := "U64 = (1 << 64) - 1\nR = ((1, 0xff, 2, 3), (0, 1), (), (5, 1 << 40, 11, 12, 13, 14), (63, 64))\n" +
		"Q = ((1, 2, 3), (4, 5), (6,), (7, 8, 9, 10, 11))\n" +
		"P = ((1, 2), (3, 4, 5, 6), (7, 8))\nL = [[1, 2, 3, 4], [5, 6]]\ndef grow(k):\n    L[k].append(k + 7)\n    L[k].append(k + 8)\n"
	cases := []struct {
		src   string
		coded bool // the compiler takes it: some call runs as code
	}{
		// cover's search: the lowest clear bit, then the pairs of its row
		{"def f(x, y):\n    c = 0\n    while ((x & U64) >> c) & 1:\n        c += 1\n    k = c % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        p = R[k][j]\n        q = R[k][j + 1]\n        if not (y >> p) & 1 and not y & q:\n            a += p + q\n    return a", true},
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for p, q in [(R[k][j], R[k][j + 1]) for j in range(0, len(R[k]), 2)]:\n        a += p * q\n    return a", false},
		// rows of odd length: the second of a pair is past the end
		{"def f(x, y):\n    k = x % 4\n    a = 0\n    for j in range(0, len(Q[k]), 2):\n        a += Q[k][j] + Q[k][j + 1]\n    return a", true},
		{"def f(x, y):\n    k = x % 4\n    a = 0\n    n = len(Q[k])\n    for j in range(0, n, 2):\n        a += Q[k][j]\n    return a + n", true},
		// the row index assigned in the body
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[k][j] + R[k][j + 1]\n        k = (k + y) % 5\n    return a", true},
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        if a > (y & 0xff):\n            k = y % 7\n        a += R[k][j + 1]\n    return a", true},
		{"def f(x, y):\n    k = x & 1\n    a = P[k][0]\n    for j in range(y & 7):\n        a += P[k][1] * (j + 1)\n        k = (k + 1) & 1\n    return a", true},
		// the loop variable assigned in the body
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        j = j + (y & 3)\n        a += R[k][j]\n    return a", true},
		// the length of another row, and a column past another's
		{"def f(x, y):\n    k = x % 5\n    m = y % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[m][j] + R[m][j + 1]\n    return a", true},
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[k][j + (y & 3)]\n    return a", true},
		{"def f(x, y):\n    k = x % 5\n    a = 0\n    for j in range(1, len(R[k]), 2):\n        a += R[k][j + 1]\n    return a", true},
		// the length read, then its index changed before the loop
		{"def f(x, y):\n    k = x % 5\n    n = len(R[k])\n    k = y % 5\n    a = 0\n    for j in range(0, n, 2):\n        a += R[k][j] * 3 + R[k][j + 1]\n    return a", true},
		{"def f(x, y):\n    k = x % 5\n    n = len(R[k])\n    a = 0\n    for j in range(0, n, 2):\n        a += R[k][j] + R[k][j + 1]\n        n = 1\n    return a + n", true},
		// a negative row index, and one out of range
		{"def f(x, y):\n    k = -1 - x % 5\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[k][j] ^ R[k][j + 1]\n    return a", false},
		{"def f(x, y):\n    k = x % 7\n    a = 0\n    for j in range(0, len(R[k]), 2):\n        a += R[k][j]\n    return a", true},
		// a list of the module appended to by a call between two loops
		// over a row of it, and in the loop over it
		{"def f(x, y):\n    k = x % 2\n    a = 0\n    for j in range(0, len(L[k]), 2):\n        a += L[k][j] + L[k][j + 1]\n    if y & 1:\n        grow(k)\n    for j in range(0, len(L[k]), 2):\n        a += L[k][j + 1]\n    return a", false},
		{"def f(x, y):\n    k = x % 2\n    a = 0\n    for j in range(0, len(L[k]), 2):\n        a += L[k][j + 1]\n        if j == 0 and y & 1:\n            L[k].append(j)\n    return a", false},
		// nested loops over rows, the inner one's row from the outer's
		{"def f(x, y):\n    a = 0\n    for k in range(x % 6):\n        for j in range(0, len(R[k % 5]), 2):\n            a += R[k % 5][j + 1] + R[(k + 1) % 5][j]\n    return a", true},
	}
	args := edgeArgs()
	for i, c := range cases {
		for _, loop := range []bool{false, true} {
			src := head + c.src
			if loop {
				src = head + strings.Replace(c.src, "def f(x, y):", "def f(x, y):\n    for _ in range(1):\n        pass", 1)
			}
			res, err := edgeDiff(src, args, loop, true)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if res.wrong != "" {
				t.Errorf("case %d: %s\n%s", i, res.wrong, src)
			}
			if c.coded && (res.refused || res.coded == 0) {
				t.Errorf("case %d: no call as code (refused: %v)\n%s", i, res.refused, src)
			}
		}
	}
}
