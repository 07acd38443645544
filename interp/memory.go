package interp

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/bitsh/bitsh/builtins"
)

// WithMaxMemory gives each run a memory budget of n bytes (0: none). A
// watchdog samples the heap every few milliseconds while the run lasts
// and cancels it with a *MemoryLimitError as cause when the heap goes over
// n; collecting builtins and word arrays refuse, before allocating, a
// result that would not fit (builtins.CheckAlloc).
//
// Go cannot attribute memory to a goroutine, so the budget bounds the
// whole process's heap: interpreters running in parallel each compare the
// same heap with their own budget. The option does not touch the garbage
// collector, which is process-wide; a program that sets
// debug.SetMemoryLimit(n) as well (the bitsh command does) makes the
// collector work harder as the heap nears the budget and lets the
// watchdog decide without collecting itself.
func WithMaxMemory(n int64) Option { return func(in *Interp) { in.maxMemory = max(n, 0) } }

// A MemoryLimitError is the cause of a run cancelled by its memory budget.
type MemoryLimitError struct {
	Limit int64 // the budget, in bytes
}

// Error says which budget was exceeded ("memory limit of 256M exceeded").
func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("memory limit of %s exceeded", builtins.FormatSize(e.Limit))
}

// watchInterval is how often the watchdog samples the heap: reading the
// metric costs about a microsecond, and at a few GB/s of allocation 5 ms
// lets the heap pass the budget by some tens of MB at most.
const watchInterval = 5 * time.Millisecond

// watchMemory returns ctx, cancelled with a *MemoryLimitError when the
// heap exceeds the budget, and the function that ends the watch.
func (in *Interp) watchMemory(ctx context.Context) (context.Context, func()) {
	limit := in.maxMemory
	if limit <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(watchInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if overBudget(limit) {
				cancel(&MemoryLimitError{Limit: limit})
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}

// overBudget reports whether the heap holds more live data than limit.
// Heap objects include garbage not yet collected. When the collector's
// soft limit (debug.SetMemoryLimit) is at or below the budget, it already
// collects as the heap nears the budget, so objects above the budget mean
// live data; otherwise the watchdog collects before deciding (only while
// the heap is over the budget, and never past half as much again).
func overBudget(limit int64) bool {
	objects := builtins.HeapBytes()
	if objects <= limit {
		return false
	}
	if debug.SetMemoryLimit(-1) <= limit || objects > limit/2*3 {
		return true
	}
	runtime.GC()
	return builtins.HeapBytes() > limit
}

// ParseSize reads a memory size as -max-memory takes it: a number of
// bytes with an optional binary unit K, M, G or T (KB, KiB... and any case
// are accepted too), such as 512M, 2G or 1.5G; 0 or "none" means no
// budget.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	if t == "NONE" || t == "OFF" {
		return 0, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	scale := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			scale = math.Ldexp(1, 10*(i+1))
			t = t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("bad size %q (want a number with an optional unit K, M, G or T, such as 512M)", s)
	}
	v := f * scale
	if v >= math.Ldexp(1, 63) {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}
