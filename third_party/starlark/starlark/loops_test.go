// bitsh fork: tests of loops over enumerate(x) without its list of pairs,
// of tuples made with one allocation, of list.append called from the loop
// and of fused operators (loops.go, interp.go; README.bitsh.md, changes
// 21-25).

package starlark_test

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// loopsProgs run the fast paths of enumerate, x += y and x |= y, tuples of
// two, list.append and masked products and shifts, and each of their
// fallbacks.
var loopsProgs = []string{
	"def f(xs):\n    s = []\n    for i, x in enumerate(xs):\n        s.append(i * 10 + x)\n        if len(xs) < 6:\n            xs.append(i)\n        xs[0] = 9\n    return s, xs\nprint(f([1, 2, 3]))",
	"def f(t):\n    s = []\n    for i, x in enumerate(t, 5):\n        s.append((i, x))\n    for p in enumerate(t, -2):\n        s.append(p)\n        s.append(type(p))\n    return s\nprint(f((7, 'a', None)))",
	"def f(ps):\n    s = [i * a - b for i, (a, b) in enumerate(ps)]\n    for i, x in enumerate(ps):\n        if i == 1:\n            break\n        s.append(x)\n    for i, x in enumerate(ps):\n        for j, y in enumerate(x):\n            if j == 1 and i == 2:\n                return s + [i, j, y]\n    return s\nprint(f([(1, 2), (3, 4), (5, 6)]))",
	"def f(xs):\n    for i, x, y in enumerate(xs):\n        pass\nf([1, 2])",
	"def f(xs):\n    for i, (a, b) in enumerate(xs):\n        pass\nf([(1, 2), (3,)])",
	"def f(xs):\n    for i, x in enumerate(xs, 1 << 40):\n        pass\nf([1])",
	"def f(xs):\n    for i, x in enumerate(xs, 'a'):\n        pass\nf([1])",
	"def f(xs):\n    n = 0\n    for i, x in enumerate(xs, start = 3):\n        n += i * x\n    return n\nprint(f([1, 2]))",
	"def f(xs):\n    return [i + x for i, x in enumerate(xs)]\nprint(f({1: 2, 3: 4}), f(range(3, 6)))",
	"def f(xs):\n    for i, x in enumerate(xs):\n        pass\nf('ab')",
	"def f(xs):\n    for i, x in enumerate(xs):\n        pass\nf(None)",
	"def f(xs):\n    for i, x in enumerate():\n        pass\nf(None)",
	"def f(xs):\n    for i, x in enumerate(xs, 1, 2):\n        pass\nf([1])",
	"def f(xs):\n    n = 0\n    for i, x in enumerate(xs):\n        n += i + x\n    for i, x in enumerate(xs):\n        xs.append(i)\n    return n\nL = [5, 6]\nfreeze(L)\nf(L)",
	"def f(xs):\n    n = 0\n    for i, x in enumerate(xs):\n        n += i // x\n    return n\nprint(f([]))\nf([1, 0])",
	"s = 0\nfor i, x in enumerate([3, 4, 5]):\n    s += i * x\nfor i, x in enumerate((1 << 40, -1), 2147483647):\n    s += i * x\nprint(s)",
	"def g():\n    e = enumerate\n    return [p for p in e([1, 2])], enumerate([3]), e\nprint(g())\ndef f(xs, enumerate):\n    return [i + len(x) for i, x in enumerate(xs)]\nprint(f([1, 2], lambda x: [(0, x)]))",
	"def f(a, b):\n    s = a\n    s += b\n    t = 5\n    t += a\n    u = b\n    u |= a\n    v = 3\n    v |= b\n    w = [a]\n    w += [b]\n    return s, t, u, v, w\nprint(f(1, 2))\nprint(f(2147483647, 1))\nprint(f(-2147483648, -1))\nprint(f(1 << 40, (1 << 63) + 5))\nprint(f(-(1 << 70), 3))",
	"def f(a, b):\n    s = a\n    s += b\n    t = a\n    t |= b\n    return s, t\nprint(f(1, 2))\nprint(f([1], [2]))",
	"def f(a, b):\n    s = a\n    s += b\n    return s\nprint(f('x', 'y'), f([1], (2, 3)), f((1,), (2,)))\nd = {1: 2}\ne = d\ne |= {3: 4}\nprint(d, e)\nl = [1]\nm = l\nm += [2]\nprint(l, m)\nprint(f('x', 1))",
	"def f(a):\n    for x in a:\n        s += x\n    return s\nf([1])",
	"def f(a):\n    if a:\n        s = 1\n    s |= a\n    return s\nf(0)",
	"def f(a):\n    n = 0\n    m = 0\n    for x in a:\n        n += x\n        m |= 1 << x\n        n += 1\n    return n, m\nprint(f(range(40)))",
	"def f(a):\n    s = set([1])\n    s |= set([a])\n    return s\nprint(f(2))\ndef g(a):\n    s = set([1])\n    s |= a\n    return s\ng([2])",
	"def f(xs):\n    ps = [(x, x + 1) for x in xs]\n    d = {}\n    for p in ps:\n        d[p] = len(p)\n    q = (1, 2)\n    return ps, d[q], q in d, ps[0] == q, ps[0] + (3,), ps[1][1:], type(q), sorted([(2, 1), (1, 2), (1, 1)])\nprint(f([1, 2, 3]))",
	"def f(xs):\n    out = []\n    for x in xs:\n        out.append((x, [x]))\n    out[0][1].append(9)\n    return out, (out[0], None), ((), ('a', 'b'))\nprint(f([1, 2]))\nt = (1, 2)\nt[0] = 3",
	"def g(x):\n    return x * 2\ndef f(xs):\n    out = []\n    for x in xs:\n        out.append((x, x + 1))\n        out.append(g(x))\n        out.append(-x if x else 0)\n        out.append(x or 9)\n    out.append(out.append(7))\n    out.append([len(out), out[0][1]])\n    return out\nprint(f([0, 1, 2]))",
	"def f(xs):\n    out = []\n    a = out.append\n    a(1)\n    out.append(*xs)\n    return out, out.append == out.append\nprint(f([5]))\ndef h(xs):\n    out = []\n    out.append(x = 1)\nh([])",
	"def f(xs):\n    out = []\n    out.append(1, 2)\nf([])",
	"def f(xs):\n    out = []\n    out.append()\nf([])",
	"def f(xs):\n    d = {}\n    d.append(1)\nf([])",
	"def f(xs):\n    s = 'abc'\n    s.append(1)\nf([])",
	"def f(xs):\n    out = [1]\n    out.append(xs[5])\nf([])",
	"def f(xs):\n    out = [1]\n    for y in out:\n        out.append(y)\nf([])",
	"def f(xs):\n    xs.append(len(xs))\n    return xs\nL = [1]\nprint(f(L))\nfreeze(L)\nf(L)",
	"def fr(l):\n    freeze(l)\n    return 3\ndef f(xs):\n    out = []\n    out.append(fr(out))\nf([])",
	"def it(l):\n    for x in l:\n        l.append(x)\n    return 3\ndef f(xs):\n    out = [1]\n    out.append(it(out))\nf([])",
	"def f(xs):\n    out = [[]]\n    out[0].append(5)\n    out[-1].append(out[0][0] + 1)\n    n = None\n    n.append(1)\nf([])",
	"out = []\nfor i in range(3):\n    out.append(i * i)\nprint(out, [out.append(i) for i in range(2)], out)",
	"M = (1 << 64) - 1\ndef f(x, y):\n    return [(x * y) & M, (x << 13) & M, x * y & 0xFFFF0000FFFF0000, (x << (y & 127)) & M, (y << 3) & 255, x * y & 7]\nprint(f(3, 5))\nprint(f(0x9E3779B97F4A7C15, 0xDEADBEEFCAFEF00D & M))\nprint(f((1 << 64) - 1, 63))\nprint(f(1 << 40, 64))\nprint(f(2, 100))\nprint(f(-3, 5))\nprint(f(3, -5 & 1023))",
	"def f(x, y):\n    M = -1\n    return x * y & M\nN = -8\ndef g(x, y):\n    return [x * y & N, (x << y) & N, x * y & (1 << 70), (x << 2) & 'a' if False else 0]\nprint(f(1 << 40, 1 << 40), g(1 << 40, 1 << 3), g(7, 3))",
	"def f(x, y):\n    return (x << y) & M\nM = 1 << 64\nprint(f(1, 63), f(3, 64))\nM = 'a'\nf(1, 2)",
	"def f(x, y):\n    return (x << y) & M\nprint(f(1, 600))\nM = 5",
	"def f(x, y):\n    return x * y & M\nf(1, 2)\nM = 3",
	"M = 15\ndef f(x, y):\n    return x * y & M\nprint(f([1], 2))\nprint(f('ab', 2))",
	"M = (1 << 64) - 1\ndef f(x):\n    x ^= (x << 13) & M\n    x ^= x >> 7\n    x ^= (x << 17) & M\n    return x\nx = 0x9E3779B97F4A7C15\nfor i in range(5):\n    x = f(x)\nprint(x)",
	"def f(x, y, m):\n    return [(x * y) & m, (x << 13) & m, (x << (y & 127)) & m]\nprint(f(3, 5, 7), f(0x9E3779B97F4A7C15, 0xDEADBEEFCAFEF00D, (1 << 64) - 1), f(1 << 63, 3, -1), f(5, 7, 1 << 64), f(1 << 62, 4, 1 << 65))",
	"def f(x, y):\n    if x > 5:\n        m = 3\n    return (x * y) & m\nprint(f(7, 9))\nf(1, 2)",
	"def f(x, y, m):\n    return (x * y) & m\nf(1, 2, 'a')",
}

// loopsUpstream is what go.starlark.net v0.0.0-20260908191801-89a6a09411d5
// gives for loopsProgs: results, errors with their backtraces, steps.
const loopsUpstream = `print: ([1, 12, 23], [9, 2, 3, 0, 1, 2])
<nil>
steps 131
print: [(5, 7), (6, "a"), (7, None), (-2, 7), "tuple", (-1, "a"), "tuple", (0, None), "tuple"]
<nil>
steps 132
print: [-2, -1, 4, (1, 2), 2, 1, 6]
<nil>
steps 249
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:5: in f
Error: too few values to unpack (got 2, want 3)
steps 17
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:5: in f
Error: too few values to unpack (got 1, want 2)
steps 32
<nil>
steps 29
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:26: in f
Error in enumerate: enumerate: for parameter 2: got string, want int
steps 11
Traceback (most recent call last):
  e.star:6:8: in <toplevel>
  e.star:3:26: in f
Error in enumerate: enumerate: unexpected keyword arguments
steps 16
print: [1, 4] [3, 5, 7]
<nil>
steps 106
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:26: in f
Error in enumerate: enumerate: for parameter 1: got string, want iterable
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:26: in f
Error in enumerate: enumerate: for parameter 1: got NoneType, want iterable
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:26: in f
Error in enumerate: enumerate: got 0 arguments, want at least 1
steps 8
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:26: in f
Error in enumerate: enumerate: got 3 arguments, want at most 2
steps 12
Traceback (most recent call last):
  e.star:10:2: in <toplevel>
  e.star:6:18: in f
Error in append: append: cannot append to frozen list
steps 65
print: 0
Traceback (most recent call last):
  e.star:7:2: in <toplevel>
  e.star:4:16: in f
Error: floored division by zero
steps 55
print: 2361183240333163495438
<nil>
steps 99
print: ([(0, 1), (1, 2)], [(0, 3)], <built-in function enumerate>)
print: [2]
<nil>
steps 87
print: (3, 6, 3, 3, [1, 2])
print: (2147483648, 2147483652, 2147483647, 3, [2147483647, 1])
print: (-2147483649, -2147483643, -1, -1, [-2147483648, -1])
print: (9223373136366403589, 1099511627781, 9223373136366403589, 9223372036854775815, [1099511627776, 9223372036854775813])
print: (-1180591620717411303421, -1180591620717411303419, -1180591620717411303421, 3, [-1180591620717411303424, 3])
<nil>
steps 246
print: (3, 3)
Traceback (most recent call last):
  e.star:8:8: in <toplevel>
  e.star:5:7: in f
Error: unknown binary op: list | list
steps 44
print: xy [1, 2, 3] (1, 2)
print: {1: 2, 3: 4} {1: 2, 3: 4}
print: [1, 2] [1, 2]
Traceback (most recent call last):
  e.star:14:8: in <toplevel>
  e.star:3:7: in f
Error: unknown binary op: string + int
steps 93
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:3:9: in f
Error: local variable s referenced before assignment
steps 15
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:5: in f
Error: local variable s referenced before assignment
steps 12
print: (820, 1099511627775)
<nil>
steps 825
print: set([1, 2])
Traceback (most recent call last):
  e.star:10:2: in <toplevel>
  e.star:8:7: in g
Error: unknown binary op: set | list
steps 38
print: ([(1, 2), (2, 3), (3, 4)], 2, True, True, (1, 2, 3), (3,), "tuple", [(1, 1), (1, 2), (2, 1)])
<nil>
steps 153
print: ([(1, [1, 9]), (2, [2])], ((1, [1, 9]), None), ((), ("a", "b")))
Traceback (most recent call last):
  e.star:9:2: in <toplevel>
Error: tuple value does not support item assignment
steps 77
print: [(0, 1), 0, 0, 9, (1, 2), 2, -1, 1, (2, 3), 4, -2, 2, 7, None, [14, 1]]
<nil>
steps 178
print: ([1, 5], False)
Traceback (most recent call last):
  e.star:11:2: in <toplevel>
  e.star:10:15: in h
Error in append: append: unexpected keyword arguments
steps 45
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:15: in f
Error in append: append: got 2 arguments, want 1
steps 13
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:15: in f
Error in append: append: got 0 arguments, want 1
steps 11
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: dict has no .append field or method
steps 10
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: string has no .append field or method
steps 10
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:18: in f
Error: index 5 out of range: empty list
steps 14
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:19: in f
Error in append: append: cannot append to list during iteration
steps 20
print: [1, 1]
Traceback (most recent call last):
  e.star:7:2: in <toplevel>
  e.star:2:14: in f
Error in append: append: cannot append to frozen list
steps 34
Traceback (most recent call last):
  e.star:7:2: in <toplevel>
  e.star:6:15: in f
Error in append: append: cannot append to frozen list
steps 23
Traceback (most recent call last):
  e.star:8:2: in <toplevel>
  e.star:7:18: in f
  e.star:3:17: in it
Error in append: append: cannot append to list during iteration
steps 28
Traceback (most recent call last):
  e.star:7:2: in <toplevel>
  e.star:6:6: in f
Error: NoneType has no .append field or method
steps 34
print: [0, 1, 4, 0, 1] [None, None] [0, 1, 4, 0, 1]
<nil>
steps 85
print: [15, 24576, 0, 96, 40, 7]
print: [6791029304230804753, 17237298777891708928, 6790865292314607616, 17237298777891708928, 104, 1]
print: [18446744073709551553, 18446744073709543424, 18446462603027742720, 9223372036854775808, 248, 1]
print: [70368744177664, 9007199254740992, 0, 0, 0, 0]
print: [200, 16384, 0, 0, 32, 0]
print: [18446744073709551601, 18446744073709527040, 18446462603027742720, 18446744073709551520, 40, 1]
print: [3057, 24576, 0, 0, 216, 1]
<nil>
steps 310
print: 1208925819614629174706176 [8796093022208, 281474976710656, 0, 0] [16, 56, 0, 0]
<nil>
steps 93
print: 0 18446744073709551616
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:2:21: in f
Error: unknown binary op: int & string
steps 41
Traceback (most recent call last):
  e.star:3:8: in <toplevel>
  e.star:2:15: in f
Error: shift count too large: 600
steps 11
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:20: in f
Error: global variable M referenced before assignment
steps 11
Traceback (most recent call last):
  e.star:4:8: in <toplevel>
  e.star:3:18: in f
Error: unknown binary op: list & int
steps 16
print: 3236705911238380268
<nil>
steps 193
print: [7, 0, 0] [6791029304230804753, 17237298777891708928, 17237298777891708928] [27670116110564327424, 75557863725914323419136, 73786976294838206464] [0, 0, 0] [0, 0, 0]
<nil>
steps 141
print: 3
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:22: in f
Error: local variable m referenced before assignment
steps 38
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:20: in f
Error: unknown binary op: int & string
steps 13
`

// loopsOptions are the dialect the programs need (a loop at top level).
var loopsOptions = &syntax.FileOptions{While: true, Recursion: true, GlobalReassign: true, TopLevelControl: true, Set: true}

// runAll runs each program as TestFusedAsUpstream does and returns its
// printed values, its error's backtrace and its steps, each thread made by
// newThread with freeze predeclared beside predeclared.
func runAll(progs []string, predeclared starlark.StringDict, newThread func() *starlark.Thread) string {
	var out strings.Builder
	for _, src := range progs {
		thread := newThread()
		thread.Print = func(_ *starlark.Thread, msg string) { fmt.Fprintln(&out, "print:", msg) }
		pre := starlark.StringDict{"freeze": starlark.NewBuiltin("freeze", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			args[0].Freeze()
			return starlark.None, nil
		})}
		for k, v := range predeclared {
			pre[k] = v
		}
		_, err := starlark.ExecFileOptions(loopsOptions, thread, "e.star", src, pre)
		if e, ok := err.(*starlark.EvalError); ok {
			fmt.Fprintln(&out, e.Backtrace())
		} else {
			fmt.Fprintln(&out, err)
		}
		fmt.Fprintln(&out, "steps", thread.ExecutionSteps())
	}
	return out.String()
}

// TestLoopsAsUpstream checks that the programs give upstream's results,
// errors and positions, and step counts.
func TestLoopsAsUpstream(t *testing.T) {
	got := runAll(loopsProgs, nil, func() *starlark.Thread { return new(starlark.Thread) })
	if got != loopsUpstream {
		t.Errorf("got:\n%s\nupstream:\n%s", got, loopsUpstream)
	}
}

// TestEnumerateKey runs the programs with enumerate predeclared as an
// application's wrapper (which calls Universe's): named under the
// thread-local key, it takes the fast path, and the results, errors,
// backtraces and steps are those of the same programs without the key.
func TestEnumerateKey(t *testing.T) {
	var calls int
	wrap := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		calls++
		return starlark.Call(thread, starlark.Universe["enumerate"], args, kwargs)
	}
	wrapper := starlark.NewBuiltin("enumerate", wrap)
	pre := starlark.StringDict{"enumerate": wrapper}
	want := runAll(loopsProgs, pre, func() *starlark.Thread { return new(starlark.Thread) })
	without := calls
	got := runAll(loopsProgs, pre, func() *starlark.Thread {
		thread := new(starlark.Thread)
		thread.SetLocal("go.starlark.net/enumerate", wrapper)
		return thread
	})
	if got != want {
		t.Errorf("with the key:\n%s\nwithout:\n%s", got, want)
	}
	if with := calls - without; with >= without || with == 0 {
		t.Errorf("the wrapper was called %d times with the key, %d without: want fewer, not none", with, without)
	}
	// Named otherwise, the value under the key is not taken for enumerate.
	other := starlark.NewBuiltin("other", wrap)
	calls = 0
	runAll([]string{"def f(xs):\n    return [i + x for i, x in other(xs)]\nprint(f([1, 2]))"}, starlark.StringDict{"other": other}, func() *starlark.Thread {
		thread := new(starlark.Thread)
		thread.SetLocal("go.starlark.net/enumerate", other)
		return thread
	})
	if calls != 1 {
		t.Errorf("a builtin named other under the key: called %d times, want 1", calls)
	}
}

// TestEnumerateAllocs checks that a loop over enumerate(list) makes no pair
// per element: a few allocations in all (the copy of the list, the
// iterator, the call's result), not a hundred.
func TestEnumerateAllocs(t *testing.T) {
	const src = "def f(xs):\n    n = 0\n    for i, x in enumerate(xs):\n        n += i + x\n    return n\n"
	globals, err := starlark.ExecFileOptions(loopsOptions, new(starlark.Thread), "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	elems := make([]starlark.Value, 100)
	for i := range elems {
		elems[i] = starlark.MakeInt(i)
	}
	args := starlark.Tuple{starlark.NewList(elems)}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	if err != nil || v.String() != "9900" {
		t.Fatalf("f(range(100)) = %v, %v; want 9900", v, err)
	}
	if allocs > 4 {
		t.Errorf("f(range(100)) made %.0f allocations, want at most 4", allocs)
	}
}

// TestAppendAllocs checks that out.append(x) called from the loop makes
// no bound method and no copy of its arguments: the list's growth only,
// not two allocations per call.
func TestAppendAllocs(t *testing.T) {
	const src = "def f(n):\n    out = []\n    for i in range(n):\n        out.append(i)\n    return len(out)\n"
	globals, err := starlark.ExecFileOptions(loopsOptions, new(starlark.Thread), "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := starlark.Tuple{starlark.MakeInt(100)}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	if err != nil || v.String() != "100" {
		t.Fatalf("f(100) = %v, %v; want 100", v, err)
	}
	if allocs > 20 {
		t.Errorf("f(100) made %.0f allocations, want at most 20", allocs)
	}
}

// TestMaskedAllocs checks that (x * y) & M and (x << n) & M of words, M a
// global, make no 128-bit value on the way: a few allocations in all (the
// range, its iterator), not the 200 more a loop of 100 steps made before.
func TestMaskedAllocs(t *testing.T) {
	const src = "M = (1 << 64) - 1\ndef f(x, n):\n    for i in range(n):\n        x = (x * 0x9E3779B97F4A7C15) & M\n        x ^= (x << 13) & M\n    return x\n"
	globals, err := starlark.ExecFileOptions(loopsOptions, new(starlark.Thread), "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := starlark.Tuple{starlark.MakeUint64(0xDEADBEEFCAFEF00D), starlark.MakeInt(100)}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	// The same steps in Go, on the low 64 bits.
	want := uint64(0xDEADBEEFCAFEF00D)
	for range 100 {
		want *= 0x9E3779B97F4A7C15
		want ^= want << 13
	}
	if err != nil || v.String() != fmt.Sprint(want) {
		t.Fatalf("f = %v, %v; want %d", v, err, want)
	}
	if allocs > 10 {
		t.Errorf("f made %.0f allocations, want at most 10", allocs)
	}
}
