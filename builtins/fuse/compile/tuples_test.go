package compile_test

import (
	"strings"
	"testing"
)

// TestExactTuples: tables of tuples (a list of rows of (piece, mask)
// pairs, a tuple of direction pairs), loops that unpack them, and tables
// holding negative ints, compiled with Options.Exact, agree with plain
// Starlark on every pair of words, and the runs named in want give a word
// (true) or fail (false) on every engine.
func TestExactTuples(t *testing.T) {
	top := uint64(1<<64 - 1)
	cases := []exactCase{
		{"rows of pairs", `
P = [[(0, 3), (1, 12)], [], [(2, 48), (0, 5), (3, 1 << 63)], [(1, 7)]]
def f(x, y):
    n = 0
    for piece, mask in P[x % len(P)]:
        if not (y >> piece) & 1 and not x & mask:
            n = n * 7 + piece + 1
    return n * 10 + len(P[x % len(P)])`, map[[2]uint64]bool{{0, 0}: true, {1, 0}: true, {2, 1}: true, {6, 0}: true, {3, 2}: true}},
		{"break and continue", `
P = [[(1, 2), (3, 4), (5, 6), (7, 8)], [(9, 10)]]
def f(x, y):
    s = 0
    for a, b in P[x & 1]:
        if a == (y & 7):
            continue
        if b > (x & 15):
            break
        s = s * 10 + a
    return s`, map[[2]uint64]bool{{0, 3}: true, {8, 1}: true, {1, 0}: true}},
		{"a row named", `
P = ([(5, 1), (6, 2), (7, 3)], [(8, 4)])
def f(x, y):
    row = P[x & 1]
    s = len(row)
    for a, b in row:
        s = s * 3 + a * b + (y & 1)
    return s`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true}},
		{"a row out of range", `
P = [[(1, 2)], [(3, 4)]]
def f(x, y):
    s = 0
    for a, b in P[x]:
        s += a + b + y
    return s`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {2, 0}: false, {top, 0}: false, {1, top}: false}},
		{"directions with -1", `
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
def f(x, y):
    sq = x & 63
    r, c = sq // 8, sq % 8
    a = 0
    for dr, dc in DIRS:
        rr, cc = r + dr, c + dc
        while 0 <= rr and rr < 8 and 0 <= cc and cc < 8:
            a |= 1 << (rr * 8 + cc)
            if (y >> (rr * 8 + cc)) & 1:
                break
            rr += dr
            cc += dc
    return a`, map[[2]uint64]bool{{0, 0}: true, {63, 0}: true, {27, 0x0000001008000000}: true, {7, top}: true}},
		{"a direction read as a word", `
D = ((1, 0), (-1, 2), (0, -3))
def f(x, y):
    s = 0
    for a, b in D:
        if y & 1:
            s += a * 2
        s += (b & 7) + x
    return s`, map[[2]uint64]bool{{0, 0}: true, {1, 2}: true, {0, 1}: true, {top, 0}: false}}, // a * 2 biased, s never below 0 (signedmod.go)
		{"a flat table with -1", `
D = [3, -1, 5, -7]
def f(x, y):
    i = x & 3
    n = 0
    if D[i] < 0:
        n += 1
    if D[i] == -1:
        n += 10
    return ((y & 7) + D[i]) * 1000 + n`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {1, 0}: false, {3, 7}: true, {3, 6}: false}},
		{"a loop over a flat table", `
D = (3, 1, 4, 1, 5)
def f(x, y):
    s = x & 0xff
    for d in D:
        s = s * 2 + d
    return s + (y & 1)`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true}},
		{"a loop over a table with -1", `
D = (3, -1, 4, -8)
def f(x, y):
    s = x & 0xff
    for d in D:
        s = s + d
        if d < 0:
            s += 10
    return s + (y & 1)`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {2, 0}: true}},
		{"a loop over a row of words", `
R = [[1, 2, 3], [], [4, -5]]
def f(x, y):
    s = 0
    for v in R[x % 3]:
        s = s * 10 + v
    return s + (y & 1)`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {2, 0}: true}},
		{"the least int", `
T = ((-(1 << 63), 0), ((1 << 63) - 1, 2))
def f(x, y):
    n = 0
    for a, b in T:
        if a < 0:
            n += 1
        if a + (y & 1) > 0:
            n += 10
        if a == -(1 << 63):
            n += 100
    return n + (T[x & 1][0] & 0xff)`, map[[2]uint64]bool{{0, 0}: true, {1, 0}: true, {1, 1}: false}},
		{"the greatest word", `
T = [((1 << 64) - 1, 1), (0, 2)]
def f(x, y):
    s = 0
    for a, b in T:
        if y & 1:
            s ^= a
        s ^= b
        if y & 2:
            s += a
    return s`, map[[2]uint64]bool{{0, 0}: true, {0, 1}: true, {1, 2}: false}},
	}
	runExactCases(t, cases, []uint64{4, 5, 6, 8, 9, 15, 16, 27, 0x0000001008000000})
}

// TestExactTuplesRefused: tables whose tuples differ in length, whose ints
// span more than a word, and loops that unpack other than their elements
// are refused, saying why.
func TestExactTuplesRefused(t *testing.T) {
	for _, c := range []struct{ src, why string }{
		{"P = [[(1, 2)], [(3, 4, 5)]]\ndef f(x):\n    s = 0\n    for a, b in P[x]:\n        s += a\n    return s",
			"P[0] holds tuples of 2 values and P[1] of 3"},
		{"P = [[(1, 2), (3,)]]\ndef f(x):\n    s = 0\n    for a, b in P[x]:\n        s += a\n    return s",
			"P[0][1] holds 1 values and P[0][0] 2"},
		{"P = [[(1, 2)], [3]]\ndef f(x):\n    s = 0\n    for a, b in P[x]:\n        s += a\n    return s",
			"P[0] holds tuples and P[1] words"},
		{"P = [[(1, 2)]]\ndef f(x):\n    s = 0\n    for a, b, c in P[x]:\n        s += a\n    return s",
			"the elements of P[i] are tuples of 2 values; the loop unpacks 3"},
		{"P = [[(1, 2)]]\ndef f(x):\n    s = 0\n    for a in P[x]:\n        s += a\n    return s",
			"the elements of P[i] are tuples of 2 values; unpack them"},
		{"P = [[(1, 2)]]\ndef f(x):\n    return P[x][0]",
			"P[i][j] is a tuple of 2 values"},
		{"D = ((1, 0), (-1, 0, 2))\ndef f(x):\n    s = 0\n    for a, b in D:\n        s += a\n    return s",
			"D[1] holds 3 values; the loop unpacks 2"},
		{"D = (1, 2)\ndef f(x):\n    s = 0\n    for a, b in D:\n        s += a\n    return s",
			"the elements of D are words"},
		{"D = (-1, (1 << 64) - 1)\ndef f(x):\n    return D[x] + 1",
			"D holds ints from -1 to 18446744073709551615"},
		{"D = (-(1 << 63) - 1, 0)\ndef f(x):\n    return D[x] + 1",
			"does not fit in a word"},
	} {
		s := load(t, c.src)
		_, err := s.CompileWith("f", exactly)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s\ngot %v, want an error saying %q", c.src, err, c.why)
		}
	}
}

// TestTuplesPlain: without Options.Exact (fuse), a table of pairs unpacks
// as with it, and a negative int in a table is its word modulo 2^64, as
// before.
func TestTuplesPlain(t *testing.T) {
	agree(t, `
P = [[(0, 3), (1, 12)], [], [(2, 48), (0, 5)]]
D = ((1, 0), (-1, 2))
def f(x):
    n = 0
    for piece, mask in P[x % 3]:
        n = n * 7 + piece + (mask & x)
    for a, b in D:
        n = (n + a * b) & 0xffff
    return n
`, "f", [][]uint64{{0}, {1}, {2}, {5}, {1<<64 - 1}})
}
