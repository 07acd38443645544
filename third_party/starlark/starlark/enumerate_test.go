// bitsh fork: tests of loops over enumerate(x), whose enumerations and
// their snapshots' arrays a thread reuses (loops.go, iterpool.go;
// README.bitsh.md, change 37).

package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// enumerateProgs: a list changed in the loop over its enumeration (the
// loop sees the snapshot), nested enumerations of one list with a start
// and a break, enumerations in a recursion (each call's loop its own),
// continue, a pair not unpacked, tuples, comprehensions, a list longer
// than the pool keeps, an error in the loop and a return from it, and
// one list enumerated by two calls in turn.
var enumerateProgs = []string{
	"def f(xs):\n    s = 0\n    for i, x in enumerate(xs):\n        s += i * x\n        xs.append(x)\n        xs[0] = 100\n    return s, len(xs), xs[:1]\nprint(f([1, 2, 3]), f([]), f([5]))",
	"def f(xs):\n    out = []\n    for i, x in enumerate(xs):\n        for j, y in enumerate(xs, 10):\n            if j > 11:\n                break\n            out.append(i * 100 + j * 10 + y)\n        xs.pop()\n    return out\nprint(f([1, 2, 3, 4]))",
	"def g(xs, d):\n    if d == 0:\n        return 0\n    s = 0\n    for i, x in enumerate(xs):\n        s += i + x + g(xs[1:], d - 1)\n    return s\nprint(g([1, 2, 3], 3))",
	"def f(xs):\n    s = []\n    for i, x in enumerate(xs):\n        if i == 1:\n            continue\n        s.append((i, x))\n    for p in enumerate(xs, -2):\n        s.append(p)\n    return s\nprint(f([7, 8, 9]), f((4, 5)))",
	"def f(xs):\n    return [i * x for i, x in enumerate(xs) if x], [(i, x) for i, x in enumerate(xs)]\nprint(f([0, 1, 2]), f(()))",
	"def f(n):\n    xs = list(range(n))\n    s = 0\n    for i, x in enumerate(xs):\n        s += i - x + 1\n    for i, x in enumerate(xs):\n        s += x\n    return s\nprint(f(70000), f(3))",
	"def f(xs):\n    for i, x in enumerate(xs):\n        if i == 2:\n            return x + 'a'\n    return 0\nprint(f([1, 2, 3]))",
	"def f(xs):\n    s = 0\n    for i, x in enumerate(xs):\n        s += x\n    return s\nxs = [1, 2, 3]\nprint(f(xs))\nprint(f(xs))",
}

// enumerateUpstream is what go.starlark.net (the version this fork is of)
// prints for enumerateProgs, with its errors, backtraces and steps.
const enumerateUpstream = `print: (8, 6, [100]) (0, 0, []) (0, 2, [100])
<nil>
steps 178
print: [101, 112, 201, 212, 301, 312, 401]
<nil>
steps 317
print: 45
<nil>
steps 596
print: [(0, 7), (2, 9), (-2, 7), (-1, 8), (0, 9)] [(0, 4), (-2, 4), (-1, 5)]
<nil>
steps 198
print: ([1, 4], [(0, 0), (1, 1), (2, 2)]) ([], [])
<nil>
steps 131
print: 2450035000 6
<nil>
steps 1960142
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:4:22: in f
Error: unknown binary op: int + string
steps 58
print: 6
print: 6
<nil>
steps 114
`

// TestEnumerateAsUpstream checks the loops' results, errors with their
// backtraces, and step counts against upstream's.
func TestEnumerateAsUpstream(t *testing.T) {
	asUpstream(t, enumerateProgs, enumerateUpstream)
}

// TestEnumeratePooled: a loop over enumerate(xs) of a list, entered 100
// times by one call, takes its enumeration and its snapshot's array from
// the thread's pool after the first time (the outer loop's range value is
// one allocation a step; before, each inner loop also allocated an
// enumeration and a copy of the list).
func TestEnumeratePooled(t *testing.T) {
	const src = "def f(xs, n):\n    t = 0\n    for k in range(n):\n        for i, x in enumerate(xs):\n            t += i * x\n    return t\n"
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, new(starlark.Thread), "e.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	elems := make([]starlark.Value, 50)
	for i := range elems {
		elems[i] = starlark.MakeInt(i)
	}
	args := starlark.Tuple{starlark.NewList(elems), starlark.MakeInt(100)}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	if err != nil || v.String() != "4042500" {
		t.Fatalf("f = %v, %v; want 4042500", v, err)
	}
	if allocs > 110 {
		t.Errorf("f made %.0f allocations, want at most 110 (one range value per outer step)", allocs)
	}
}
