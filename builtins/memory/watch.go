package memory

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"
)

// A LimitError is the cause of a run cancelled by its memory budget.
type LimitError struct {
	Limit int64 // the budget, in bytes
	// Room is 0 when the heap went over the budget. Otherwise the run was
	// stopped under an address-space limit with InUse bytes on the heap,
	// more than half the budget, and only Room bytes of address space left
	// under the limit: too little for the heap to grow by as much again.
	Room, InUse int64
}

// Error says which budget was exceeded ("memory limit of 256M exceeded"),
// and why early when it was the address space that ran short.
func (e *LimitError) Error() string {
	msg := fmt.Sprintf("memory limit of %s exceeded", FormatSize(e.Limit))
	if e.Room > 0 {
		msg += fmt.Sprintf(" (%s in use, and only %s of address space left under ulimit -v to grow)",
			FormatSize(e.InUse), FormatSize(e.Room))
	}
	return msg
}

// watchInterval is how often the watchdog samples the heap: reading the
// metric costs about a microsecond, and at a few GB/s of allocation 5 ms
// lets the heap pass the budget by some tens of MB at most.
const watchInterval = 5 * time.Millisecond

// watchKey marks a context that Watch watches; its value is the
// budget.
type watchKey struct{}

// Watch returns ctx, cancelled with a *LimitError as cause
// when the heap exceeds limit bytes (ctx itself when limit is 0), and the
// function that ends the watch. A run given such a context, by an
// interpreter whose budget is not below limit (see Watched), starts no
// watchdog of its own: so a caller that waits on the context sees every cause of a
// cancellation (its own, a deadline, the budget) there, and can give up
// on a run that does not stop in time whatever the cause, as the bitsh
// command does.
func Watch(ctx context.Context, limit int64) (context.Context, func()) {
	if limit <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(ctx, watchKey{}, limit))
	done := make(chan struct{})
	go func() {
		var w watchdog
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
			if err := w.overBudget(limit); err != nil {
				cancel(err)
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}

// Watched returns the budget Watch watches ctx for, ok false when it does
// not.
func Watched(ctx context.Context) (limit int64, ok bool) {
	limit, ok = ctx.Value(watchKey{}).(int64)
	return limit, ok
}

// A watchdog is the state of one run's watch.
type watchdog struct {
	collected time.Time // when it last collected for the address-space check
}

// overBudget returns the error that stops the run, or nil while the heap
// and the memory held outside it (InUse) are within limit. Heap objects
// include garbage not yet collected. When
// the collector's soft limit (debug.SetMemoryLimit) is at or below the
// budget, it already collects as the heap nears the budget, so objects
// above the budget mean live data; otherwise the watchdog collects before
// deciding (only while the heap is over the budget, and never past half
// as much again). Past half the budget it also checks the address space
// left under RLIMIT_AS (interp.WithMaxMemory says why); there what the next step
// may double is live data, so garbage is set aside: by the live heap of
// the last collection, else by collecting (at most every
// addressCheckGC).
func (w *watchdog) overBudget(limit int64) *LimitError {
	objects := InUse()
	if objects <= limit/2 {
		return nil
	}
	if objects > limit {
		// The soft limit keeps the heap's garbage within the budget, not
		// within what the memory held outside the heap leaves of it.
		soft := debug.SetMemoryLimit(-1) <= limit && OutsideBytes() == 0
		if soft || objects > limit/2*3 {
			return &LimitError{Limit: limit}
		}
		runtime.GC()
		if objects = InUse(); objects > limit {
			return &LimitError{Limit: limit}
		} else if objects <= limit/2 {
			return nil
		}
	}
	room := AddressSpaceRoom()
	short := func(inUse int64) bool { return inUse > limit/2 && room < inUse+arenaBytes }
	if room < 0 || !short(objects) {
		return nil
	}
	live := LiveHeapBytes() + OutsideBytes()
	if !short(live) {
		if time.Since(w.collected) < addressCheckGC {
			return nil
		}
		runtime.GC()
		w.collected = time.Now()
		// What the collection found live, not the heap now, which holds
		// what the run allocated meanwhile too.
		if live = LiveHeapBytes() + OutsideBytes(); !short(live) {
			return nil
		}
	}
	return &LimitError{Limit: limit, Room: max(room, 1), InUse: live}
}

// addressCheckGC is the least time between two collections the
// address-space check makes: a run holding little more than half its
// budget, with much garbage, under a tight limit, costs the collector a
// cycle every so often, not every sample.
const addressCheckGC = 100 * time.Millisecond
