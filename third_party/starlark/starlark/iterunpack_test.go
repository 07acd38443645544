// bitsh fork: tests of loops over lists and tuples of pairs, whose ITERJMP
// assigns each pair to the two locals of the FusedUnpackSet2 after it
// (interp.go; README.bitsh.md, change 37), and of loops whose ITERJMP
// assigns each element to the local of the SETLOCAL after it.

package starlark_test

import "testing"

// iterUnpackProgs walk pairs in lists and tuples: pairs unpacked by the
// loop, a list of two taking the fused instruction's own path, elements
// that fail to unpack (too many values, not iterable) and an error in the
// body after a pair, continue and break, comprehensions, a nested loop
// over the same list, and an append to the list during the loop.
var iterUnpackProgs = []string{
	"def f(ps):\n    s = 0\n    for a, b in ps:\n        s += a * 10 - b\n    return s\nprint(f([(1, 2), (3, 4)]), f(((5, 6), [7, 8], (9, 0))), f([]), f(()))",
	"def f(ps):\n    s = 0\n    for a, b in ps:\n        s += a * 10 - b\n    return s\nprint(f([(1, 2), (3, 4, 5)]))",
	"def f(ps):\n    s = 0\n    for a, b in ps:\n        s += a * 10 - b\n    return s\nprint(f(((1, 2), 3)))",
	"def f(ps):\n    s = 0\n    for a, b in ps:\n        s += a * 10 - b\n    return s\nprint(f([(1, 2), ('x', 1)]))",
	"def f(ps):\n    s = []\n    for a, b in ps:\n        if a > 2:\n            continue\n        if b == 9:\n            break\n        s.append(b)\n    return s\nprint(f([(1, 2), (3, 4), (0, 5), (1, 9), (0, 0)]))",
	"def f(ps):\n    return [a + b for a, b in ps if a]\nprint(f([(1, 2), (0, 4), (5, 6)]), f(((1, 1),)))",
	"def f(ps):\n    for a, b in ps:\n        ps.append((a, b))\nf([(1, 2)])",
	"def f(ps):\n    n = 0\n    for a, b in ps:\n        for c, d in ps:\n            n += a * c + b * d\n    return n\nprint(f([(1, 2), (3, 4)]), f(((1, 2), (3, 4))))",
	"ps = [(1, 2), (3, 4)]\nprint([x * y for x, y in ps], [x - y for x, y in ((5, 1), (7, 2))])",
}

// iterUnpackUpstream is what go.starlark.net (the version this fork is
// of) prints for iterUnpackProgs, with its errors, backtraces and steps.
const iterUnpackUpstream = `print: 34 196 0 0
<nil>
steps 147
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:3:5: in f
Error: too many values to unpack (got 3, want 2)
steps 39
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:3:5: in f
Error: got int in sequence assignment
steps 36
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:4:21: in f
Error: unknown binary op: string - int
steps 46
print: [2, 5]
<nil>
steps 116
print: [3, 11] [2]
<nil>
steps 96
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:18: in f
Error in append: append: cannot append to list during iteration
steps 24
print: 52 52
<nil>
steps 234
print: [2, 12] [4, 5]
<nil>
steps 81
`

// TestIterUnpackAsUpstream checks the loops' results, errors with their
// backtraces, and step counts against upstream's.
func TestIterUnpackAsUpstream(t *testing.T) {
	asUpstream(t, iterUnpackProgs, iterUnpackUpstream)
}

// iterSetProgs: loops whose ITERJMP assigns the element to the local of
// the SETLOCAL after it, over lists, tuples and ranges (a closure over the
// loop variable, a cell, takes the general path), an error in the body,
// an append during the loop, and loops over a dict and an iterable that
// keep the general path.
var iterSetProgs = []string{
	"def f(xs):\n    s = 0\n    for x in xs:\n        s = s * 3 + x\n    for i in range(len(xs), -1, -2):\n        s += i\n    return s\nprint(f([1, 2, 3]), f((4, 5)), f([]))",
	"def f(xs):\n    fs = []\n    for x in xs:\n        fs.append(lambda: x)\n    return [g() for g in fs]\nprint(f([1, 2]), f(range(3)))",
	"def f(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\nprint(f([1, 'a']))",
	"def f(xs):\n    for x in xs:\n        xs.append(x)\nf([1])",
	"def f(d):\n    s = []\n    for k in d:\n        s.append(k)\n    for c in 'ab'.elems():\n        s.append(c)\n    return s\nprint(f({3: 4, 5: 6}))",
}

// iterSetUpstream is what go.starlark.net (the version this fork is of)
// prints for iterSetProgs, with its errors, backtraces and steps.
const iterSetUpstream = `print: 22 19 0
<nil>
steps 192
print: [2, 2] [2, 2, 2]
<nil>
steps 167
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:4:11: in f
Error: unknown binary op: int + string
steps 31
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:18: in f
Error in append: append: cannot append to list during iteration
steps 18
print: [3, 5, "a", "b"]
<nil>
steps 77
`

// TestIterSetAsUpstream checks the loops' results, errors with their
// backtraces, and step counts against upstream's.
func TestIterSetAsUpstream(t *testing.T) {
	asUpstream(t, iterSetProgs, iterSetUpstream)
}
