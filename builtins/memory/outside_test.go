package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/memory"
)

// TestCheckCountsOutside: a request that fits beside the heap is refused
// once memory held outside the heap (machine code, workers) takes the
// room, and granted again when it is given back.
func TestCheckCountsOutside(t *testing.T) {
	limit := memory.HeapBytes() + 64<<20
	b := memory.NewBudget(limit)
	if err := b.Check("f", 16<<20); err != nil {
		t.Fatalf("16M beside the heap: %v", err)
	}
	memory.AddOutside(56 << 20)
	b = memory.NewBudget(limit)
	err := b.Check("f", 16<<20)
	memory.AddOutside(-56 << 20)
	if err == nil || !strings.Contains(err.Error(), "f: memory limit of") {
		t.Errorf("16M with 56M held outside the heap: %v; want the budget's error", err)
	}
	b = memory.NewBudget(limit)
	if err := b.Check("f", 16<<20); err != nil {
		t.Errorf("16M once given back: %v", err)
	}
}

// TestWatchCountsOutside: the watchdog stops a run whose heap is small
// when the memory held outside it passes the budget.
func TestWatchCountsOutside(t *testing.T) {
	limit := memory.HeapBytes() + 32<<20
	ctx, stop := memory.Watch(context.Background(), limit)
	defer stop()
	memory.AddOutside(2 * limit)
	defer memory.AddOutside(-2 * limit)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second): // a bound on a hang, not a measurement
		t.Fatal("the watchdog did not stop the run")
	}
	var le *memory.LimitError
	if !errors.As(context.Cause(ctx), &le) || le.Limit != limit {
		t.Errorf("cause %v; want a *memory.LimitError of %d", context.Cause(ctx), limit)
	}
}
