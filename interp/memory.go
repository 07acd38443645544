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
// Under an address-space limit (ulimit -v, RLIMIT_AS; read on Linux) the
// watchdog also stops a run whose heap holds more than half the budget
// when the address space left could not take as much again plus one of
// Go's 64 MiB heap arenas: a single step of the interpreter (a dict
// doubling its table, a list growing) can allocate that much at once,
// before any sample, and running out of address space kills a Go program
// instead of failing the allocation. So under a limit tighter than about
// two and a half budgets above what the process has already reserved, a
// run may be stopped between half its budget and the budget; a run that
// stays under half its budget never is.
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
	// Room is 0 when the heap went over the budget. Otherwise the run was
	// stopped under an address-space limit with InUse bytes on the heap,
	// more than half the budget, and only Room bytes of address space left
	// under the limit: too little for the heap to grow by as much again.
	Room, InUse int64
}

// Error says which budget was exceeded ("memory limit of 256M exceeded"),
// and why early when it was the address space that ran short.
func (e *MemoryLimitError) Error() string {
	msg := fmt.Sprintf("memory limit of %s exceeded", builtins.FormatSize(e.Limit))
	if e.Room > 0 {
		msg += fmt.Sprintf(" (%s in use, and only %s of address space left under ulimit -v to grow)",
			builtins.FormatSize(e.InUse), builtins.FormatSize(e.Room))
	}
	return msg
}

// watchInterval is how often the watchdog samples the heap: reading the
// metric costs about a microsecond, and at a few GB/s of allocation 5 ms
// lets the heap pass the budget by some tens of MB at most.
const watchInterval = 5 * time.Millisecond

// MaxMemory returns the interpreter's memory budget in bytes (0: none).
func (in *Interp) MaxMemory() int64 { return in.maxMemory }

// watchKey marks a context that WatchMemory watches; its value is the
// budget.
type watchKey struct{}

// WatchMemory returns ctx, cancelled with a *MemoryLimitError as cause
// when the heap exceeds limit bytes (ctx itself when limit is 0), and the
// function that ends the watch. A run given such a context, by an
// interpreter whose budget is not below limit, starts no watchdog of its
// own: so a caller that waits on the context sees every cause of a
// cancellation (its own, a deadline, the budget) there, and can give up
// on a run that does not stop in time whatever the cause, as the bitsh
// command does.
func WatchMemory(ctx context.Context, limit int64) (context.Context, func()) {
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

// watchMemory returns ctx watched for the interpreter's budget (unless
// WatchMemory already watches it for that budget or a smaller one), and
// the function that ends the watch.
func (in *Interp) watchMemory(ctx context.Context) (context.Context, func()) {
	if w, ok := ctx.Value(watchKey{}).(int64); ok && w <= in.maxMemory {
		return ctx, func() {}
	}
	return WatchMemory(ctx, in.maxMemory)
}

// A watchdog is the state of one run's watch.
type watchdog struct {
	collected time.Time // when it last collected for the address-space check
}

// overBudget returns the error that stops the run, or nil while the heap
// is within limit. Heap objects include garbage not yet collected. When
// the collector's soft limit (debug.SetMemoryLimit) is at or below the
// budget, it already collects as the heap nears the budget, so objects
// above the budget mean live data; otherwise the watchdog collects before
// deciding (only while the heap is over the budget, and never past half
// as much again). Past half the budget it also checks the address space
// left under RLIMIT_AS (WithMaxMemory says why); there what the next step
// may double is live data, so garbage is set aside: by the live heap of
// the last collection, else by collecting (at most every
// addressCheckGC).
func (w *watchdog) overBudget(limit int64) *MemoryLimitError {
	objects := builtins.HeapBytes()
	if objects <= limit/2 {
		return nil
	}
	if objects > limit {
		if debug.SetMemoryLimit(-1) <= limit || objects > limit/2*3 {
			return &MemoryLimitError{Limit: limit}
		}
		runtime.GC()
		if objects = builtins.HeapBytes(); objects > limit {
			return &MemoryLimitError{Limit: limit}
		} else if objects <= limit/2 {
			return nil
		}
	}
	room := builtins.AddressSpaceRoom()
	short := func(inUse int64) bool { return inUse > limit/2 && room < inUse+arenaBytes }
	if room < 0 || !short(objects) {
		return nil
	}
	live := builtins.LiveHeapBytes()
	if !short(live) {
		if time.Since(w.collected) < addressCheckGC {
			return nil
		}
		runtime.GC()
		w.collected = time.Now()
		// What the collection found live, not the heap now, which holds
		// what the run allocated meanwhile too.
		if live = builtins.LiveHeapBytes(); !short(live) {
			return nil
		}
	}
	return &MemoryLimitError{Limit: limit, Room: max(room, 1), InUse: live}
}

// addressCheckGC is the least time between two collections the
// address-space check makes: a run holding little more than half its
// budget, with much garbage, under a tight limit, costs the collector a
// cycle every so often, not every sample.
const addressCheckGC = 100 * time.Millisecond

// arenaBytes is the unit in which Go's heap reserves address space (a heap
// arena, on 64-bit Linux): a large allocation the free pages cannot hold
// reserves whole arenas.
const arenaBytes = 64 << 20

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
