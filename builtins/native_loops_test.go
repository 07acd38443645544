package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// loopOutcome is what a script leaves that a program can see: what it
// printed, its globals, and its error with the traceback.
type loopOutcome struct {
	out, globals, err string
	loops             []NativeFunc // the report's loops (native runs only)
}

// runLoops runs src as loops.star, interpreted or with the hooks; strict
// (bitsh -native-strict) waits for each loop's code.
func runLoops(t *testing.T, src string, interpreted, strict bool) loopOutcome {
	t.Helper()
	var out strings.Builder
	thread := &starlark.Thread{Name: "loops", Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }}
	stats := NewNativeStats()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	SetEnv(thread, Env{Sources: testSources{"loops.star": src}, Context: ctx, Interpreted: interpreted, NativeStats: stats, NativeStrict: strict})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "loops.star", src, Predeclared())
	var o loopOutcome
	o.out = out.String()
	if err != nil {
		o.err = err.Error()
		var ee *starlark.EvalError
		if errors.As(err, &ee) {
			o.err = ee.Backtrace()
		}
	}
	var names []string
	for name := range g {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		if _, isFunc := g[name].(*starlark.Function); !isFunc {
			fmt.Fprintf(&b, "%s = %s (%s)\n", name, g[name], g[name].Type())
		}
	}
	o.globals = b.String()
	for _, f := range stats.Funcs() {
		if f.Loop {
			o.loops = append(o.loops, f)
		}
	}
	return o
}

// needAMD64 skips t where this machine runs no x86-64 code.
func needAMD64(t testing.TB) {
	t.Helper()
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
}

// diffLoops runs src interpreted and with the hooks (strict: waiting for
// the loops' code) and fails where what they leave differs; it returns
// the native run's outcome.
func diffLoops(t *testing.T, src string, strict bool) loopOutcome {
	t.Helper()
	want := runLoops(t, src, true, false)
	got := runLoops(t, src, false, strict)
	if got.out != want.out || got.globals != want.globals || got.err != want.err {
		t.Fatalf("with native loops:\n%s%s%s\ninterpreted:\n%s%s%s\nscript:\n%s", got.out, got.globals, got.err, want.out, want.globals, want.err, src)
	}
	return got
}

// forkOffersLoops reports whether go.starlark.net offers a hot loop of
// top-level code to a hook under nativeLoopKey (bitsh's fork does).
func forkOffersLoops() bool {
	offered := false
	thread := &starlark.Thread{}
	thread.SetLocal(nativeKey, nativeHook)
	thread.SetLocal(nativeLoopKey, func(*starlark.Thread, *starlark.Function, syntax.Position, []string) func(*starlark.Thread, []starlark.Value, starlark.Tuple) (bool, int) {
		offered = true
		return nil
	})
	_, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "probe.star", "i = 0\nwhile i < 2000:\n    i += 1\n", nil)
	return err == nil && offered
}

func requireLoops(t *testing.T) {
	t.Helper()
	starlarkfork.Require(t, "the native loop hook", forkOffersLoops())
	needAMD64(t)
}

// TestNativeLoops: hot loops of top-level code leave what the interpreter
// leaves (output, globals, errors and tracebacks), and the report says
// which ran as code.
func TestNativeLoops(t *testing.T) {
	requireLoops(t)
	cases := []struct {
		name, src string
		code      bool   // the loop runs as code (at least once)
		refused   string // or is refused, saying this
		why       string // a reason the report gives for back edges in the interpreter
	}{
		{"gosper", `
n = 0
x = (1 << 6) - 1
limit = 1 << 20
while x < limit:
    if x & (x >> 1) == 0:
        n += 1
    c = x & -x
    r = x + c
    x = (((r ^ x) >> 2) // c) | r
print(n)
`, true, "", ""},
		{"for range, break, continue, the variable after", `
s = 0
for i in range(5000):
    if i % 7 == 3:
        continue
    s += i * i
    if s > 10000000000:
        break
print(s, i)
`, true, "", ""},
		{"a range down to -1", `
t = 0
for j in range(4000, -1, -1):
    t = t ^ (j * 2654435761) & 0xffffffff
`, true, "", ""},
		{"a range with a step", `
t = 0
for j in range(3, 30000, 7):
    t += j
`, true, "", ""},
		{"inner while in an outer for", `
tot = 0
for a in range(900):
    b = a
    while b > 0:
        tot += b & 1
        b >>= 1
`, true, "", ""},
		{"past the words: the interpreter goes on", `
x = 1
k = 0
while k < 1100:
    x = (x * 3 + 1) % 1000000007
    k += 1
y = 1
while k < 3000:
    y = y * 3
    k += 1
`, true, "", ""},
		{"an error in the loop: the interpreter's, with its traceback", `
t = [0] * 8
i = 0
while i < 5000:
    t[i // 600] += 1
    i += 1
`, false, "", ""},
		{"an error in a function the loop calls", `
def pick(t, i):
    return t[i]
t = [5] * 10
i = 0
s = 0
while i < 5000:
    s += pick(t, i // 400)
    i += 1
`, false, "", ""},
		{"a division by zero", `
i = 3000
s = 0
while True:
    s += 1000000 // i
    i -= 1
`, false, "", ""},
		{"a function reading a global the loop assigns", `
def twice():
    return 2 * n
n = 0
s = 0
while n < 3000:
    s += twice()
    n += 1
`, false, "is a global the loop assigns", ""},
		{"a function calling one that reads a global the loop assigns", `
def inner():
    return n & 7
def outer(x):
    return x + inner()
n = 0
s = 0
while n < 3000:
    s += outer(n)
    n += 1
`, false, "is a global the loop assigns", ""},
		{"a list of the module written and read", `
counts = [0] * 16
i = 0
while i < 4000:
    counts[(i * 7) % 16] += i
    i += 1
`, true, "", ""},
		{"a global read as a bool", `
flag = True
i = 0
s = 0
while i < 3000:
    if flag:
        s += i
    i += 1
`, true, "", ""},
		{"a global bool assigned True: run as code", `
found = False
m = 0
while m < 5000:
    if m == 4321:
        found = True
        break
    m += 1
`, true, "", ""},
		{"a global bool assigned an int: refused", `
found = False
m = 0
while m < 5000:
    if m == 4321:
        found = 1
        break
    m += 1
`, false, "holds a bool", ""},
		{"a negative global: the interpreter", `
d = -3
i = 0
s = 0
while i < 3000:
    s += i
    i += 1
`, true, "", ""},
		{"a sentinel -1 at the offer, words later: compiled then", `
best = -1
i = 0
while i < 30000:
    if i > 1500:
        best = i ^ 5
    i += 1
`, true, "", ""},
		{"an inner loop of few iterations: given up", `
s = 0
i = 0
while i < 30000:
    j = 0
    while j < 3:
        s += j * i
        j += 1
    i += 1
    if i == 0:
        print(i)
`, true, "", "its runs as code were short"},
		{"an inner loop of many iterations: kept", `
s = 0
i = 0
while i < 3000:
    j = 0
    while j < 30:
        s += j * i
        j += 1
    i += 1
    if i == 0:
        print(i)
`, true, "", ""},
		{"prints in the loop, then a failure: each line once", `
i = 0
y = 1
while i < 3000:
    if i % 500 == 0:
        print(i, y)
    if i == 2500:
        y = y << 70
    y = y | 1
    i += 1
print(y)
`, false, "", "an int beyond 64 bits"},
		{"a string in the loop: refused", `
s = ""
i = 0
while i < 3000:
    s = s + "x"
    i += 1
`, false, "s", ""},
		{"a loop entered many times, a global it reads rebound", `
def f(x):
    return x + 1
def g(x):
    return x + 2
h = f
s = 0
for r in range(40):
    if r == 20:
        h = g
    k = 0
    while k < 100:
        s += h(k)
        k += 1
`, true, "", ""},
		{"a for over a list: not offered", `
l = list(range(3000))
s = 0
for v in l:
    s += v
`, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := diffLoops(t, c.src, true)
			var code int64
			var refused, whys []string
			for _, f := range got.loops {
				code += f.Code
				if f.Refused != "" {
					refused = append(refused, f.Refused)
				}
				for _, r := range f.Reasons {
					whys = append(whys, r.Why)
				}
			}
			if c.why != "" && !strings.Contains(strings.Join(whys, "\n"), c.why) {
				t.Errorf("reasons %q, want %q", whys, c.why)
			}
			if c.code && code == 0 {
				t.Errorf("no loop ran as code: %+v", got.loops)
			}
			if !c.code && code > 0 {
				t.Errorf("a loop ran as code: %+v", got.loops)
			}
			if c.refused != "" && !strings.Contains(strings.Join(refused, "\n"), c.refused) {
				t.Errorf("refused %q, want %q", refused, c.refused)
			}
		})
	}
}

// TestNativeLoopsInterpreted: without the hook (bitsh -interpret) no loop
// is offered.
func TestNativeLoopsInterpreted(t *testing.T) {
	requireLoops(t)
	o := runLoops(t, "i = 0\nwhile i < 5000:\n    i += 1\n", true, false)
	if len(o.loops) != 0 {
		t.Errorf("interpreted: %+v", o.loops)
	}
}

// TestNativeLoopsReport: the report names a loop by its position.
func TestNativeLoopsReport(t *testing.T) {
	requireLoops(t)
	src := "n = 0\ni = 0\nwhile i < 5000:\n    n += i & 3\n    i += 1\n"
	var out strings.Builder
	thread := &starlark.Thread{Name: "loops"}
	stats := NewNativeStats()
	SetEnv(thread, Env{Sources: testSources{"loops.star": src}, Context: context.Background(), NativeStats: stats, NativeStrict: true})
	if _, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "loops.star", src, Predeclared()); err != nil {
		t.Fatal(err)
	}
	if err := stats.WriteReport(&out); err != nil {
		t.Fatal(err)
	}
	want := "native: <toplevel loop> (loops.star:3:1): machine code, 1 run as code, 0 back edges in the interpreter\n"
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}

// randomLoops writes a random script whose top level loops over words:
// globals a, b, c, d, while loops on counters and for loops over ranges
// (some down to -1), nested, with break and continue, arithmetic that may
// leave the words (a subtraction, a product, a shift), division and
// modulo that may divide by zero, a global list written and read (at an
// index that may be out of range), another appended to, calls of
// functions that read a global no loop assigns, or one they assign, and
// prints.
func randomLoops(r *rand.Rand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "a = %d\nb = %d\nc = %d\nd = %d\nt = [0] * 8\nout = []\nK = %d\n", r.IntN(100), r.IntN(1000), r.IntN(7), r.IntN(1<<20), r.IntN(1<<16))
	// hk reads a global no loop assigns; ha one the loops assign (a
	// loop that calls it stays interpreted).
	b.WriteString("def hk(x):\n    return (x ^ K) & 0xffff\n\ndef ha(x):\n    return (x + a) & 0xffff\n\n")
	vars := []string{"a", "b", "c", "d"}
	counter := 0
	expr := func(loopVars []string) string {
		names := append(append([]string(nil), vars...), loopVars...)
		v := func() string {
			if r.IntN(4) == 0 {
				return fmt.Sprint(r.IntN(64))
			}
			return names[r.IntN(len(names))]
		}
		switch r.IntN(12) {
		case 0:
			return v() + " - " + v()
		case 1:
			return "(" + v() + " * " + v() + ") & 0xffffffff"
		case 2:
			return v() + " << (" + v() + " & 7)"
		case 3:
			return v() + " // (" + v() + " & 3)"
		case 4:
			return v() + " % 1000003"
		case 5:
			return "t[" + v() + " & 7]"
		case 6:
			return v() + " ^ " + v()
		case 7:
			return v() + " >> 3"
		case 8:
			return "popcount(" + v() + ")"
		case 9:
			return "hk(" + v() + ")"
		case 10:
			switch r.IntN(8) {
			case 0:
				return "ha(" + v() + ")"
			case 1:
				return "t[" + v() + " % 9]" // (index 8: the interpreter's error)
			}
			return "t[" + v() + " & 7]"
		}
		return v() + " + " + v()
	}
	var block func(ind string, depth int, loopVars []string, inLoop bool)
	// loop writes a for loop over a range or a while loop on a counter.
	loop := func(ind string, depth int, loopVars []string) {
		trips := 800 + r.IntN(2400) // the iterations of a loop: a loop inside one makes fewer
		if depth > 0 {
			trips = 40
		}
		counter++
		if r.IntN(2) == 0 {
			i := fmt.Sprintf("k%d", counter)
			fmt.Fprintf(&b, "%s%s = 0\n%swhile %s < %d:\n%s    %s += 1\n", ind, i, ind, i, r.IntN(trips), ind, i)
			block(ind+"    ", depth+1, append(loopVars, i), true)
			return
		}
		i := fmt.Sprintf("i%d", counter)
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "%sfor %s in range(%d):\n", ind, i, r.IntN(trips))
		case 1:
			fmt.Fprintf(&b, "%sfor %s in range(%d, -1, -1):\n", ind, i, r.IntN(trips))
		default:
			fmt.Fprintf(&b, "%sfor %s in range(%d, %d, %d):\n", ind, i, r.IntN(10), r.IntN(2*trips), 1+r.IntN(2))
		}
		block(ind+"    ", depth+1, append(loopVars, i), true)
	}
	stmt := func(ind string, depth int, loopVars []string, inLoop bool) {
		switch k := r.IntN(10); {
		case k < 4:
			fmt.Fprintf(&b, "%s%s = %s\n", ind, vars[r.IntN(len(vars))], expr(loopVars))
		case k == 4 && r.IntN(3) == 0:
			fmt.Fprintf(&b, "%sif len(out) < 5000:\n%s    out.append(%s & 0xff)\n", ind, ind, expr(loopVars))
		case k == 4:
			fmt.Fprintf(&b, "%st[%s & 7] = %s & 0xffff\n", ind, expr(loopVars), expr(loopVars))
		case k == 5 && inLoop:
			kw := "break"
			if r.IntN(2) == 0 {
				kw = "continue"
			}
			fmt.Fprintf(&b, "%sif %s == %d:\n%s    %s\n", ind, expr(loopVars), r.IntN(5), ind, kw)
		case k == 6:
			fmt.Fprintf(&b, "%sif %s > %s:\n", ind, expr(loopVars), expr(loopVars))
			block(ind+"    ", depth+1, loopVars, inLoop)
			fmt.Fprintf(&b, "%selse:\n", ind)
			block(ind+"    ", depth+1, loopVars, inLoop)
		case (k == 7 || k == 8) && depth < 2:
			loop(ind, depth, loopVars)
		case k == 9 && r.IntN(3) == 0:
			fmt.Fprintf(&b, "%sif (%s) %% 61 == 0:\n%s    print(a, b, c, d)\n", ind, expr(loopVars), ind)
		default:
			fmt.Fprintf(&b, "%s%s += %s\n", ind, vars[r.IntN(len(vars))], expr(loopVars))
		}
	}
	block = func(ind string, depth int, loopVars []string, inLoop bool) {
		for range 1 + r.IntN(3) {
			stmt(ind, depth, loopVars, inLoop)
		}
	}
	for range 1 + r.IntN(3) {
		stmt("", 0, nil, false)
	}
	loop("", 0, nil)
	return b.String()
}

// TestNativeLoopsRandom: random scripts of top-level loops leave, with
// their loops run as code, what the interpreter leaves: their globals,
// and their errors with the traceback.
func TestNativeLoopsRandom(t *testing.T) {
	requireLoops(t)
	n := 1000
	if testscale.Short() {
		n = 100
	}
	var code, loops, refused int64
	for seed := range uint64(n) {
		src := randomLoops(rand.New(rand.NewPCG(seed, 0x100b)))
		// Not strict: a function a loop calls may stay interpreted.
		got := diffLoops(t, src, false)
		for _, f := range got.loops {
			loops++
			code += f.Code
			if f.Refused != "" {
				refused++
			}
		}
	}
	t.Logf("%d scripts: %d loops offered (%d refused), %d runs as code", n, loops, refused, code)
	if code < int64(n)/4 {
		t.Errorf("%d runs as code in %d scripts: the test tests little", code, n)
	}
}
