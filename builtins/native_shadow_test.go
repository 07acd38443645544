package builtins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// diffRun is what a script leaves that a program can see: what it
// printed and its error with the traceback; and, for a run with the hook,
// the report of its functions.
type diffRun struct {
	out, err string
	funcs    []NativeFunc
}

// runDiff runs src as name, interpreted or with the native hook, each
// call of a function whose code is being generated waiting for it.
func runDiff(t *testing.T, name, src string, interpreted bool) diffRun {
	t.Helper()
	var out strings.Builder
	thread := &starlark.Thread{Name: "diff", Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }}
	stats := NewNativeStats()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	SetEnv(thread, Env{Sources: testSources{name: src}, Context: ctx, Interpreted: interpreted, NativeStats: stats, waitForCode: true})
	_, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, name, src, Predeclared())
	r := diffRun{out: out.String(), funcs: stats.Funcs()}
	if err != nil {
		r.err = err.Error()
		var ee *starlark.EvalError
		if errors.As(err, &ee) {
			r.err = ee.Backtrace()
		}
	}
	return r
}

// requireNative skips a test (or a benchmark) where no function runs as
// machine code.
func requireNative(t testing.TB) {
	t.Helper()
	starlarkfork.Require(t, "the native hook", forkOffers())
	needAMD64(t)
}

// diffScript runs src interpreted and with the hook, fails where what
// they leave differs, and returns the run with the hook.
func diffScript(t *testing.T, name, src string) diffRun {
	t.Helper()
	want := runDiff(t, name, src, true)
	got := runDiff(t, name, src, false)
	if got.out != want.out || got.err != want.err {
		t.Errorf("%s: with the hook:\n%s%s\ninterpreted:\n%s%s\nscript:\n%s", name, got.out, got.err, want.out, want.err, src)
	}
	return got
}

// shadowUse is how a function uses a predeclared name: a statement of
// the loop body (i the loop variable, xs a list of three ints, s the
// sum), and the values that rebind the name: a module global's right-hand
// side (or a def of it), and a local's or a parameter's value.
type shadowUse struct {
	name   string
	use    string   // statements of the loop's body, each on a line
	values []string // what a global, a local or a parameter is bound to
	interp bool     // the use, not rebound, stays interpreted
}

var shadowUses = []shadowUse{
	{"True", "s += i if True else 2 * i", []string{"0", "5", "False", "None"}, false},
	{"False", "if not False:\n    s += i\ns += 1 if False else 2", []string{"1", "True", "0"}, false},
	{"None", "s += 2 if None else 3", []string{"1", "0"}, true},
	{"len", "s += len(xs)", []string{"3", "abs", "sorted"}, false},
	{"range", "for j in range(i):\n    s += j", []string{"reversed", "3"}, false},
	{"abs", "s += abs(i - 2)", []string{"len", "-2"}, false},
	{"min", "s += min(i, 2)", []string{"max", "1"}, false},
	{"max", "s += max(i, 2)", []string{"min", "1"}, false},
	{"sorted", "for x in sorted(xs):\n    s = s * 2 + x", []string{"reversed", "list", "0"}, false},
	{"print", "print(i)", []string{"len", "str", "0"}, false},
	{"bool", "s += 1 if bool(i % 2) else 0", []string{"int", "abs"}, false},
	{"sum", "s += sum(xs)", []string{"len", "max", "7"}, false},
	{"any", "s += 1 if any([i > 1, False]) else 0", []string{"all", "len"}, false},
	{"all", "s += 1 if all([i > 1, True]) else 0", []string{"any", "len"}, false},
	{"enumerate", "for j, x in enumerate(xs):\n    s += j * x", []string{"zip", "sorted"}, false},
	{"zip", "for a, b in zip(xs, xs):\n    s += a * b", []string{"enumerate"}, false},
	{"reversed", "for x in reversed(xs):\n    s = s * 2 + x", []string{"sorted", "list"}, false},
	{"list", "ys = list(xs)\nfor x in ys:\n    s = s * 2 + x", []string{"sorted", "reversed"}, false},
	{"set", "s += len(set(xs))", []string{"sorted", "list"}, false},
	{"dict", "d = dict()\nd[i] = 1\ns += len(d)", []string{"list", "set"}, false},
	{"divmod", "q, r = divmod(i + 5, 3)\ns += q * r", []string{"max", "zip"}, false},
	{"int", "s += int(i)", []string{"abs", "len"}, true},
	{"hash", "s += hash(str(i)) & 7", []string{"len"}, true},
	{"str", "s += len(str(i))", []string{"repr", "bin"}, true},
}

// shadowScript writes a script whose function f uses u.name, which where
// is: "global" (the module binds it to value), "def" (the module defines a
// function of that name), "late" (the module binds it after f's calls),
// "local" (f binds it to value first), "param" (f takes it, passed value)
// or "" (not rebound: Starlark's own).
func shadowScript(u shadowUse, where, value string) string {
	var b strings.Builder
	switch where {
	case "global":
		fmt.Fprintf(&b, "%s = %s\n", u.name, value)
	case "def":
		fmt.Fprintf(&b, "def %s(*args):\n    return 7\n", u.name)
	}
	param, arg := "", ""
	if where == "param" {
		param, arg = ", "+u.name, ", "+value
	}
	fmt.Fprintf(&b, "def f(n%s):\n", param)
	if where == "local" {
		fmt.Fprintf(&b, "    %s = %s\n", u.name, value)
	}
	b.WriteString("    xs = [3, 1, 2]\n    s = 0\n    for i in range(n):\n")
	for _, line := range strings.Split(u.use, "\n") {
		b.WriteString("        " + line + "\n")
	}
	b.WriteString("    return s\n")
	fmt.Fprintf(&b, "for k in range(4):\n    print(f(k%s))\n", arg)
	if where == "late" {
		fmt.Fprintf(&b, "%s = %s\n", u.name, value)
	}
	return b.String()
}

// TestNativeShadowedNames: a function that uses a predeclared name the
// script rebinds (True, False, None, len, range, abs, min, max, sorted,
// print...), as a module global, a def, a global bound after the calls,
// a local or a parameter, gives the interpreter's answer (output, error,
// traceback), whether it runs as code or not; and each name not rebound
// runs as code.
func TestNativeShadowedNames(t *testing.T) {
	requireNative(t)
	for _, u := range shadowUses {
		plain := diffScript(t, u.name+".star", shadowScript(u, "", ""))
		if !u.interp && (len(plain.funcs) == 0 || plain.funcs[0].Code == 0) {
			t.Errorf("%s: f, not rebound, did not run as code: %+v", u.name, plain.funcs)
		}
		diffScript(t, u.name+"_def.star", shadowScript(u, "def", ""))
		for i, v := range u.values {
			for _, where := range []string{"global", "late", "local", "param"} {
				diffScript(t, fmt.Sprintf("%s_%s%d.star", u.name, where, i), shadowScript(u, where, v))
			}
		}
	}
}
