package builtins

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// runNative runs src on a fresh thread, with the native hook (code) or
// without it, and returns the value of its global result (or the run's
// error) and the steps the interpreter took.
func runNative(t *testing.T, src string, code bool) (string, uint64) {
	t.Helper()
	thread := &starlark.Thread{Name: "fallback"}
	SetEnv(thread, Env{Sources: testSources{"fallback.star": src}, Context: context.Background(), Interpreted: !code, waitForCode: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "fallback.star", src, Predeclared())
	if err != nil {
		msg := err.Error()
		if ev, ok := err.(*starlark.EvalError); ok {
			msg = ev.Msg
		}
		return "error: " + msg, thread.ExecutionSteps()
	}
	return g["result"].String(), thread.ExecutionSteps()
}

// depthScript defines r, which recurses n deep, r2, which recurses
// through an inlined helper (two frames a level), and t, which mixes calls
// in tail position with others; deep calls them k frames down. deep takes
// a string, so that its own calls stay interpreted.
const depthScript = `
def r(n):
    if n == 0:
        return 7
    return r(n - 1) + 0

def h(n):
    return r2(n - 1) + 0

def r2(n):
    if n == 0:
        return 7
    return h(n)

def t(n):
    if n == 0:
        return 7
    if n % 20 != 0:
        return t(n - 1)
    x = t(n - 1)
    return x

def deep(k, f, n, tag):
    if k == 0:
        return f(n)
    return deep(k - 1, f, n, tag)

for i in range(1100):
    r(3)
    r2(3)
    t(3)
`

// TestNativeDepthIsTheInterpreters: the calls a function's code may nest
// are those the interpreter has left (its 100,000 frames less those in
// use): where the interpreter overflows its stack, the code gives the call
// back and the interpreter fails as it does; one frame short of it, the
// code runs the call.
func TestNativeDepthIsTheInterpreters(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	// Frames at r(n) called k deep from the top level: the module's, k+1
	// of deep, n+1 of r (2n+1 of r2 and h); the interpreter allows
	// 100,000.
	const k = 95000
	const rMax = starlarkDepth - 1 - (k + 1) - 1 // r(rMax) fits exactly
	const r2Max = (starlarkDepth - 1 - (k + 1) - 1) / 2
	cases := []struct {
		f     string
		k, n  int
		fails bool
		coded bool // the code runs it (the interpreter's steps are few)
	}{
		{"r", k, 9000, true, false},
		{"r", k, rMax + 1, true, false},
		{"r", k, rMax, false, true},
		{"r2", k, r2Max + 1, true, false},
		{"r2", k, r2Max, false, true},
		{"t", 0, 100500, true, false},
		{"t", 0, 9000, false, true},
		{"r", 99990, 8, true, false},
		{"r", 99990, 7, false, false},
	}
	for _, c := range cases {
		call := func(n int) string {
			return fmt.Sprintf("%sresult = deep(%d, %s, %d, 'x')\n", depthScript, c.k, c.f, n)
		}
		want, plainSteps := runNative(t, call(c.n), false)
		got, steps := runNative(t, call(c.n), true)
		if got != want {
			t.Errorf("%s(%d) %d deep = %s with code, %s interpreted", c.f, c.n, c.k, got, want)
		}
		if failed := strings.Contains(want, "Starlark stack overflow"); failed != c.fails {
			t.Errorf("%s(%d) %d deep interpreted: %s; want it to fail %v", c.f, c.n, c.k, want, c.fails)
		}
		if !c.coded {
			continue
		}
		// deep's own calls are interpreted either way; the recursion
		// of r, r2 or t takes thousands of steps unless it ran as code.
		_, base := runNative(t, call(0), true)
		if steps > base+(plainSteps-base)/4 {
			t.Errorf("%s(%d) %d deep: %d steps with code, %d interpreted (%d for n = 0): the code did not run it", c.f, c.n, c.k, steps, plainSteps, base)
		}
	}
}

// recordingHook installs on thread a hook that compiles as nativeHook does,
// waits for the machine code, and records each function's nativeFunc, and
// in tried["name off"] the calls of its code made once it was off.
func recordingHook(t *testing.T, thread *starlark.Thread) (map[string]*nativeFunc, map[string]int) {
	t.Helper()
	got, tried := map[string]*nativeFunc{}, map[string]int{}
	thread.SetLocal(nativeKey, func(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
		nf, _, err := compileNative(thread, fn, args, nil, nil, false)
		if err != nil {
			return nil
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			return nil
		}
		got[fn.Name()] = nf
		return func(thread *starlark.Thread, args starlark.Tuple) (starlark.Value, bool) {
			if nf.off.Load() {
				tried[fn.Name()+" off"]++
			}
			return nf.call(thread, args)
		}
	})
	return got, tried
}

// TestNativeGivesUpNestedFallbacks: a recursion whose calls fail as code
// deep inside (an argument below 0 at its leaves), run again by the
// interpreter, whose calls of the function try the code again, is given
// up whatever its shape: a tree whose successful runs are as many as its
// failures (t), a chain whose successful runs outnumber them eight to one
// (c). The answers are the interpreter's.
func TestNativeGivesUpNestedFallbacks(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
def t(n):
    if n <= 0:
        return 1
    return t(n - 1) + t(n - 2)

def c(n):
    if n <= 0:
        return 1
    s = 0
    for i in range(8):
        s += c(0)
    if n == 1:
        return s + c(n - 2)
    return s + c(n - 1)

def q(n):
    if n <= 0:
        return 1
    return q(n - 1) + q(n - 1)

warm = [t(2) for i in range(1100)] + [q(2) for i in range(1100)]
result = (t(22), c(300), c(300), q(12))
`
	thread := &starlark.Thread{Name: "giveup"}
	SetEnv(thread, Env{Sources: testSources{"giveup.star": src}, Context: context.Background()})
	nfs, tried := recordingHook(t, thread)
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "giveup.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runNative(t, src, false)
	if got := g["result"].String(); got != want {
		t.Errorf("result = %s with code, %s interpreted", got, want)
	}
	for _, name := range []string{"t", "c"} {
		nf := nfs[name]
		if nf == nil {
			t.Fatalf("%s was not compiled", name)
		}
		if !nf.off.Load() {
			t.Errorf("%s: still tried after %d fallbacks and %d runs (work wasted %d, useful %d)",
				name, nf.fails.Load(), nf.runs.Load(), nf.giveUp.wasted.Load(), nf.giveUp.useful.Load())
		}
		// Given up, the function's form is dropped: the first call
		// that finds the code off says so, and no later one tries it.
		if n := tried[name+" off"]; n > 1 {
			t.Errorf("%s: its code was called %d times once off; want 1 at most", name, n)
		}
		if f := nf.fails.Load(); f > 1000 {
			t.Errorf("%s: %d fallbacks before it was given up; want fewer than 1000", name, f)
		}
	}
	// A recursion whose calls succeed stays code.
	if nf := nfs["q"]; nf == nil || nf.off.Load() || nf.fails.Load() != 0 {
		t.Errorf("q: given up, or failed, where every call succeeds")
	}
}

// TestNativeGivesUpChangedTable: a function reading a global list that
// changes before each call is left to the interpreter after a few calls,
// instead of comparing the whole list at every call; one whose list
// stays as it was runs as code (a list of 1000 words, below timedWords:
// its calls are not timed, so that a loaded machine's clock cannot give
// it up for its conversions).
func TestNativeGivesUpChangedTable(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
T = list(range(10000))
U = list(range(1000))
def f(x):
    s = 0
    for i in range(20000):
        s += T[(x + i) % 10000]
    return s
def g(x):
    s = 0
    for i in range(20000):
        s += U[(x + i) % 1000]
    return s
s = 0
for i in range(100):
    T[9999] = i
    s += f(i) + g(i)
result = s
`
	thread := &starlark.Thread{Name: "table"}
	SetEnv(thread, Env{Sources: testSources{"table.star": src}, Context: context.Background()})
	nfs, tried := recordingHook(t, thread)
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "table.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runNative(t, src, false)
	if got := g["result"].String(); got != want {
		t.Errorf("result = %s with code, %s interpreted", got, want)
	}
	f, gf := nfs["f"], nfs["g"]
	if f == nil || gf == nil {
		t.Fatal("f or g was not compiled")
	}
	if c := f.giveUp.tableChanged.Load(); !f.off.Load() || c > 16 {
		t.Errorf("f: %d calls with T changed, code still tried %v; want it given up after a few", c, !f.off.Load())
	}
	if n := tried["f off"]; n > 1 {
		t.Errorf("f: its code was called %d times once off; want 1 at most", n)
	}
	if gf.off.Load() || gf.runs.Load() != 100 {
		t.Errorf("g: off %v (%v), %d runs as code; want all 100", gf.off.Load(), offWhy(gf), gf.runs.Load())
	}
}

// TestNativeRebindGivesUp: a function reading a global rebound before
// each of its calls is compiled again after the first few rebindings
// only (the fork's nativeDrops), then interpreted, with the interpreter's
// answers.
func TestNativeRebindGivesUp(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
G = 0
def f(n):
    t = 0
    for i in range(n):
        t += G
    return t
s = 0
for i in range(200):
    G = i
    s += f(3)
result = s
`
	thread := &starlark.Thread{Name: "rebind"}
	SetEnv(thread, Env{Sources: testSources{"rebind.star": src}, Context: context.Background()})
	compiles := 0
	thread.SetLocal(nativeKey, func(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
		compiles++
		return nativeHook(thread, fn, args)
	})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "rebind.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runNative(t, src, false)
	if got := g["result"].String(); got != want {
		t.Errorf("result = %s with code, %s interpreted", got, want)
	}
	if compiles < 1 || compiles > 4 {
		t.Errorf("f compiled %d times for 200 rebindings of G; want 1 to 4", compiles)
	}
}

// offWhy is why nf's code was switched off ("" where it is not).
func offWhy(nf *nativeFunc) string {
	if w := nf.offWhy.Load(); w != nil {
		return *w
	}
	return ""
}
