// bitsh fork: tests of the fused instructions (compile.Funcode.Decoded,
// interp.go; README.bitsh.md).

package starlark_test

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Programs whose fused instructions meet operands they do not compute
// (unassigned locals, strings, None, lists, ints out of int32 range), and
// calls of list.append from the loop (frozen, iterated, wrong arguments).
var fusedProgs = []string{
	"def f(x):\n    return x + 'a'\nf(1)",
	"def f(x):\n    y = 'b'\n    return x - y\nf(1)",
	"def f(x):\n    if x < 'a':\n        return 1\n    return 2\nf(1)",
	"def f(x):\n    if x:\n        y = 1\n    return x + y\nf(0)",
	"def f(x):\n    if x:\n        y = 1\n    return y + x\nf(0)",
	"def f(x):\n    if x:\n        y = 1\n    return y + 1\nf(0)",
	"def f(x, z):\n    y = x * z\n    return y\nf(1, [1])",
	"def f(x, z):\n    y = x // z\n    return y\nf(1, 0)",
	"def f(x, z):\n    y = x ^ z\n    return y\nf(1, None)",
	"def f(x, z):\n    if x == z:\n        return 1\n    return 2\nf(1, None)",
	"def f(x, z):\n    if x < z:\n        return 1\n    return 2\nf(1, None)",
	"def f(x, z):\n    return x < z\nf([1], [None])",
	"def f(x, z):\n    return x * 5\nf(1 << 40, 0)",
	"def f(x, z):\n    return [x >= 7, x <= z, x != z, x > 2147483647, x - 2147483647, x * 65536 * 65536]\nprint(f(2147483647, -5))",
	"def f(x, z):\n    return [x + z, x - z, x & z, x | z, x ^ z]\nprint(f(-2147483648, -1))",
	"def f(x):\n    if x:\n        y = 1\n    return 1 + y\nf(0)",
	"def f(x):\n    return 2 * x + 3 * x[0] + 4 < x\nf('ab')",
	"def f(x):\n    if x:\n        y = 1\n    return len([x]) + y\nf(0)",
	"def f(x):\n    return [7, 8][0] - x\nf('a')",
	"def f(x):\n    return len([x]) & 'a'\nf(0)",
	"def f(x):\n    return [len([x]) & 6, len([x]) < 2, (x, 5)[1], [x, 4][-1], 'abc'[1], {1: 2}[1], len([x, x]) << 40, [x][x]]\nprint(f(0))",
	"def f(x):\n    return [x][3]\nf(0)",
	"def f(x):\n    return (x, x)[-3]\nf(0)",
	"def f(x):\n    y = [1, 2]\n    for z in y:\n        y[0] = x\nf(0)",
	"def f(x):\n    y = (1 << 40) + x\n    if y > 5:\n        return y * 3 - 1\n    return 0\nprint(f(5))",
	"def f(x):\n    y = []\n    for i in range(x):\n        y.append(i * i)\n    g = y.append\n    g(7)\n    return y\nprint(f(4))",
	"def f(x):\n    y = [1, 2]\n    for z in y:\n        y.append(z)\nf(0)",
	"def f(x):\n    x.append(1)\nL = [5]\nfreeze(L)\nf(L)",
	"def f(x):\n    x.append(1, 2)\nf([])",
	"def f(x):\n    x.append()\nf([])",
	"def f(x):\n    x.append(object = 3)\n    return x\nprint(f([]))",
	"def f(x):\n    return x.append(x)\nprint(f([]))",
	"def f(x):\n    t = []\n    for y in [0, 1, -1, 1 << 40, -(1 << 40), 2147483648, -2147483648, 2147483647, -2147483649, x]:\n        if y:\n            t.append(y)\n        if not y:\n            t.append(0)\n    return t\nprint(f(0))",
	"def f(x):\n    t = 0\n    for y in x:\n        for z in x:\n            t += y * z\n    return t\nprint(f([1, 2, 3]))",
}

// fusedUpstream is what go.starlark.net v0.0.0-20260908191801-89a6a09411d5
// gives for fusedProgs: results, errors with their backtraces, steps.
const fusedUpstream = `Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:14: in f
Error: unknown binary op: int + string
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error: unknown binary op: int - string
steps 11
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:10: in f
Error: int < string not implemented
steps 9
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:16: in f
Error: local variable y referenced before assignment
steps 13
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:12: in f
Error: local variable y referenced before assignment
steps 12
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:12: in f
Error: local variable y referenced before assignment
steps 12
<nil>
steps 17
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:11: in f
Error: floored division by zero
steps 10
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:11: in f
Error: unknown binary op: int ^ NoneType
steps 10
<nil>
steps 19
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:10: in f
Error: int < NoneType not implemented
steps 10
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:14: in f
Error: int < NoneType not implemented
steps 12
<nil>
steps 16
print: [True, False, True, False, 0, 9223372032559808512]
<nil>
steps 35
print: [-2147483649, -2147483647, -2147483648, -1, 2147483647]
<nil>
steps 31
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:16: in f
Error: local variable y referenced before assignment
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:29: in f
Error: unknown binary op: string + int
steps 17
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:23: in f
Error: local variable y referenced before assignment
steps 16
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:22: in f
Error: unknown binary op: int - string
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:21: in f
Error: unknown binary op: int & string
steps 12
print: [0, True, 5, 4, "b", 2, 2199023255552, 0]
<nil>
steps 57
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:15: in f
Error: list index 3 out of range [-1:0]
steps 10
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:18: in f
Error: tuple index -3 out of range [-2:1]
steps 12
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:10: in f
Error: cannot assign to element of list during iteration
steps 23
print: 3298534883342
<nil>
steps 27
print: [0, 1, 4, 9, 7]
<nil>
steps 80
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:17: in f
Error in append: append: cannot append to list during iteration
steps 21
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:13: in f
Error in append: append: cannot append to frozen list
steps 17
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:13: in f
Error in append: append: got 2 arguments, want 1
steps 11
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:13: in f
Error in append: append: got 0 arguments, want 1
steps 9
Traceback (most recent call last):
  e.star:4:8: in <toplevel>
  e.star:2:13: in f
Error in append: append: unexpected keyword arguments
steps 12
print: None
<nil>
steps 16
print: [0, 1, -1, 1099511627776, -1099511627776, 2147483648, -2147483648, 2147483647, -2147483649, 0]
<nil>
steps 199
print: 36
<nil>
steps 160
`

// TestFusedAsUpstream checks that the programs give upstream's results,
// errors and positions, and step counts.
func TestFusedAsUpstream(t *testing.T) {
	var out strings.Builder
	for _, src := range fusedProgs {
		thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(&out, "print:", msg) }}
		freeze := starlark.NewBuiltin("freeze", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			args[0].Freeze()
			return starlark.None, nil
		})
		_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "e.star", src, starlark.StringDict{"freeze": freeze})
		if e, ok := err.(*starlark.EvalError); ok {
			fmt.Fprintln(&out, e.Backtrace())
		} else {
			fmt.Fprintln(&out, err)
		}
		fmt.Fprintln(&out, "steps", thread.ExecutionSteps())
	}
	if got := out.String(); got != fusedUpstream {
		t.Errorf("got:\n%s\nupstream:\n%s", got, fusedUpstream)
	}
}

// TestTablesConcurrent runs a function's first calls on several threads
// at once: its decoded instructions and step table are built once, by one
// of them (run with -race).
func TestTablesConcurrent(t *testing.T) {
	const src = `
def f(n):
    t = 0
    for i in range(n):
        if i & 1:
            t += i
    return t
`
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, new(starlark.Thread), "t.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for range 4 {
		go func() {
			v, err := starlark.Call(new(starlark.Thread), globals["f"], starlark.Tuple{starlark.MakeInt(100)}, nil)
			done <- fmt.Sprint(v, err)
		}()
	}
	for range 4 {
		if got := <-done; got != "2500 <nil>" {
			t.Errorf("f(100) = %s, want 2500", got)
		}
	}
}

// Programs whose calls of Starlark functions take the short path of a
// positional call (recursion allowed, exact positional arguments, no cells)
// or its fallbacks: missing, extra and keyword-only arguments, defaults,
// cells, *args and **kwargs, a local read before assignment in a space that
// an earlier call used or that overlaps values the caller's operand stack
// held (the callee's space begins at its arguments), zero parameters,
// errors in a recursion, a recursion that crosses the value stack's chunks.
var callProgs = []string{
	"def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\nprint(fib(15))",
	"def f(x, y):\n    return x\nf(1)",
	"def f(x):\n    return x\nf(1, 2)",
	"def f(x, y = 2):\n    return x + y\nprint(f(1), f(1, 3))",
	"def f(x):\n    def g():\n        return x\n    return g() + 1\nprint(f(3), f(4))",
	"def f(*a):\n    return len(a)\ndef g(x, *a, **k):\n    return [x, a, k]\nprint(f(1, 2), f(), g(1, 2), g(1, y = 2))",
	"def f(x, y):\n    return x - y\nprint(f(y = 1, x = 5), f(*[7, 2]), f(9, **{\"y\": 3}))",
	"def f(x):\n    if x:\n        y = 1\n    return y\nprint(f(1))\nf(0)",
	"def f(x, *, k):\n    return x + k\nprint(f(1, k = 2))\nf(1)",
	"def g():\n    return 1\ndef f():\n    return g() + g()\nprint(f())",
	"def f(n, acc):\n    if n == 0:\n        return acc\n    for i in range(2):\n        acc = acc + i\n    return f(n - 1, acc)\nprint(f(50, 0))",
	"def f(n):\n    if n == 0:\n        return 1 // n\n    return f(n - 1) + 1\nf(3)",
	"def f(x, y, z):\n    return [x, y, z]\ndef g(n):\n    if n == 0:\n        return []\n    return f(n, n + 1, [n]) + g(n - 1)\nprint(g(4))",
	"def g(a):\n    if a > 100:\n        y = 1\n    return y\ndef f():\n    x = [10, 20, 30, 40, 50, 60, 70]\n    return g(5)\nf()",
	"def g(a, b):\n    t = a\n    for i in range(b):\n        t = t + i\n    return t\ndef f():\n    x = [10, 20, 30, 40, 50, 60, 70]\n    return [g(1, 3), (1, g(2, 2), x[1])]\nprint(f())",
	"def d(n, a, b):\n    if n == 0:\n        return a + b\n    return d(n - 1, a + 1, b + 2) + 1\nprint(d(3000, 0, 0))",
}

// callUpstream is what go.starlark.net v0.0.0-20260908191801-89a6a09411d5
// gives for callProgs, with recursion allowed.
const callUpstream = `print: 610
<nil>
steps 24667
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:12: in f
Error: function f missing 1 argument (y)
steps 6
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:12: in f
Error: function f accepts 1 positional argument (2 given)
steps 7
print: 3 4
<nil>
steps 24
print: 4 5
<nil>
steps 36
print: 2 0 [1, (2,), {}] [1, (), {"y": 2}]
<nil>
steps 44
print: 4 5 6
<nil>
steps 39
print: 1
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:12: in f
Error: local variable y referenced before assignment
steps 25
print: 3
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:12: in f
Error: function f missing 1 argument (k)
steps 19
print: 2
<nil>
steps 23
print: 50
<nil>
steps 2018
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:13: in f
  e.star:4:13: in f
  e.star:4:13: in f
  e.star:3:18: in f
Error: floored division by zero
steps 49
print: [4, 5, [4], 3, 4, [3], 2, 3, [2], 1, 2, [1]]
<nil>
steps 128
Traceback (most recent call last):
  e.star:8:2: in <toplevel>
  e.star:7:13: in f
  e.star:4:12: in g
Error: local variable y referenced before assignment
steps 28
print: [4, (1, 3, 20)]
<nil>
steps 107
print: 12000
<nil>
steps 63021
`

// Programs whose fused loads and operators (CONSTANT op and LOCAL op, the
// value below the load as the left operand) meet ints of every size,
// strings, lists, tuples, dicts, unassigned locals, indices out of range
// and a negative shift count.
var loadOpProgs = []string{
	"def f(x):\n    return [x * 2 + 1, (x - 3) & 63, (x | 8) ^ 5, (x + 1) << 3, (x + 100) >> 2, (x + 1) * 2147483647, (x - 1) << 40]\nprint(f(5), f(-7))",
	"def f(x, y):\n    return [(x + 0) << y, (x + 0) >> y, x * (y + 0), (x + y) & y, (x * 2) - y]\nprint(f(3, 4), f(1 << 40, 3), f(-(1 << 40), 5))",
	"def f(x, y):\n    return (x + 0) << y\nf(1, -1)",
	"def f(x):\n    return (x + 0) >> 2\nf(\"a\")",
	"def f(x):\n    return (x + \"b\") * 2\nprint(f(\"a\"))",
	"def f(x):\n    return [x][0] + 1 - [x, x][-1]\nprint(f(2))",
	"def f(x):\n    if x:\n        y = 1\n    return (x + 1) * y\nf(0)",
	"def f(x):\n    if x:\n        y = 1\n    return [x][y]\nf(0)",
	"def f(x, y):\n    z = [10, 20, 30]\n    w = (4, 5)\n    d = {1: \"a\"}\n    return [z[x], w[y], z[-x], d[x], \"abc\"[y], z[0], w[1], L[x], L[-x], T[x], L[x - 1], [7, 8][x], (7, 8)[-1]]\nL = [1, 2, 3]\nT = (4, 5, 6)\nprint(f(1, 0))",
	"def f(x, y):\n    z = [10, 20, 30]\n    return z[x + 5]\nf(1, 0)",
	"T = (10, 20, 30)\ndef f(x, y):\n    return T[y]\nf(1, 7)",
	"def f(x):\n    t = 0\n    for i in range(x):\n        t = (t + i) ^ 85\n        t = (t * 3) & 1023\n    return t\nprint(f(100))",
}

// loadOpUpstream is what go.starlark.net v0.0.0-20260908191801-89a6a09411d5
// gives for loadOpProgs, with recursion allowed.
const loadOpUpstream = `print: [11, 2, 8, 48, 26, 12884901882, 4398046511104] [-13, 54, -4, -48, 23, -12884901882, -8796093022208]
<nil>
steps 89
print: [48, 0, 12, 4, 2] [8796093022208, 137438953472, 3298534883328, 3, 2199023255549] [-35184372088832, -34359738368, -5497558138880, 5, -2199023255557]
<nil>
steps 106
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:20: in f
Error: negative shift count: -1
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:15: in f
Error: unknown binary op: string + int
steps 9
print: abab
<nil>
steps 17
print: 1
<nil>
steps 25
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:22: in f
Error: local variable y referenced before assignment
steps 15
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:16: in f
Error: local variable y referenced before assignment
steps 14
print: [20, 4, 30, "a", "a", 10, 5, 2, 3, 5, 1, 8, 8]
<nil>
steps 87
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: list index 6 out of range [-3:2]
steps 17
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: tuple index 7 out of range [-3:2]
steps 15
print: 238
<nil>
steps 1821
`

// TestCallsAsUpstream checks that calls of Starlark functions, on the
// interpreter's short path for positional calls and off it, give
// upstream's results, errors with their backtraces, and step counts.
func TestCallsAsUpstream(t *testing.T) {
	asUpstream(t, callProgs, callUpstream)
}

// TestLoadOpAsUpstream checks that the fused loads and operators give
// upstream's results, errors with their backtraces, and step counts.
func TestLoadOpAsUpstream(t *testing.T) {
	asUpstream(t, loadOpProgs, loadOpUpstream)
}

// asUpstream runs progs with recursion allowed and compares what they
// print, their errors with backtraces and their step counts with want.
func asUpstream(t *testing.T, progs []string, want string) {
	t.Helper()
	var out strings.Builder
	for _, src := range progs {
		thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(&out, "print:", msg) }}
		_, err := starlark.ExecFileOptions(&syntax.FileOptions{Recursion: true}, thread, "e.star", src, nil)
		if e, ok := err.(*starlark.EvalError); ok {
			fmt.Fprintln(&out, e.Backtrace())
		} else {
			fmt.Fprintln(&out, err)
		}
		fmt.Fprintln(&out, "steps", thread.ExecutionSteps())
	}
	if got := out.String(); got != want {
		t.Errorf("got:\n%s\nupstream:\n%s", got, want)
	}
}
