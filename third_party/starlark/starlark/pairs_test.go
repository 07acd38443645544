// bitsh fork: tests of the pairs MAKETUPLE makes four to an allocation
// (tuples.go; README.bitsh.md, change 44).

package starlark_test

import (
	"fmt"
	"runtime"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// pairProgs: pairs kept one of every three (the others dropped) between
// strings made, pairs as dict keys and values, sorted, unpacked and
// compared, an unhashable pair, a pair unpacked into three, and a pair
// returned by each call of a recursion.
var pairProgs = []string{
	"def f(n):\n    keep = []\n    for i in range(n):\n        p = (i, str(i))\n        q = (p, i + 1)\n        if i % 3 == 0:\n            keep.append(p)\n        elif i % 3 == 1:\n            keep.append(q)\n    return keep\nk = f(3000)\nprint(len(k), k[0], k[1], k[-1], k[-2], len([x for x in k if type(x[1]) == 'string']))",
	"def f(xs):\n    d = {}\n    s = {}\n    for x in xs:\n        d[(x, x & 3)] = (x * 2, (x, x))\n        s[(x & 7, x & 1)] = x\n    out = [(a, b) for a, b in sorted(s)]\n    return len(d), d[(5, 1)], out[:3], (1, 2) < (1, 3), (1, 2) == (1, 2)\nprint(f(list(range(20))))",
	"def f(xs):\n    s = {}\n    for x in xs:\n        s[(x, [x])] = 1\n    return s\nprint(f([1]))",
	"def f(xs):\n    t = 0\n    for x in xs:\n        p = (x, x + 1)\n        a, b, c = p\n    return t\nprint(f([1]))",
	"def g(n):\n    if n == 0:\n        return (0, 0)\n    a, b = g(n - 1)\n    return (b + 1, a + n)\nprint(g(50))",
}

// pairUpstream is what go.starlark.net (the version this fork is of)
// prints for pairProgs, with its errors, backtraces and steps.
const pairUpstream = `print: 2000 (0, "0") ((1, "1"), 2) ((2998, "2998"), 2999) (2997, "2997") 1000
<nil>
steps 137046
print: (20, (10, (5, 5)), [(0, 0), (1, 1), (2, 0)], True, True)
<nil>
steps 844
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:4:10: in f
Error: unhashable type: list
steps 26
Traceback (most recent call last):
  e.star:7:8: in <toplevel>
  e.star:5:17: in f
Error: too few values to unpack (got 2, want 3)
steps 25
print: (650, 675)
<nil>
steps 1169
`

// TestPairsAsUpstream checks the pairs' results, errors with their
// backtraces, and step counts against upstream's.
func TestPairsAsUpstream(t *testing.T) {
	asUpstream(t, pairProgs, pairUpstream)
}

// TestPairsKeptAcrossCollections keeps one pair of every three, and one
// tuple holding a pair of every three, of 30,000 made four to an
// allocation, collects, and reads every kept pair back.
func TestPairsKeptAcrossCollections(t *testing.T) {
	const src = "def f(n):\n    keep = []\n    for i in range(n):\n        p = (i, str(i))\n        q = (p, -i)\n        if i % 3 == 0:\n            keep.append(p)\n        elif i % 3 == 1:\n            keep.append(q)\n    return keep\nk = f(30000)\n"
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, new(starlark.Thread), "p.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		runtime.GC()
	}
	k := globals["k"].(*starlark.List)
	if k.Len() != 20000 {
		t.Fatalf("len(k) = %d, want 20000", k.Len())
	}
	for j := range k.Len() {
		i := j / 2 * 3
		want := fmt.Sprintf("(%d, %q)", i, fmt.Sprint(i))
		if j%2 == 1 {
			i++
			want = fmt.Sprintf("((%d, %q), %d)", i, fmt.Sprint(i), -i)
		}
		if got := k.Index(j).String(); got != want {
			t.Fatalf("k[%d] = %s, want %s", j, got, want)
		}
	}
}
