package compile_test

import (
	"testing"
)

// TestExactHashes: sets and dicts of words made in a function agree with
// plain Starlark on the evaluator and the x86-64 code, on every pair of
// edge words: membership and insertion past the first slots (a rehash),
// d[k] that misses (a failed run), updates, get with a default, iteration
// in insertion order, a write during one (a failed run), clear, removals.
func TestExactHashes(t *testing.T) {
	runExactCases(t, []exactCase{
		{name: "visited", src: `
def f(x, y):
    seen = set()
    m = y % 60 + 1
    x = x % m
    c = 0
    while x not in seen:
        seen.add(x)
        x = (x * x + 3) % m
        c += 1
    return c * 1000 + len(seen)
`, want: map[[2]uint64]bool{{5, 59}: true, {1 << 63, 1<<64 - 1}: true}},
		{name: "counts", src: `
def f(x, y):
    d = {}
    for i in range(x % 100):
        k = (i * y) % 13
        d[k] = d.get(k, 0) + i
    t = 0
    for k, v in d.items():
        t = (t * 17 + k * 100 + v) % 1000000007
    for v in d.values():
        t += v
    for k in d.keys():
        t += k
    return t
`, want: map[[2]uint64]bool{{99, 7}: true}},
		{name: "missing", src: `
def f(x, y):
    d = dict()
    for i in range(x % 8):
        d[i] = i + y % 3
    d[x % 5] += 1
    return d[y % 10]
`, want: map[[2]uint64]bool{{7, 3}: true, {7, 9}: false}},
		{name: "big keys", src: `
def f(x, y):
    s = set()
    s.add(x)
    s.add(y)
    s.add(x ^ y)
    c = 0
    for e in s:
        c = (c * 3 + (e & 0xffff)) % 1000003
    if x in s and y in s:
        c += len(s)
    s.clear()
    if x in s:
        c += 1000
    return c
`, want: map[[2]uint64]bool{{1<<64 - 1, 1 << 63}: true}},
		{name: "write while iterating", src: `
def f(x, y):
    s = {}
    for i in range(4):
        s[i] = i
    t = 0
    for k in s:
        t += k
        if k == y:
            s[k] = 5
    return t
`, want: map[[2]uint64]bool{{0, 9}: true, {0, 2}: false}},
		{name: "churn", src: `
def f(x, y):
    s = set()
    d = {}
    for i in range(x % 700):
        k = (i * 40503 + y) % 211
        if k in s:
            s.remove(k)
            t = d.pop(k)
        else:
            s.add(k)
            d[k] = i
        s.discard((k * 7) % 211)
    t = len(s) * 7 + len(d) + d.pop(y % 211, 5)
    for e in s:
        t = (t * 31 + e) % 1000000007
    for k, v in d.items():
        t = (t * 37 + k * 3 + v) % 1000000007
    return t
`, want: map[[2]uint64]bool{{699, 5}: true}},
		{name: "grow", src: `
def f(x, y):
    s = set()
    for i in range(x % 1500):
        s.add((i * 2654435761) % 1000003)
    c = 0
    for i in range(300):
        if (i * 7919 + y) % 1000003 in s:
            c += 1
    return c * 100000 + len(s)
`, want: map[[2]uint64]bool{{1499, 5}: true}},
	}, nil)
}
