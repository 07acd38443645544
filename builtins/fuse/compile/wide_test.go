package compile_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestExactWide: ints past 64 bits that the code brings back (Gosper's
// hack over a full word, a sum compared with 2^64, a product shifted or
// masked back, a mask of 2^64 - 1 written as a constant expression) run as
// code with Starlark's answers, at the edges of the words (2^63, 2^64 - 1,
// carries into bit 64) on every pair of words; where Starlark's answer is
// past the words, or the pair would pass 128 bits, the run fails.
func TestExactWide(t *testing.T) {
	top := uint64(1<<64 - 1)
	more := []uint64{1<<63 + 1, 3 << 62, top - 1, 0x9e3779b97f4a7c15}
	gosper := func(cond, ret string) string {
		return `
def f(x, y):
    limit = 1 << 64
    v = y
    n = 0
    while ` + cond + ` and n < 40 and v != 0:
        n += 1
        c = v & -v
        r = v + c
        v = (((r ^ v) >> 2) // c) | r
    return ` + ret
	}
	cases := []exactCase{
		{"gosper to a local limit", gosper("v < limit", "n"), map[[2]uint64]bool{{0, top}: true, {0, 1 << 63}: true, {0, 3 << 62}: true, {0, 5}: true}},
		{"gosper to a literal limit", gosper("v < (1 << 64)", "n + (v >> 1)"), map[[2]uint64]bool{{0, top}: true, {0, 1 << 63}: true, {0, 1}: true}},
		{"gosper to a limit flipped", gosper("limit > v", "n * 3"), map[[2]uint64]bool{{0, top}: true, {0, 1 << 63}: true}},
		{"gosper, the last word returned", gosper("v < limit", "v"), map[[2]uint64]bool{{0, top}: false, {0, 1 << 63}: false}},
		{"gosper, the last word masked", gosper("v <= limit - 1", "v & 0xffffffffffffffff"), map[[2]uint64]bool{{0, top}: true, {0, 1 << 63}: true}},
		{"gosper with a global limit", "LIMIT = 1 << 64\n" + gosper("v < LIMIT", "n"), map[[2]uint64]bool{{0, top}: true}},
		{"gosper to 1 << n", gosper("v < (1 << (x & 127))", "n"), map[[2]uint64]bool{{64, top}: true, {127, 1 << 63}: false, {63, 5}: true, {0, 5}: true}}, // (past 2^64, v + c reads v as a word),
		{"a limit of n bits", "def f(x, y):\n    limit = 1 << y\n    if x < limit:\n        return 1\n    return 2 if x + x >= limit else 3", map[[2]uint64]bool{{top, 64}: true, {top, 63}: true, {5, 0}: true, {1, 127}: true, {1, 128}: false, {1, 511}: false, {1, 1 << 31}: false}},
		{"a word shifted by n compared", "def f(x, y): return 1 if (0x9e3779b97f4a7c15 << (y & 127)) > x * x else 2", map[[2]uint64]bool{{top, 0}: true, {top, 64}: true, {top, 63}: true, {top, 65}: false}}, // (past 2^128: no pair),
		{"a word shifted by n and masked", "def f(x, y): return (0x9e3779b97f4a7c15 << y) & 0xffffffffffffffff", map[[2]uint64]bool{{0, 63}: true, {0, 200}: true, {0, 511}: true, {0, 512}: false, {0, 1 << 31}: false}},
		{"a sum compared with 2^64", "def f(x, y):\n    if x + y >= 1 << 64:\n        return 1\n    return 2", map[[2]uint64]bool{{top, 1}: true, {top, 0}: true, {1 << 63, 1 << 63}: true}},
		{"a sum equal to 2^64", "def f(x, y): return 3 if x + y == 1 << 64 else 4 if x + y != (1 << 64) + 1 else 5", map[[2]uint64]bool{{top, 1}: true, {top, 2}: true, {1, 1}: true}},
		{"a product compared", "def f(x, y): return 1 if x * y > (1 << 64) else 2", map[[2]uint64]bool{{top, top}: true, {1 << 32, 1 << 32}: true}},
		{"the mean of two words", "def f(x, y): return (x + y) >> 1", map[[2]uint64]bool{{top, top}: true, {top, 1}: true}},
		{"a sum's carry", "def f(x, y): return (x + y) >> 64", map[[2]uint64]bool{{top, top}: true, {0, 0}: true}},
		{"a hash of a sum", "def f(x, y): return (((x + y) * 0x9e3779b97f4a7c15) >> 32) & 0xffffffffffffffff", map[[2]uint64]bool{{top, top}: false, {top, 1}: true, {5, 7}: true}},
		{"a hash shifted back", "def f(x, y): return ((x + (y & 0xff)) * 0x9e3779b97f4a7c15) >> 70", map[[2]uint64]bool{{top, 0xff}: true, {1 << 63, 3}: true}},
		{"a hash shifted, past the words", "def f(x, y): return ((x + 1) * y) >> 32", map[[2]uint64]bool{{top, top}: false, {top, 1 << 31}: true}},
		{"a hash's middle bits", "def f(x, y): return ((0x9e3779b97f4a7c15 * x + y) >> 32) & 0xffffffff", map[[2]uint64]bool{{top, top}: true, {1 << 63, 5}: true}},
		{"a difference shifted and masked", "def f(x, y): return ((x - y) >> 3) & 0xff", map[[2]uint64]bool{{0, 1}: false, {top, 0}: true}}, // (a difference of words is checked)
		{"a shift masked past the low word", "def f(x, y): return ((x * y) >> 8) & 0xffffffffffffffff", map[[2]uint64]bool{{top, top}: true, {1 << 63, 3}: true}},
		{"a pair shifted twice", "G0 = 0\ndef f(x, y): return pext(x, (((512 + x) * y) >> 63) >> G0)", map[[2]uint64]bool{{1<<63 - 1, top}: false, {5, 3}: true}},
		{"a sentinel past the words", "def f(x, y):\n    best = 1 << 64\n    best = min(best, x * 3)\n    best = min(y, best)\n    return best", map[[2]uint64]bool{{top, top}: true, {top / 3, top}: true, {1, 2}: true}},
		{"a sentinel never replaced", "def f(x, y):\n    best = 1 << 64\n    if x < y:\n        best = min(best, y - x)\n    return best", map[[2]uint64]bool{{1, 2}: true, {2, 1}: false}},
		{"the greater of pairs", "def f(x, y):\n    m = max(x * y, 1 << 64)\n    n = max(m, (x | y) << 63)\n    return (m >> 64) + (n >> 100)", map[[2]uint64]bool{{top, top}: false, {top, 1}: true, {1, 2}: true, {1 << 40, 1 << 40}: true}},
		{"a product mod a prime", "def f(x, y): return (x * y) % 1000000007", map[[2]uint64]bool{{top, top}: true, {1 << 63, 3}: true, {0, 0}: true}},
		{"a product mod 2^32 - 5", "def f(x, y): return ((x * y) + x) % 0xfffffffb", map[[2]uint64]bool{{top, top}: true, {5, 7}: true}},
		{"a product mod a word", "def f(x, y): return (x * y) % (y | 1)", map[[2]uint64]bool{{top, top}: false, {top, 5}: true, {3, 4}: true, {top, 1 << 31}: true}},
		{"a product mod 0", "def f(x, y): return (x * y) % (x & 1)", map[[2]uint64]bool{{top, top}: true, {2, 3}: false, {1 << 63, 3}: false}},
		{"a pair mod a word", "def f(x, y):\n    t = (x << 64) | y\n    return t % ((x & 0xffff) + 1)", map[[2]uint64]bool{{top, top}: true, {0, 9}: true}},
		{"a product divided", "def f(x, y): return (x * y) // ((x & 0xffff) + 1)", map[[2]uint64]bool{{top, top}: false, {1 << 40, 1 << 20}: true, {top, 0xffff}: true, {3, 5}: true}},
		{"a word scaled by a fraction", "def f(x, y): return (x * 1000) // 1024 + (y * 7) // 0xfffffffb", map[[2]uint64]bool{{top, top}: true, {1 << 63, 5}: true}},
		{"a product divided by a great word", "def f(x, y): return (x * y) // (y | (1 << 40))", map[[2]uint64]bool{{top, top}: false, {3, 5}: true}},
		{"a product divided by 0", "def f(x, y): return (x * y) // (x & 1)", map[[2]uint64]bool{{top, top}: false, {3, 5}: true, {2, 3}: false, {1 << 63, 3}: false}},
		{"a pair divided, shifted back", "def f(x, y): return ((x * y) // ((y & 0xff) + 1)) >> 64", map[[2]uint64]bool{{top, top}: true, {top, 0x10}: true}},
		{"a mask written as a constant expression", "def f(x, y): return (x + y) & ((1 << 64) - 1)", map[[2]uint64]bool{{top, top}: true}},
		{"a mask in a local", "def f(x, y):\n    MASK64 = (1 << 64) - 1\n    return ((x << 1) & MASK64) | (x >> 63)", map[[2]uint64]bool{{top, 0}: true, {1 << 63, 0}: true}},
		{"a product shifted right in steps", "def f(x, y):\n    t = x * y\n    t >>= 64\n    return t", map[[2]uint64]bool{{top, top}: true, {3, 5}: true}},
		{"a pair shifted by 127", "def f(x, y):\n    t = ((x >> 1) * y) << 1\n    return (t >> 127) + (t >> 100)", map[[2]uint64]bool{{top, top}: true, {1 << 63, 1 << 63}: true}},
		{"a pair shifted past the words", "def f(x, y):\n    t = (x >> 1) * y + 1\n    return t >> 32", map[[2]uint64]bool{{top, top}: false, {1 << 40, 1 << 40}: true}},
		{"a pair xored and masked", "def f(x, y):\n    t = x * y\n    u = t ^ (t >> 3)\n    return u & 0xffffffffffffffff", map[[2]uint64]bool{{top, top}: true}},
		{"a pair read as a word", "def f(x, y):\n    t = x + y\n    if t < (1 << 64):\n        return t\n    return t - 5", map[[2]uint64]bool{{top, top}: false, {3, 4}: true}},
		{"an accumulator past the words", "def f(x, y):\n    s = 0\n    for i in range(4):\n        s += x * y\n    return s >> 2", map[[2]uint64]bool{{top, top}: false, {3, 4}: true}},
		{"a sum with a division", "def f(x, y):\n    t = x + y\n    if t > (1 << 64):\n        return 0\n    return t // (y | 1)", map[[2]uint64]bool{{top, top}: true, {1, 0}: true, {top, 1}: false}},
	}
	runExactCases(t, cases, more)

	// The Gosper loop holds no check that always fails (1 << 64 is a pair,
	// not a failing shift), and runs on the x86-64 code.
	s := load(t, gosper("v < limit", "n"))
	f, err := s.CompileWith("f", exactly)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range f.Checks {
		if ch.Kind == fuse.CheckShlExact {
			t.Errorf("a check of a shift: %+v\n%s", ch, f)
		}
	}
	if _, ok := exactRuns(t, f)["amd64"]; !ok {
		t.Errorf("the x86-64 code refuses the function")
	}
}
