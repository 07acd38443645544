package builtins_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// TestSumOfArraysUsesCallersRun makes word arrays on one thread and sums
// them on another, as a builtin's caller may (arrays kept from an earlier
// run, or made by an embedding program): the operators sum applies must
// check the budget of, and poll, the run that calls sum, not the run that
// made the arrays, which is not running (its operators then checked and
// polled nothing).
func TestSumOfArraysUsesCallersRun(t *testing.T) {
	prep := newThread(context.Background())
	env := builtins.Predeclared()
	a, err := starlark.Eval(prep, "<prep>", "words(range(1 << 22))", env)
	if err != nil {
		t.Fatal(err)
	}
	globals := starlark.StringDict{"sum": env["sum"], "a": a}

	// 32 MiB per sum (longer arrays than are deferred), under a budget of 16 MiB.
	th := newThread(context.Background())
	setMaxMemory(th, 16<<20)
	if _, err := starlark.Eval(th, "<test>", "sum([a], a)", globals); err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("sum([a], a) under a 16M budget: %v, want the memory limit's error", err)
	}

	// A cancelled run: sum polls between arrays only from the second
	// item on, so 0 + a is stopped by the operator's own poll.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	th = newThread(ctx)
	if _, err := starlark.Eval(th, "<test>", "sum([a], 0)", globals); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("sum([a], 0) in a cancelled run: %v, want the interruption error", err)
	}

	// Without a budget or a cancellation, the same sums.
	th = newThread(context.Background())
	v, err := starlark.Eval(th, "<test>", "sum([a, a], a)[5], sum([a], 0)[7]", globals)
	if err != nil || v.String() != "(15, 7)" {
		t.Errorf("sum([a, a], a)[5], sum([a], 0)[7] = %v, %v; want (15, 7)", v, err)
	}
}
