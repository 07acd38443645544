package interp_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// interactive runs src with ExecInteractive and returns what print and
// the echoes wrote, in order, one item a line.
func interactive(t *testing.T, in *interp.Interp, out *strings.Builder, src string) error {
	t.Helper()
	return in.ExecInteractive(context.Background(), "<stdin>", src, func(v starlark.Value) {
		out.WriteString("echo " + v.String() + "\n")
	})
}

func TestExecInteractiveEchoesEveryExpression(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	err := interactive(t, in, &out, "t0 = 10; print('run'); 1 + 1; None; t0 * 3\n")
	if err != nil {
		t.Fatal(backtrace(err))
	}
	if got, want := out.String(), "run\necho 2\necho 30\n"; got != want {
		t.Errorf("output %q; want %q", got, want)
	}
	// _ is the last echoed value, and None does not replace it.
	out.Reset()
	if err := interactive(t, in, &out, "None\n_ + 1\n_\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	if got, want := out.String(), "echo 31\necho 31\n"; got != want {
		t.Errorf("output %q; want %q", got, want)
	}
	// Echoes before an error are kept; the error stops the input.
	out.Reset()
	err = interactive(t, in, &out, "5\n1 // 0\n6\n")
	if err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("err = %v; want division by zero", err)
	}
	if got := out.String(); got != "echo 5\n" {
		t.Errorf("output %q; want the echo of 5 only", got)
	}
	// A def and a load in one input bind for later inputs.
	out.Reset()
	if err := interactive(t, in, &out, "load('@stdlib/assert.star', 'assert')\ndef sq(x):\n    return x * x\n\nsq(7)\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	if err := interactive(t, in, &out, "assert.eq(sq(3), 9); sq(4)\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	if got := out.String(); got != "echo 49\necho 16\n" {
		t.Errorf("output %q", got)
	}
}

func TestDir(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	src := "x = 1\ndef f(a):\n    b = 2\n    return dir()\n\nf(0)\n"
	if err := interactive(t, in, &out, src); err != nil {
		t.Fatal(backtrace(err))
	}
	if err := interactive(t, in, &out, "y = 2; dir()\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	if err := interactive(t, in, &out, `dir("")[:2]`+"\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	want := `echo ["a", "b"]` + "\n" + `echo ["_", "f", "x", "y"]` + "\n" + `echo ["capitalize", "codepoint_ords"]` + "\n"
	if got := out.String(); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
	// In a script, the script's own globals.
	out.Reset()
	if _, err := in.ExecFile(context.Background(), "s.star", "z = 1\nprint(dir())\n"); err != nil {
		t.Fatal(backtrace(err))
	}
	if got := out.String(); got != "[\"z\"]\n" {
		t.Errorf("dir() in a script printed %q", got)
	}
}

func TestExit(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	for _, c := range []struct {
		src  string
		code int
	}{{"exit()", 0}, {"quit(3)", 3}, {"def f():\n    exit(7)\n\nf()", 7}} {
		err := interactive(t, in, &out, c.src+"\n")
		var ee *interp.ExitError
		if !errors.As(err, &ee) || ee.Code != c.code {
			t.Errorf("%q: err = %v; want an ExitError with code %d", c.src, err, c.code)
		}
	}
	_, err := in.ExecFile(context.Background(), "s.star", "print(1)\nexit(4)\nprint(2)\n")
	var ee *interp.ExitError
	if !errors.As(err, &ee) || ee.Code != 4 || out.String() != "1\n" {
		t.Errorf("script: err = %v, output %q; want code 4 after printing 1", err, out.String())
	}
	if err := interactive(t, in, &out, "exit(256)\n"); err == nil || !strings.Contains(err.Error(), "exit: code = 256 is out of range 0..255") {
		t.Errorf("exit(256): %v", err)
	}
}

func TestLoadNameNotFound(t *testing.T) {
	in := interp.New()
	_, err := in.Exec(context.Background(), "<stdin>", `load("@stdlib/board.star", "board")`)
	if err == nil {
		t.Fatal("load of board succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"name board not found in module @stdlib/board.star", "it exports diagram, images, names, numbering_diagram, side_by_side", "board is predeclared"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

// TestRandomPerInterpreter checks that each interpreter has its own
// generator, seeded 0, so parallel interpreters draw the same sequence.
func TestRandomPerInterpreter(t *testing.T) {
	draw := func() string {
		in := interp.New()
		v, err := in.Eval(context.Background(), "[random.word() for _ in range(50)]")
		if err != nil {
			t.Error(err)
			return ""
		}
		return v.String()
	}
	want := draw()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := draw(); got != want {
				t.Errorf("a parallel interpreter drew %.40s...; want %.40s...", got, want)
			}
		}()
	}
	wg.Wait()
	// The sequence goes on across runs of one interpreter.
	in := interp.New()
	a, _ := in.Eval(context.Background(), "random.word()")
	b, _ := in.Eval(context.Background(), "random.word()")
	if a.String() == b.String() {
		t.Errorf("two runs drew %v twice", a)
	}
}

// TestSessionCodeAsInterpreted: a session whose functions read names of
// earlier inputs (a constant rebound later, a builtin's name rebound), and
// whose hot plain functions run as machine code, prints what the same
// session prints with every function interpreted.
func TestSessionCodeAsInterpreted(t *testing.T) {
	inputs := []string{
		"K = 5",
		"popcount = lambda x: 42",
		"def g(x):\n    for i in range(2):\n        x += K\n    return x\n",
		"def f(x):\n    n = 0\n    for i in range(3):\n        n += popcount(x)\n    return n\n",
		"def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
		"a = [g(i) for i in range(1200)][-1]",
		"K = 7",
		"b = [g(i) for i in range(1200)][-1]",
		"def h(x):\n    for i in range(2):\n        x += K\n    return x\n",
		"c = [f(i) for i in range(1200)][-1]",
		"d = fib(20)",
		"e = [h(i) for i in range(1200)][-1]",
		"K = 9",
		"print(a, b, c, d, e, h(3), g(3))",
	}
	outs := map[bool]string{}
	for _, interpreted := range []bool{false, true} {
		var out strings.Builder
		in := interp.New(interp.WithStdout(&out), interp.WithInterpreted(interpreted))
		for _, src := range inputs {
			if err := interactive(t, in, &out, src); err != nil {
				t.Fatal(backtrace(err))
			}
		}
		outs[interpreted] = out.String()
	}
	if outs[false] != outs[true] {
		t.Errorf("with code: %q; interpreted: %q", outs[false], outs[true])
	}
	if !strings.Contains(outs[true], " 126 6765 ") {
		t.Errorf("interpreted: %q: popcount or fib is not the session's", outs[true])
	}
}

// syncBuffer is a strings.Builder safe for writes from other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNativeReport: WithNativeReport writes, at the end of ExecFile, which
// functions run as machine code, how many of their calls did, and why the
// others stay interpreted; WithInterpreted offers none.
func TestNativeReport(t *testing.T) {
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
st = [0]
def bump(x):
    for i in range(x):
        st[0] += i
    return st[0]
def neg(x):
    for i in range(3):
        x -= i
    return ~x
names = ["a", 0]
def label(x):
    for i in range(x):
        names[1] += i
    return names[1]
r = (fib(22), bump(10), neg(5), label(4))
`
	var report syncBuffer
	in := interp.New(interp.WithStdout(io.Discard), interp.WithNativeReport(&report))
	g, err := in.ExecFile(context.Background(), "report.star", src)
	if err != nil {
		t.Fatal(backtrace(err))
	}
	if got := g["r"].String(); got != "(17711, 45, -3, 6)" {
		t.Errorf("r = %s", got)
	}
	want := []string{
		"native: neg (report.star:9:1): interpreted, 1 call: not compiled: report.star:12:12: ~x of a word is a negative int",
		"native: bump (report.star:5:1): machine code, ", // a list of its module, written
		"native: label (report.star:14:1): interpreted, 1 call: not compiled: report.star:16:9: names is a list of other values than ints",
		"native: fib (report.star:2:1): machine code, ",
	}
	for _, w := range want {
		if !strings.Contains(report.String(), w) {
			t.Errorf("report %q lacks %q", report.String(), w)
		}
	}
	// fib is offered at its 1000th call, which runs as code (and its
	// calls within it) or, while the code is generated, interpreted.
	for _, f := range in.NativeReport() {
		if f.Name == "fib" && f.Code+f.Interpreted == 0 {
			t.Errorf("fib: no call counted")
		}
	}

	var none syncBuffer
	in = interp.New(interp.WithStdout(io.Discard), interp.WithNativeReport(&none), interp.WithInterpreted(true))
	if _, err := in.ExecFile(context.Background(), "report.star", src); err != nil {
		t.Fatal(backtrace(err))
	}
	if none.String() != "" {
		t.Errorf("interpreted, the report says %q", none.String())
	}
}

// TestNativeStrict: with WithNativeStrict, a function offered that is not
// compiled, or a call of one that goes back to the interpreter, fails the
// run with an error naming the function, the construct and its position,
// in the function's frame; functions that run as code, and those of
// @stdlib/ modules, do not.
func TestNativeStrict(t *testing.T) {
	starlarkfork.Require(t, "the native hook", forkOffers())
	const defs = `
load("@stdlib/assert.star", "assert")
def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
def neg(x):
    for i in range(3):
        x -= i
    return ~x
def square(x):
    for i in range(1):
        x = x * x
    return x
assert.eq(total([1, 2, 3]), 6)
assert.eq(square(3), 9)
`
	for _, c := range []struct{ name, src, want, frame string }{
		{"fine", "", "", ""},
		{"refused", "neg(5)", "native-strict: neg (strict.star:8:1): not compiled: strict.star:11:12: ~x of a word is a negative int", "in neg"},
		{"length", "total([1, 2])", "native-strict: total (strict.star:3:1): a call ran in the interpreter: argument xs a list of another length than 3", "in total"},
		{"keywords", "total(xs = [1, 2, 3])", "native-strict: total (strict.star:3:1): a call ran in the interpreter: a call with keyword arguments", "in total"},
		{"words", "square(1 << 40)", "native-strict: square (strict.star:12:1): a call ran in the interpreter: an int beyond 64 bits (*) at strict.star:14:13", "in square"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := interp.New(interp.WithStdout(io.Discard), interp.WithNativeStrict(true))
			_, err := in.ExecFile(context.Background(), "strict.star", defs+c.src+"\n")
			if c.want == "" {
				if err != nil {
					t.Fatal(backtrace(err))
				}
				return
			}
			var ee *starlark.EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("error %v, want a Starlark error", err)
			}
			if !strings.HasPrefix(ee.Msg, c.want) {
				t.Errorf("error %q, want %q", ee.Msg, c.want)
			}
			if bt := interp.Backtrace(ee); !strings.Contains(bt, c.frame) {
				t.Errorf("backtrace %q lacks %q", bt, c.frame)
			}
			// The same script without strict mode runs.
			in = interp.New(interp.WithStdout(io.Discard))
			if _, err := in.ExecFile(context.Background(), "strict.star", defs+c.src+"\n"); err != nil {
				t.Errorf("without strict mode: %v", backtrace(err))
			}
		})
	}
}

// TestNativeReportParallel: two interpreters running at once each report
// their own calls (run under -race by .ci/run).
func TestNativeReportParallel(t *testing.T) {
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
for i in range(N):
    total([1, 2])
`
	var wg sync.WaitGroup
	ins := make([]*interp.Interp, 2)
	for k := range ins {
		ins[k] = interp.New(interp.WithStdout(io.Discard), interp.WithNativeReport(io.Discard),
			interp.WithPredeclared(starlark.StringDict{"N": starlark.MakeInt(100 * (k + 1))}))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ins[k].ExecFile(context.Background(), "par.star", src); err != nil {
				t.Error(backtrace(err))
			}
		}()
	}
	wg.Wait()
	for k, in := range ins {
		fs := in.NativeReport()
		if len(fs) != 1 || fs[0].Code+fs[0].Interpreted != int64(100*(k+1)) {
			t.Errorf("interpreter %d: %+v, want total's %d calls", k, fs, 100*(k+1))
		}
	}
}

// forkOffers reports whether the go.starlark.net built in has the native
// hook of bitsh's fork (third_party/starlark/README.bitsh.md, change 15):
// a function with a loop is offered to it at its first call.
func forkOffers() bool {
	offered := false
	thread := &starlark.Thread{}
	thread.SetLocal("go.starlark.net/native", func(*starlark.Thread, *starlark.Function, starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
		offered = true
		return nil
	})
	const src = "def f(x):\n    for i in range(1):\n        x += i\n    return x\nf(1)\n"
	if _, err := starlark.ExecFileOptions(interp.FileOptions(), thread, "probe.star", src, nil); err != nil {
		return false
	}
	return offered
}

// TestNativeReportNested: the functions a nested def makes, one each time
// it runs, are one entry of the report.
func TestNativeReportNested(t *testing.T) {
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = `
def outer(n):
    def inner(x):
        s = 0
        for i in range(x):
            s += i
        return s
    return inner(n) + inner(n + 1)
r = [outer(i) for i in range(5)]
`
	in := interp.New(interp.WithStdout(io.Discard), interp.WithNativeReport(io.Discard))
	if _, err := in.ExecFile(context.Background(), "nested.star", src); err != nil {
		t.Fatal(backtrace(err))
	}
	fs := in.NativeReport()
	if len(fs) != 1 || fs[0].Name != "inner" || fs[0].Compiled != 5 || fs[0].Code+fs[0].Interpreted != 10 {
		t.Errorf("report %+v, want inner compiled 5 times, its 10 calls", fs)
	}
}
