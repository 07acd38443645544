package builtins

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse/native"
	"go.starlark.net/starlark"
)

// hashCases are plain functions f(x, y) on local sets and dicts of ints:
// membership, insertion, growth past the first slots, lookups that fail,
// iteration in insertion order, and writes while a loop runs over one.
var hashCases = []string{
	// A visited set: the walk x -> x * 3 + 1 mod y until it repeats.
	`def f(x, y):
    seen = set()
    m = y % 1000 + 1
    x = x % m
    steps = 0
    while x not in seen:
        seen.add(x)
        x = (x * 3 + 1) % m
        steps += 1
    return steps * 1000 + len(seen)`,
	// A memo table in a loop, d.get with a default, d[k] += v.
	`def f(x, y):
    d = {}
    n = x % 300
    for i in range(n):
        k = (i * 7 + y) % 37
        d[k] = d.get(k, 0) + i
    s = 0
    for k, v in d.items():
        s = s * 31 + k * 1000 + v
        s = s % 1000000007
    return s`,
	// d[k] of a missing key fails as in Starlark.
	`def f(x, y):
    d = dict()
    for i in range(x % 10):
        d[i] = i * i
    return d[y % 12]`,
	// d[k] op= v.
	`def f(x, y):
    d = {}
    for i in range(20):
        d[i % 5] = 0
    for i in range(x % 50):
        d[i % 5] += i * y
    t = 0
    for k in d:
        t = t * 7 + d[k]
    for v in d.values():
        t += v
    return t % 1000000007`,
	// Writing a set while looping over it fails as in Starlark.
	`def f(x, y):
    s = set()
    for i in range(x % 4):
        s.add(i)
    c = 0
    for e in s:
        c += e
        if e == y % 5:
            s.add(e + 100)
    return c`,
	// Growth: many keys, then membership of others; clear.
	`def f(x, y):
    s = set()
    for i in range(x % 3000):
        s.add(i * 2654435761 % 1000003)
    c = 0
    for i in range(200):
        if (i * 7919 + y) % 1000003 in s:
            c += 1
    n = len(s)
    s.clear()
    s.add(y)
    return c * 1000000 + n * 10 + len(s)`,
	// A set in an inlined helper, by reference; insertion order of a set.
	`def mark(s, v):
    if v in s:
        return 0
    s.add(v)
    return 1

def f(x, y):
    s = set()
    t = 0
    for i in range(x % 100):
        t += mark(s, (i * y) % 17)
    o = 0
    for e in s:
        o = o * 17 + e
    return t * 1000000007 + o % 1000000007`,
}

// TestNativeHashes: sets and dicts of ints made in a plain function run as
// code with the interpreter's answers and errors, directly and through the
// fork.
func TestNativeHashes(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
	var args []starlark.Tuple
	for _, x := range []int{0, 1, 2, 3, 7, 45, 100, 299, 1000, 2999, 12345} {
		for _, y := range []int{0, 1, 3, 4, 11, 999, 100003} {
			args = append(args, starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(y)})
		}
	}
	for i, src := range hashCases {
		res, err := edgeDiff(src, args, true, true)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.wrong != "" {
			t.Errorf("case %d: %s\n%s", i, res.wrong, src)
		}
		if res.refused || res.coded == 0 {
			t.Errorf("case %d: no call as code (refused: %v)\n%s", i, res.refused, src)
		}
		t.Logf("case %d: %d of %d calls as code, %d through the fork", i, res.coded, len(args), res.forkCoded)
	}
}
