package builtins

import (
	"context"
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeWaitBudget: a function's code that is ready is taken at once
// and costs the budget nothing; code that never comes is waited for
// beyond nativeWait only while the thread's nativeWaitBudget lasts, after
// which each offer gives up after nativeWait and the budget stays spent.
func TestNativeWaitBudget(t *testing.T) {
	thread := &starlark.Thread{Name: "wait"}
	SetEnv(thread, Env{Context: context.Background()})
	e := envOf(thread)
	done := make(chan struct{})
	close(done)
	if !waitCode(thread, done) || e.waited != 0 {
		t.Fatalf("ready code: came %v, waited %v; want true, 0", waitCode(thread, done), e.waited)
	}
	never := make(chan struct{})
	offers := 0
	for e.waited < nativeWaitBudget {
		if waitCode(thread, never) {
			t.Fatal("code that never comes came")
		}
		if offers++; offers > int(nativeWaitBudget/nativeWait)+1 {
			t.Fatalf("%d offers waited %v in all beyond nativeWait; want the budget, %v, spent by then", offers, e.waited, nativeWaitBudget)
		}
	}
	// Each long wait is at least nativeWaitLong (the timer fires no
	// sooner), so the budget is spent within its ratio of offers.
	if most := int(nativeWaitBudget/nativeWaitLong) + 1; offers > most {
		t.Errorf("%d offers spent the budget; want at most %d (each waits up to %v)", offers, most, nativeWaitLong)
	}
	spent := e.waited
	if waitCode(thread, never) {
		t.Fatal("code that never comes came")
	}
	if !waitCode(thread, done) {
		t.Fatal("ready code did not come once the budget was spent")
	}
	if e.waited < spent {
		t.Errorf("waited %v after %v: the budget came back", e.waited, spent)
	}
	// A thread without bitsh's environment waits nativeWait, and counts
	// nothing.
	if waitCode(&starlark.Thread{}, never) {
		t.Fatal("code that never comes came")
	}
}
