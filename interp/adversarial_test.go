package interp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/internal/testscale"
	"github.com/bitsh/bitsh/interp"
)

// nestingBombs are inputs nested far past every limit, for each parser a
// script reaches: go.starlark.net's (brackets, unary operators, lambdas,
// conditionals, and the chains it builds in a loop: operators, calls,
// indexes, attributes) and json.decode's. Each used to exhaust the stack
// and kill the process, or must fail with the named error.
var nestingBombs = []struct {
	name, code, want string
}{
	{"brackets", "x = " + strings.Repeat("(", 1<<20) + "1" + strings.Repeat(")", 1<<20), "excessive nesting"},
	{"lists", "x = " + strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20), "excessive nesting"},
	{"unary minus", "x = " + strings.Repeat("-", 1<<20) + "1", "excessive nesting"},
	{"not", "x = " + strings.Repeat("not ", 1<<18) + "1", "excessive nesting"},
	{"lambdas", "x = " + strings.Repeat("lambda: ", 1<<17) + "1", "excessive nesting"},
	{"conditionals", "x = " + strings.Repeat("1 if 1 else ", 1<<17) + "1", "excessive nesting"},
	{"additions", "x = 1" + strings.Repeat("+1", interp.MaxNesting+100), "nested more than"},
	{"calls", "x = f" + strings.Repeat("()", interp.MaxNesting+100), "nested more than"},
	{"indexes", "x = a" + strings.Repeat("[0]", interp.MaxNesting+100), "nested more than"},
	{"attributes", "x = a" + strings.Repeat(".b", interp.MaxNesting+100), "nested more than"},
	{"json.decode arrays", `x = json.decode("` + strings.Repeat("[", 1<<22) + strings.Repeat("]", 1<<22) + `")`, "nested more than 1000 deep"},
	{"json.decode objects", `x = json.decode("` + strings.Repeat(`{\"a\":`, 1<<18) + `1` + strings.Repeat("}", 1<<18) + `")`, "nested more than 1000 deep"},
}

// TestNestingBombs runs every bomb through each way in (ExecFile, Exec,
// ExecInteractive, and Eval for expressions; only Exec at the short scale
// of internal/testscale) and
// wants its error.
func TestNestingBombs(t *testing.T) {
	ctx := context.Background()
	for _, b := range nestingBombs {
		in := interp.New(interp.WithStdout(io.Discard))
		expr := strings.TrimPrefix(b.code, "x = ")
		ways := map[string]func() error{
			"ExecFile":        func() error { _, err := in.ExecFile(ctx, "bomb.star", b.code); return err },
			"Exec":            func() error { _, err := in.Exec(ctx, "<bomb>", b.code); return err },
			"ExecInteractive": func() error { return in.ExecInteractive(ctx, "<bomb>", b.code, nil) },
			"Eval":            func() error { _, err := in.Eval(ctx, expr); return err },
		}
		for way, run := range ways {
			if testscale.Short() && way != "Exec" {
				continue // all four share the parse and check; Exec stands for them
			}
			err := run()
			if err == nil || !strings.Contains(err.Error(), b.want) {
				t.Errorf("%s of %s: %v, want an error with %q", way, b.name, firstLine(err), b.want)
			}
		}
	}
	// Just under the limits, code and JSON still run.
	in := interp.New(interp.WithStdout(io.Discard))
	for _, code := range []string{
		"x = 1" + strings.Repeat("+1", interp.MaxNesting/2-10),
		`x = json.decode("` + strings.Repeat("[", builtins.MaxJSONDepth) + strings.Repeat("]", builtins.MaxJSONDepth) + `")`,
	} {
		if _, err := in.Exec(context.Background(), "<ok>", code); err != nil {
			t.Errorf("%.40s…: %v", code, err)
		}
	}
	if v, err := in.Eval(context.Background(), "json.decode('[\"[[[\", {\"k\": \"}}\"}]')"); err != nil || v.String() != `["[[[", {"k": "}}"}]` {
		t.Errorf("brackets inside JSON strings: %v, %v", v, err)
	}
}

func firstLine(err error) string {
	if err == nil {
		return "no error"
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Sprintf("%.200s", line)
}

// TestLoadChain loads a chain of MaxLoadDepth+100 files, each loading
// the next: it must fail at the limit with a short message (a chain of
// 8,000 files failing at its end took 13 s and printed 223 KB).
func TestLoadChain(t *testing.T) {
	dir := t.TempDir()
	n := interp.MaxLoadDepth + 100
	for i := range n {
		src := fmt.Sprintf("load(\"m%d.star\", \"x\")\n", i+1)
		if i == n-1 {
			src = "x = 1\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.star", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := interp.New(interp.WithStdout(io.Discard))
	_, err := in.ExecFile(context.Background(), filepath.Join(dir, "m0.star"), nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("loads nested more than %d deep", interp.MaxLoadDepth)) {
		t.Fatalf("got %v, want the load depth limit", firstLine(err))
	}
	if len(err.Error()) > 200<<10 {
		t.Errorf("the message has %d bytes", len(err.Error()))
	}
}

// An if/elif chain past MaxNesting (each elif nests in the else before it)
// says so: it used to be reported as an expression, "a chain of operators".
func TestElifChainTooDeep(t *testing.T) {
	var b strings.Builder
	b.WriteString("x = 5\nif x == 0:\n    y = 0\n")
	for i := 1; i <= interp.MaxNesting+10; i++ {
		fmt.Fprintf(&b, "elif x == %d:\n    y = %d\n", i, i)
	}
	_, err := interp.New(interp.WithStdout(io.Discard)).Exec(context.Background(), "elif.star", b.String())
	if err == nil || !strings.Contains(err.Error(), "if/elif chain nested more than") {
		t.Errorf("elif chain: %v, want an error that names an if/elif chain", firstLine(err))
	}
}
