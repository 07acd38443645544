// bitsh fork: tests of predeclared and universal names looked up once per
// module (names.go; README.bitsh.md, change 36).

package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestNamesPerModule initializes one program twice with different
// predeclared values: each module reads its own, in top-level code and in
// a function, beside universal names; a name declared but without a value
// is reported where it is read, with its position, as before.
func TestNamesPerModule(t *testing.T) {
	const src = `
def f(x):
    return [k(x), len(str(x)), max(x, 3), type(k)]

r = f(5) + [k(1)]
`
	isPre := func(name string) bool { return name == "k" }
	_, prog, err := starlark.SourceProgramOptions(&syntax.FileOptions{}, "names.star", src, isPre)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, add int) starlark.StringDict {
		return starlark.StringDict{"k": starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			n, _ := starlark.AsInt32(args[0])
			return starlark.MakeInt(n + add), nil
		})}
	}
	for _, c := range []struct {
		pre  starlark.StringDict
		want string
	}{
		{mk("k1", 10), "[15, 1, 5, \"builtin_function_or_method\", 11]"},
		{mk("k2", 100), "[105, 1, 5, \"builtin_function_or_method\", 101]"},
	} {
		g, err := prog.Init(&starlark.Thread{}, c.pre)
		if err != nil {
			t.Fatal(err)
		}
		if got := g["r"].String(); got != c.want {
			t.Errorf("r = %s, want %s", got, c.want)
		}
	}

	// Declared at compile time, without a value at run time.
	_, err = prog.Init(&starlark.Thread{}, starlark.StringDict{"k": nil})
	if err == nil || !strings.Contains(err.Error(), "predeclared variable k is uninitialized") {
		t.Fatalf("err = %v, want the uninitialized predeclared k", err)
	}
	bt := err.(*starlark.EvalError).Backtrace()
	if !strings.Contains(bt, "names.star:3:") || !strings.Contains(bt, "names.star:5:") {
		t.Errorf("backtrace without the positions of the read and the call:\n%s", bt)
	}
}

// TestNamesREPLChunk: chunks executed with ExecREPLChunk (no predeclared
// environment) read universal names and the globals of earlier chunks.
func TestNamesREPLChunk(t *testing.T) {
	globals := starlark.StringDict{}
	thread := &starlark.Thread{}
	for _, chunk := range []string{"x = len([1, 2, 3])", "y = max(x, 7) + len('ab')"} {
		f, err := (&syntax.FileOptions{}).Parse("chunk.star", chunk, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := starlark.ExecREPLChunk(f, thread, globals); err != nil {
			t.Fatal(err)
		}
	}
	if got := globals["y"].String(); got != "9" {
		t.Errorf("y = %s, want 9", got)
	}
}
