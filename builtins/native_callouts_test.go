package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// calloutHelpers are the helpers the random functions of calloutFunc call:
// none of them compiles (strings, a dict of tuples, fail, print), so each
// stays interpreted where the code may leave it so; their results are
// ints, bools, ints beyond the words, negative ints and None, and one of
// them appends to a module's list, which no code may call out.
const calloutHelpers = `LOG = []
T = {(1, 2): 3, (0, 0): 7, (2, 4): 11}

def name_len(x):
    return len("v" + str(x))

def digits(x):
    return int(str(x)[::-1][:3])

def big(x):
    return x * x * x * 1000003

def minus(x):
    return 50 - x

def odd(x):
    return str(x)[-1] in "13579"

def nothing(x):
    return None

def check(x):
    if x % 97 == 13:
        fail("bad " + str(x))
    return x % 7

def say(x):
    print("say", str(x), hex(x))

def look(x):
    return T.get((x % 3, x % 5), 0)

def push(x):
    LOG.append(x)

def spin(x):
    n = 0
    for i in range(x % 50):
        n += len(str(i))
    return n

def deep(x):
    return name_len(x) + look(x)

def words(x):
    parts = []
    for i in range(x % 4):
        parts.append(str(i))
    return len(",".join(parts))

def pick(flag, v):
    return v + 1 if flag else v % 1000

def tag(x):
    return "t" + str(x % 10) + ("!" if x % 3 == 0 else "")

def rec(n, x):
    if n == 0:
        return name_len(x)
    if x % 5 == 0:
        say(x)
    return rec(n - 1, x + 1) + look(x)

`

// calloutFunc writes a random f(x, y) that calls calloutHelpers: for their
// results, as conditions and as statements, among code that prints,
// overflows, divides by zero and calls fail; push only in one function of
// 16.
func calloutFunc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(calloutHelpers)
	b.WriteString("def f(x, y):\n    s = 0\n    for i in range(3):\n")
	calloutStmts(r, &b, "        ")
	b.WriteString("    return s\n")
	return b.String()
}

// calloutStmts writes calloutFunc's random statements, indented by ind0,
// on x, y, i and s.
func calloutStmts(r *rand.Rand, b *strings.Builder, ind0 string) {
	e := func() string {
		opts := []string{"x", "y", "i", "s", "(x + i)", "(y ^ i)", "7", "(x % 100)", "(s & 0xfff)"}
		return opts[r.IntN(len(opts))]
	}
	push := r.IntN(16) == 0
	for n := 2 + r.IntN(6); n > 0; n-- {
		ind := ind0
		if r.IntN(4) == 0 {
			fmt.Fprintf(b, "%sif %s > %s:\n", ind, e(), e())
			ind += "    "
		}
		switch k := r.IntN(22); k {
		case 0, 1:
			fmt.Fprintf(b, "%ss += name_len(%s)\n", ind, e())
		case 2:
			fmt.Fprintf(b, "%ss += digits(%s)\n", ind, e())
		case 3:
			fmt.Fprintf(b, "%ss += big(%s) %% 1000\n", ind, e())
		case 4:
			fmt.Fprintf(b, "%ss += minus(%s)\n", ind, e())
		case 5:
			fmt.Fprintf(b, "%sif odd(%s):\n%s    s += 1\n", ind, e(), ind)
		case 6:
			if r.IntN(4) == 0 {
				fmt.Fprintf(b, "%ss += nothing(%s)\n", ind, e())
			} else {
				fmt.Fprintf(b, "%ss += look(%s)\n", ind, e())
			}
		case 7:
			fmt.Fprintf(b, "%ss += check(%s)\n", ind, e())
		case 8:
			fmt.Fprintf(b, "%ssay(%s)\n", ind, e())
		case 9:
			if push {
				fmt.Fprintf(b, "%spush(%s)\n", ind, e())
			} else {
				fmt.Fprintf(b, "%ss += spin(%s)\n", ind, e())
			}
		case 10:
			fmt.Fprintf(b, "%ss += deep(%s) + words(%s)\n", ind, e(), e())
		case 11:
			fmt.Fprintf(b, "%ss += pick(%s > %s, %s)\n", ind, e(), e(), e())
		case 12:
			fmt.Fprintf(b, "%sprint(\"f\", s, %s)\n", ind, e())
		case 13:
			fmt.Fprintf(b, "%ss = s * %s\n", ind, e())
		case 14:
			fmt.Fprintf(b, "%ss += %s // (y %% 3)\n", ind, e())
		case 15:
			fmt.Fprintf(b, "%ss += look(name_len(%s) + %s)\n", ind, e(), e())
		case 16:
			fmt.Fprintf(b, "%ss += rec(i %% 4, %s)\n", ind, e())
		case 18:
			fmt.Fprintf(b, "%sprint(\"g\", tag(%s), s, hex(%s), \"%%s/%%r/%%s\" %% (tag(%s), tag(%s), str(%s)), sep=\":\")\n", ind, e(), e(), e(), e(), e())
		case 19:
			fmt.Fprintf(b, "%sprint(\"h\", %s // (y %% 3), tag(%s), rec(i %% 4, %s), tag(%s))\n", ind, e(), e(), e(), e())
		case 17:
			fmt.Fprintf(b, "%sif %s %% 13 == 5:\n%s    fail(\"f: \" + str(s) + hex(x))\n", ind, e(), ind)
		default:
			fmt.Fprintf(b, "%ss += %s\n", ind, e())
		}
	}
}

// calloutRun is a module of calloutFunc's run, interpreted or with the
// hook, its lines printed and its native report.
type calloutRun struct {
	fn     *starlark.Function
	thread *starlark.Thread
	lines  *[]string
	log    *starlark.List
	stats  *NativeStats
}

func newCalloutRun(t *testing.T, src string, interpreted bool) calloutRun {
	t.Helper()
	var lines []string
	thread := &starlark.Thread{Name: "callouts", Print: func(_ *starlark.Thread, s string) { lines = append(lines, s) }}
	stats := NewNativeStats()
	SetEnv(thread, Env{Sources: testSources{"callouts.star": src}, Context: context.Background(), Interpreted: interpreted, NativeStats: stats, waitForCode: !interpreted})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "callouts.star", src, Predeclared())
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	log, _ := g["LOG"].(*starlark.List)
	if log == nil {
		log = starlark.NewList(nil)
	}
	return calloutRun{fn: g["f"].(*starlark.Function), thread: thread, lines: &lines, log: log, stats: stats}
}

// outcome is a call's result, or its error with the interpreter's
// traceback, and what the run printed and logged up to it.
func (c calloutRun) outcome(args starlark.Tuple) string {
	v, err := starlark.Call(c.thread, c.fn, args, nil)
	var out string
	var ee *starlark.EvalError
	switch {
	case errors.As(err, &ee):
		out = "error: " + ee.Backtrace()
	case err != nil:
		out = "error: " + err.Error()
	default:
		out = v.Type() + " " + v.String()
	}
	return fmt.Sprintf("%s\nprinted %q\nlog %v", out, *c.lines, c.log)
}

// TestNativeCalloutsRandom: random functions that call helpers the
// compiler cannot take (calloutFunc), run through the fork's hook, give
// the interpreter's results, errors and tracebacks (the helpers' frames
// among them), print its lines and leave its module's list, call after
// call; and their code calls those helpers in the interpreter.
func TestNativeCalloutsRandom(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	n := 120
	if testscale.Short() {
		n = 40
	}
	if os.Getenv("BITSH_SLOW") != "" {
		n = 3000
	}
	vals := []uint64{0, 1, 2, 5, 13, 97 + 13, 255, 1000, 1 << 32, 1<<63 + 5, 1<<64 - 1}
	var code, interp, callouts, refused int64
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xca11))
		src := calloutFunc(r)
		want, got := newCalloutRun(t, src, true), newCalloutRun(t, src, false)
		for k := range 24 {
			in := rand.New(rand.NewPCG(seed, uint64(k)))
			args := func() starlark.Tuple {
				var a starlark.Tuple
				for range 2 {
					if in.IntN(12) == 0 {
						a = append(a, starlark.MakeInt(-3))
					} else {
						a = append(a, starlark.MakeUint64(vals[in.IntN(len(vals))]))
					}
				}
				return a
			}()
			w, g := want.outcome(args), got.outcome(args)
			if w != g {
				t.Fatalf("seed %d call %d: f%v\nthrough the hook: %s\ninterpreted: %s\n%s", seed, k, args, g, w, src)
			}
		}
		for _, f := range got.stats.Funcs() {
			if f.Name != "f" {
				continue
			}
			code += f.Code
			interp += f.Interpreted
			if f.Refused != "" {
				refused++
				if refused < 6 {
					t.Logf("seed %d: %s", seed, f.Refused)
				}
			}
			for _, c := range f.Callouts {
				callouts += c.Calls
			}
		}
	}
	t.Logf("%d functions (%d refused): %d calls as code, %d by the interpreter, %d calls of helpers from code", n, refused, code, interp, callouts)
	if code < int64(4*n) || callouts < int64(4*n) {
		t.Errorf("%d calls as code, %d calls of helpers from code: the test tests little", code, callouts)
	}
}

// TestNativeCalloutsRefused: code leaves to the interpreter only helpers
// that change nothing but their own values; a helper that appends to a
// module's list, or one that reads a list the code writes, keeps its
// caller interpreted (with the translation's reason).
func TestNativeCalloutsRefused(t *testing.T) {
	needAMD64(t)
	cases := []struct{ src, want string }{
		{"LOG = []\ndef h(x):\n    LOG.append(str(x))\n    return 1\ndef f(x):\n    return h(x) + x\n", "LOG"},
		{"G = [1, 2]\ndef h(x):\n    return len(str(G[0] + x))\ndef f(p, x):\n    p[0] = x\n    return h(x)\n", "reads a list, dict or set of its module"},
		{"G = [1, 2]\ndef h(x):\n    return len(str(G[0] + x))\ndef f(p, x):\n    return h(x) + p[0]\n", ""},
		{"def h(x):\n    d = {}\n    d[str(x)] = 1\n    return len(d)\ndef f(x):\n    return h(x) + x\n", ""},
		{"def h(x):\n    a = [str(x)]\n    a.append(\"y\")\n    return len(a)\ndef f(x):\n    return h(x) + x\n", ""},
		{"B = [[1]]\ndef h(x):\n    a = B[0]\n    a.append(str(x))\n    return 1\ndef f(x):\n    return h(x) + x\n", ".append"},
		{"def h(x):\n    return random(x) + len(str(x))\ndef f(x):\n    return h(x) + x\n", "random"},
		{"def h(x):\n    def g():\n        return str(x)\n    return len(g())\ndef f(x):\n    return h(x) + x\n", "def"},
		{"G = [3, 1]\ndef h(x):\n    return len(sorted([str(x), \"a\"], key=G.append))\ndef f(x):\n    return h(x) + x\n", ".append"},
		{"G = [3, 1]\ndef k(v):\n    G.append(v)\n    return v\ndef h(x):\n    return len(sorted([str(x), \"a\"], key=k))\ndef f(x):\n    return h(x) + x\n", "it takes k"},
		{"G = [3, 1]\ndef h(x):\n    for G[0] in range(x):\n        pass\n    return len(str(x))\ndef f(x):\n    return h(x) + x\n", "element"},
		{"G = [3, 1]\ndef h(x):\n    a, G[1] = 1, str(x)\n    return len(str(x))\ndef f(x):\n    return h(x) + x\n", "element"},
		{"def h(x):\n    return len(sorted([str(x), \"ab\"], key=len))\ndef f(x):\n    return h(x) + x\n", ""},
	}
	for i, c := range cases {
		run := newCalloutRun(t, c.src, false)
		var args starlark.Tuple // (f(x), or f(p, x) of a list p)
		if run.fn.NumParams() == 2 {
			args = starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(1)}), starlark.MakeInt(2)}
		}
		_, _, err := compileNative(run.thread, run.fn, args, nil, nil, true)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v\n%s", i, err, c.src)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: %v, want an error with %q\n%s", i, err, c.want, c.src)
		}
	}
}

// TestNativeCalloutsCancel: a run cancelled while a helper the code left
// to the interpreter loops stops there (the interpreter's step checks the
// thread), and the call ends with the cancellation.
func TestNativeCalloutsCancel(t *testing.T) {
	needAMD64(t)
	src := "def spin(x):\n    n = 0\n    while n >= 0:\n        n += len(str(x))\n    return n\n" +
		"def f(x):\n    s = 0\n    for i in range(3):\n        s += spin(x + i)\n    return s\n"
	run := newCalloutRun(t, src, false)
	nf, err := compileWait(run.thread, run.fn)
	if err != nil {
		t.Fatal(err)
	}
	var cancelled atomic.Bool
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancelled.Store(true)
		run.thread.Cancel("interrupted")
	}()
	done := make(chan bool)
	go func() {
		_, ok := nf.call(run.thread, starlark.Tuple{starlark.MakeInt(3)})
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok || !cancelled.Load() {
			t.Fatalf("the run ended (as code: %v) before it was cancelled", ok)
		}
	case <-time.After(time.Minute): // (a hang, not a time measured)
		t.Fatal("the cancelled run did not stop")
	}
	if c := nf.fails.Load(); c != 1 {
		t.Errorf("%d runs failed, want the one cancelled", c)
	}
}

// TestNativeCalloutsRandomLoops: calloutFunc's statements in a hot loop
// at a script's top level, lifted and run as code once hot, give the
// interpreter's output, error and traceback, and final globals.
func TestNativeCalloutsRandomLoops(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	n := 40
	if testscale.Short() {
		n = 12
	}
	if os.Getenv("BITSH_SLOW") != "" {
		n = 600
	}
	var runs, callouts int64
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x100b))
		var b strings.Builder
		b.WriteString(calloutHelpers)
		fmt.Fprintf(&b, "x = %d\ny = %d\ns = 0\ni = 0\nwhile i < 1500:\n", r.IntN(300), r.IntN(300))
		calloutStmts(r, &b, "    ")
		b.WriteString("    s = s & 0xffffffff\n    i += 1\n")
		src := b.String()
		outcome := func(interpreted bool) (string, *NativeStats) {
			var lines []string
			thread := &starlark.Thread{Name: "loops", Print: func(_ *starlark.Thread, s string) { lines = append(lines, s) }}
			stats := NewNativeStats()
			SetEnv(thread, Env{Sources: testSources{"loops.star": src}, Context: context.Background(), Interpreted: interpreted, NativeStats: stats, waitForCode: !interpreted})
			g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "loops.star", src, Predeclared())
			out := fmt.Sprintf("s %v i %v log %v", g["s"], g["i"], g["LOG"])
			var ee *starlark.EvalError
			if errors.As(err, &ee) {
				out = "error: " + ee.Backtrace()
			} else if err != nil {
				out = "error: " + err.Error()
			}
			return fmt.Sprintf("%s\nprinted %q", out, lines), stats
		}
		want, _ := outcome(true)
		got, stats := outcome(false)
		if got != want {
			t.Fatalf("seed %d: through the hook\n%s\ninterpreted\n%s\n%s", seed, got, want, src)
		}
		for _, f := range stats.Funcs() {
			if f.Loop {
				runs += f.Code
				for _, c := range f.Callouts {
					callouts += c.Calls
				}
				if os.Getenv("CALLOUT_DEBUG") != "" {
					t.Logf("seed %d: %+v", seed, f)
				}
			}
		}
	}
	t.Logf("%d scripts: %d runs of loops as code, %d calls of helpers from them", n, runs, callouts)
	if runs == 0 || callouts == 0 {
		t.Errorf("%d runs as code, %d calls of helpers: the test tests little", runs, callouts)
	}
}
