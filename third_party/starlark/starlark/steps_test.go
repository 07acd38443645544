// bitsh fork: tests of the step count and step limit as the interpreter
// keeps them by runs of instructions (interp.go, README.bitsh.md).

package starlark_test

import (
	"fmt"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const stepsSrc = `
def f(x):
    return x * 2 + 1

def work(n):
    t = 0
    for i in range(n):
        if i % 3 == 0:
            t += f(i)
        else:
            t -= 1
    j = 0
    while j < n:
        j += 1
    return [x for x in range(n) if x & 1]
`

// TestStepsExactlyLinear checks that the step count of a program with
// loops, branches taken both ways, calls and a comprehension grows by the
// same number of steps for each 3 iterations: the runs of instructions
// are counted whole, whichever way they end.
func TestStepsExactlyLinear(t *testing.T) {
	opts := &syntax.FileOptions{While: true}
	thread := new(starlark.Thread)
	globals, err := starlark.ExecFileOptions(opts, thread, "steps.star", stepsSrc, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := func(n int) uint64 {
		s0 := thread.ExecutionSteps()
		if _, err := starlark.Call(thread, globals["work"], starlark.Tuple{starlark.MakeInt(n)}, nil); err != nil {
			t.Fatal(err)
		}
		return thread.ExecutionSteps() - s0
	}
	a, b, c := steps(300), steps(600), steps(900)
	if b-a != c-b || b <= a {
		t.Errorf("steps for 300, 600, 900 iterations: %d, %d, %d, not linear", a, b, c)
	}
	// 300 iterations of three loops, one call every third iteration: at
	// least one step per instruction of each.
	if d := b - a; d < 300*(3+3+3) {
		t.Errorf("300 iterations took %d steps", d)
	}
}

// TestStepLimitStopsRunaways checks that a step limit stops an endless
// while loop, a for loop over a huge range, and a loop of calls, soon
// after the limit (within one run of instructions).
func TestStepLimitStopsRunaways(t *testing.T) {
	for _, src := range []string{
		"x = 0\nwhile True:\n    x += 1\n",
		"for i in range(1 << 40):\n    pass\n",
		"def g(x):\n    return x + 1\nx = 0\nwhile True:\n    x = g(x)\n",
		"def h():\n    return [i for i in range(1 << 40)]\nh()\n",
	} {
		thread := new(starlark.Thread)
		thread.SetMaxExecutionSteps(10000)
		_, err := starlark.ExecFileOptions(&syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true}, thread, "runaway.star", src, nil)
		if fmt.Sprint(err) != "Starlark computation cancelled: too many steps" {
			t.Errorf("%q: got %v, want too many steps", src, err)
		}
		if s := thread.ExecutionSteps(); s < 10000 || s > 10000+50 {
			t.Errorf("%q: stopped after %d steps, limit 10000", src, s)
		}
	}
}

// TestCancelStopsRunaway checks that a cancellation from another goroutine
// stops an endless loop.
func TestCancelStopsRunaway(t *testing.T) {
	thread := new(starlark.Thread)
	go func() {
		time.Sleep(10 * time.Millisecond)
		thread.Cancel("enough")
	}()
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true}, thread, "spin.star", "x = 0\nwhile True:\n    x += 1\n", nil)
	if fmt.Sprint(err) != "Starlark computation cancelled: enough" {
		t.Errorf("got %v, want the cancellation", err)
	}
}

const stepsUpstreamSrc = `
def f(x):
    return x * 2 + 1

def g(xs, n):
    for x in xs:
        if x == n:
            return x
        if x > 100:
            break
        elif x & 1:
            continue
    return -1

def work(n):
    t = 0
    for i in range(n):
        if i % 3 == 0:
            t += f(i)
        elif i % 5 == 1 and i > 2 or i == 7:
            t -= 1
        else:
            t = t ^ g([1, 2, i, 200], i)
    j = 0
    while j < n:
        j += 1
        if j > 50:
            break
    d = {k: k * 2 for k in range(n) if k % 2}
    s = [x for x in range(n) if x & 1 and not x % 3]
    return t + len(d) + len(s) + (1 if t else 0)

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def bad(n):
    x = [1, 2]
    return x[n]

r1 = work(100)
r2 = fib(12)
`

// TestStepsAsUpstream checks the step count of a program with loops left
// by break, continue and return, branches taken both ways, and/or,
// comprehensions, calls and recursion, and of a call that fails, against
// the counts go.starlark.net v0.0.0-20260908191801-89a6a09411d5 gives for
// the same program (counted once per instruction executed).
func TestStepsAsUpstream(t *testing.T) {
	opts := &syntax.FileOptions{While: true, Recursion: true, TopLevelControl: true}
	thread := new(starlark.Thread)
	globals, err := starlark.ExecFileOptions(opts, thread, "steps.star", stepsUpstreamSrc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := thread.ExecutionSteps(); got != 16078 {
		t.Errorf("steps = %d, upstream 16078", got)
	}
	s0 := thread.ExecutionSteps()
	_, err = starlark.Call(thread, globals["bad"], starlark.Tuple{starlark.MakeInt(5)}, nil)
	if got := thread.ExecutionSteps() - s0; err == nil || got != 7 {
		t.Errorf("bad(5): %d steps, error %v; upstream 7 steps and an error", got, err)
	}
}
