package interp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// TestFuseFindsREPLInputs: REPL inputs share the name <stdin> and often
// put their lambdas at the same line and column; fuse must compile the
// right one.
func TestFuseFindsREPLInputs(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	ctx := context.Background()
	for _, src := range []string{"f = lambda s: s + 1", "g = lambda s: s * 2", "h = lambda s: s * 2 + 1", "print(fuse(f)(3), fuse(g)(3), fuse(h)(3), fuse(lambda s: s - 1)(3))"} {
		if _, err := in.Exec(ctx, "<stdin>", src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	if got := out.String(); got != "4 6 7 2\n" {
		t.Errorf("output %q, want %q", got, "4 6 7 2\n")
	}
}

// sessionInputs are REPL sessions whose fused lambdas read names of earlier
// inputs, or of their own, and one whose earlier input put a lambda at the
// same line and column.
var sessionInputs = [][]string{
	{"fuse(lambda s: s * 2)(4)", "H = 3", "fuse(lambda s: s * H)(4)"},
	{"K = 11", "print(fuse(lambda s: s * K)(4))"},
	{"K = 11; print(fuse(lambda s: s * K)(4))"},
	{"def g(x):\n    return x + 1\n", "fuse(lambda s: g(s))(4)", "fuse(lambda s: g(g(s)) * 2)(4)"},
	{"popcount = lambda x: 42", "fuse(lambda s: popcount(s))(7)"},
}

// TestFuseSessionAsInterpreted: each session prints, with its lambdas
// fused, what it prints with fuse replaced by the lambda itself (the
// interpreter's answer), whether its inputs are named <stdin:N>, as the
// REPL names them, or all <stdin>, as an embedder may.
func TestFuseSessionAsInterpreted(t *testing.T) {
	run := func(inputs []string, fused, numbered bool) string {
		var out strings.Builder
		in := interp.New(interp.WithStdout(&out))
		if !fused {
			if err := interactive(t, in, &out, "fuse = lambda f: f"); err != nil {
				t.Fatal(err)
			}
		}
		for i, src := range inputs {
			name := "<stdin>"
			if numbered {
				name = fmt.Sprintf("<stdin:%d>", i+1)
			}
			err := in.ExecInteractive(context.Background(), name, src, func(v starlark.Value) {
				out.WriteString("echo " + v.String() + "\n")
			})
			if err != nil {
				fmt.Fprintf(&out, "error: %s\n", backtrace(err))
			}
		}
		return out.String()
	}
	for _, inputs := range sessionInputs {
		want := run(inputs, false, true)
		if strings.Contains(want, "error") {
			t.Fatalf("%q interpreted: %s", inputs, want)
		}
		for _, numbered := range []bool{true, false} {
			if got := run(inputs, true, numbered); got != want {
				t.Errorf("%q fused (inputs numbered: %v):\n%s\nwant\n%s", inputs, numbered, got, want)
			}
		}
	}
}
