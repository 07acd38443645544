package compile_test

import "testing"

// TestExactEdgeCases: expressions whose Starlark ints leave the words, or
// whose operations Starlark refuses, inside an expression that masks or
// tests them, agree with plain Starlark: the compiled function gives
// Starlark's word or fails, never a word Starlark does not give. Each
// case once failed: a masked shift whose count Starlark refuses gave 0,
// x & (x - 1) of an x of 2^64 or more its low word's answer, abs of a
// constant of 2^63 or more 2^64 less it, a constant shifted right by 2^31
// or more 0, and a product shifted right by 2^31 or more 0 (the high
// word of the product, shifted by the count less 64).
func TestExactEdgeCases(t *testing.T) {
	counts := []uint64{0, 1, 63, 64, 65, 70, 511, 512, 513, 1<<31 - 1, 1 << 31, 1<<32 + 3, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	cases := []exactCase{
		// A shift masked or tested: its count is Starlark's, which fails
		// at 512 or more, below 0 and at 2^31 or more.
		{"masked shift", "def f(x, y): return (x << y) & 1", map[[2]uint64]bool{{3, 1}: true, {3, 511}: true, {3, 512}: false, {0, 512}: false, {3, 1 << 31}: false}},
		{"masked shift by a difference", "def f(x, y): return (x << (y - 70)) & 0xff", map[[2]uint64]bool{{3, 71}: true, {3, 69}: false, {3, 0}: false}},
		{"tested shift", "def f(x, y):\n    if (x << y) & 1:\n        return 1\n    return 2", map[[2]uint64]bool{{3, 0}: true, {3, 512}: false}},
		{"rotation", "U64 = (1 << 64) - 1\ndef f(x, y): return (x >> y) | ((x << (64 - y)) & U64)", map[[2]uint64]bool{{3, 1}: true, {3, 64}: true, {3, 65}: false, {3, 600}: false}},
		{"shift of a constant masked", "def f(x, y): return x if y != 3 else ((1 << 600) & x) | ((3 << y) & 1)", map[[2]uint64]bool{{3, 3}: false, {3, 1}: true}},
		{"shift in a comparison", "def f(x, y):\n    if (x << y) & 0xff == 0:\n        return 1\n    return 2", map[[2]uint64]bool{{3, 8}: true, {3, 512}: false}},
		// x & (x - 1) and x & -x where x leaves the words, either order.
		{"lowest bit cleared, x - 1 first", "def f(x, y): return ((x + y) - 1) & (x + y)", map[[2]uint64]bool{{12, 0}: true, {1 << 63, 1 << 63}: false}},
		{"lowest bit cleared, x first", "def f(x, y): return (x + y) & ((x + y) - 1)", map[[2]uint64]bool{{1 << 63, 1 << 63}: false}},
		{"lowest bit, -x first", "def f(x, y): return -(x * y) & (x * y)", map[[2]uint64]bool{{12, 1}: true, {1 << 63, 2}: false}},
		{"lowest bit of a constant", "def f(x, y): return x if y != 3 else (((9 << 65) - 1) & (9 << 65)) | x", map[[2]uint64]bool{{1, 3}: false, {1, 0}: true}},
		{"lowest bit of a shift", "def f(x, y): return (-(x << y) & (x << y)) | 1", map[[2]uint64]bool{{1, 3}: true, {1, 64}: false}},
		// abs of a constant is the constant.
		{"abs of a big literal", "def f(x, y): return abs(0x9e3779b97f4a7c15) ^ x", map[[2]uint64]bool{{0, 0}: true}},
		{"abs of a global", "C = 0x9e3779b97f4a7c15\ndef f(x, y): return abs(C) | x", map[[2]uint64]bool{{0, 0}: true}},
		{"abs of a constant expression", "def f(x, y): return abs((1 << 63) + 5) + (x & 0)", map[[2]uint64]bool{{0, 0}: true}},
		{"abs of a negative constant", "def f(x, y): return abs(-5) + x", map[[2]uint64]bool{{2, 0}: true}},
		// A constant shifted right by a constant count that Starlark refuses.
		{"constant shifted right by 2^31", "def f(x, y): return x if y != 3 else (5 >> (1 << 31)) + x", map[[2]uint64]bool{{1, 3}: false, {1, 0}: true}},
		{"constant shifted right by 2^32 + 3", "def f(x, y): return x if y != 3 else (5 >> 4294967299) + x", map[[2]uint64]bool{{1, 3}: false, {1, 0}: true}},
		{"constant shifted right by 2^31 - 1", "def f(x, y): return (5 >> 2147483647) + x", map[[2]uint64]bool{{1, 0}: true}},
		// A product shifted right by 2^31 or more: not its high word.
		{"product shifted right by 2^31", "def f(x, y): return x if y != 3 else (x * y) >> 2147483648", map[[2]uint64]bool{{1, 3}: false, {1, 0}: true}},
		{"product shifted right by 2^31 - 1", "def f(x, y): return (x * y) >> 2147483647", map[[2]uint64]bool{{1, 3}: true}},
		// a - b == c where a < b: Starlark evaluates c, which may fail.
		{"difference against a failing shift", "def f(x, y):\n    if x - y == (x << (64 - y)) & 0xff:\n        return 1\n    return 2", map[[2]uint64]bool{{0, 65}: false, {70, 65}: false, {70, 3}: true}},
		{"difference against a division", "def f(x, y): return 1 if (x - 1) != (5 % y) else 2", map[[2]uint64]bool{{0, 0}: false, {0, 3}: false, {5, 3}: true}},
		// A check in an if's condition shows that a fits in 8 bits; the
		// if's body assigns a, after which it need not.
		{"a check's fact past an assignment", "def f(x, y):\n    a = (x + y) & 0xff\n    if rotl(a, y, 8) != 65:\n        a = y\n    return a & 0xff", map[[2]uint64]bool{{511, 511}: true, {0, 65}: true}},
	}
	runExactCases(t, cases, counts)
}
