package builtins_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/interp/tooling"
	"go.starlark.net/starlark"
)

// checkRefuses are fused functions that fuse refuses, which bitsh check
// must refuse too.
var checkRefuses = []fusescript.Case{
	{Name: "print", Src: "\ndef f(x):\n    print(x)\n    return x\n"},
	{Name: "string", Src: "\ndef f(x):\n    return len(\"abc\") + x\n"},
	{Name: "len_of_word", Src: "\ndef f(x):\n    return len(x)\n"},
	{Name: "len_of_flat_row", Src: "\nT = [1, 2, 3]\ndef f(x):\n    return len(T[x])\n"},
	{Name: "dict", Src: "\ndef f(x):\n    d = {}\n    return x\n"},
}

// checkVerdict returns the message of bitsh check's first fuse
// diagnostic of src, or "".
func checkVerdict(name string, src []byte) string {
	for _, d := range tooling.NewChecker().Check(name, src) {
		if strings.Contains(d.Message, "fuse:") {
			return d.Message
		}
	}
	return ""
}

// TestCheckAgreesWithRun: over the construct cases of fused functions
// (and functions fuse refuses), bitsh check refuses a function exactly
// where fuse(f) in a run does, with the same message; over the examples,
// which run (their tests compare their output), it refuses none.
func TestCheckAgreesWithRun(t *testing.T) {
	cases := append(append(append([]fusescript.Case{}, fusescript.Constructs...), fusescript.Recursive...), checkRefuses...)
	// The run's rows, filled after the def, not seen by check: it must
	// accept what the run accepts.
	cases = append(cases, fusescript.Case{Name: "rows_appended", Src: `
T = []
for i in range(3):
    T.append([i] * (i + 1))
def f(i):
    return len(T[i % 3]) + T[i % 3][0]
`})
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			src := c.Src + "\ng = fuse(f)\n"
			in := interp.New(interp.WithStdout(io.Discard))
			_, err := in.ExecFile(context.Background(), "case.star", src)
			run := ""
			if err != nil {
				var ee *starlark.EvalError
				if !errors.As(err, &ee) || !strings.HasPrefix(ee.Msg, "fuse: ") {
					t.Fatalf("run: %v", err)
				}
				run = ee.Msg
			}
			check := checkVerdict("case.star", []byte(src))
			if check != run {
				t.Errorf("bitsh check says %q, the run %q", check, run)
			}
		})
	}
	examples, err := filepath.Glob("../examples/*.star")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, name := range examples {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "fuse(") {
			continue
		}
		if msg := checkVerdict(name, b); msg != "" {
			t.Errorf("%s: bitsh check says %q; the example runs", name, msg)
		}
	}
}
