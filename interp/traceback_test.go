package interp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func evalError(t *testing.T, src string) *starlark.EvalError {
	t.Helper()
	_, err := interp.New().ExecFile(context.Background(), "t.star", src)
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want an EvalError", err)
	}
	return ee
}

func TestBacktraceFoldsRecursion(t *testing.T) {
	ee := evalError(t, "def fact(n):\n    return n * fact(n - 1)\nfact(5)\n")
	bt := interp.Backtrace(ee)
	lines := strings.Split(bt, "\n")
	if len(lines) > interp.MaxTracebackLines+3 {
		t.Errorf("%d lines, want at most %d", len(lines), interp.MaxTracebackLines+3)
	}
	folded := len(ee.CallStack) - 2 - 3 // toplevel, the frame that failed, three shown
	want := "more calls of fact"
	if !strings.Contains(bt, want) || strings.Count(bt, "in fact") != 4 {
		t.Errorf("backtrace of %d frames does not fold %d calls of fact:\n%s", len(ee.CallStack), folded, bt)
	}
	if !strings.HasSuffix(bt, "Error: Starlark stack overflow") {
		t.Errorf("backtrace does not end with the error:\n%s", bt)
	}
}

func TestBacktraceFoldsMutualRecursion(t *testing.T) {
	ee := evalError(t, "def even(n):\n    return odd(n)\ndef odd(n):\n    return even(n)\neven(1)\n")
	bt := interp.Backtrace(ee)
	if !strings.Contains(bt, "more calls of even, odd") && !strings.Contains(bt, "more calls of odd, even") {
		t.Errorf("mutual recursion not folded:\n%s", bt)
	}
	if n := strings.Count(bt, "\n"); n > 20 {
		t.Errorf("%d lines:\n%s", n, bt)
	}
}

func TestBacktraceKeepsShortStacks(t *testing.T) {
	ee := evalError(t, "def f(x):\n    return 1 // x\nf(0)\n")
	if got, want := interp.Backtrace(ee), ee.Backtrace(); got != want {
		t.Errorf("Backtrace = %q, want go.starlark.net's %q", got, want)
	}
}

func TestBacktraceCapsDistinctFrames(t *testing.T) {
	file := "deep.star"
	var stack starlark.CallStack
	for i := range 1000 {
		stack = append(stack, starlark.CallFrame{Name: "f", Pos: syntax.MakePosition(&file, int32(i+1), 1)})
	}
	bt := interp.Backtrace(&starlark.EvalError{Msg: "boom", CallStack: stack})
	lines := strings.Split(bt, "\n")
	if len(lines) != interp.MaxTracebackLines+2 {
		t.Errorf("%d lines, want %d (header, frames, error)", len(lines), interp.MaxTracebackLines+2)
	}
	if !strings.Contains(bt, "… 901 more lines of the call stack") || !strings.Contains(bt, "deep.star:1000:1: in f") || !strings.Contains(bt, "deep.star:1:1: in f") {
		t.Errorf("cap lost the first or last frames or the count:\n%s", bt)
	}
}
