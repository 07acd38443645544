package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/memory"
)

// gcPercent is the collector's GOGC under a memory budget once the live
// heap is past the budget's floor (see gcFloor), unless the GOGC
// environment variable sets one. The budget, as the soft limit, still
// bounds the heap: near it the collector works as hard as it must
// whatever GOGC says.
const gcPercent = 400

// gcFloorMax is the most heap a script may grow to between collections
// whatever its live heap; gcFloorShare the budget's share that bounds it
// under a small budget (1/16: 8 MiB of a 128M budget).
const (
	gcFloorMax   = 64 << 20
	gcFloorShare = 16
)

// gcFloor returns the heap below which the collector does not run under
// budget: a script's live heap is often a few MiB, and a heap goal of a
// few times that (Go's default is twice, at least 4 MiB) starts a cycle
// every few milliseconds in a loop that makes a tuple, a set or a dict per
// element; while a cycle marks, every pointer the interpreter stores goes
// through the collector's write barrier (docs/performance.md, "The
// interpreter against CPython"). Below the floor the collector is off;
// above it GOGC is gcPercent.
func gcFloor(budget int64) int64 {
	return min(gcFloorMax, budget/gcFloorShare)
}

// gcTuner holds the policy of the process's collector: Go's collector
// settings are the process's, so there is one, set by memoryBudget.
var gcTuner tuner

// tuner sets GOGC after each collection so that the next heap goal is the
// larger of the floor and the live heap times (1 + gcPercent/100): the
// collector off below the floor, GOGC above it. A finalizer on a sentinel
// hears of each cycle.
type tuner struct {
	floor   atomic.Int64 // 0: the tuner stops at the next cycle
	running atomic.Bool
}

// set makes floor the tuner's (0 stops it) and sets GOGC for the heap now.
func (t *tuner) set(floor int64) {
	t.floor.Store(floor)
	if floor <= 0 {
		return
	}
	t.tune()
	if t.running.CompareAndSwap(false, true) {
		t.arm()
	}
}

// arm sets a finalizer on a new sentinel, which runs after the next
// collection finds it unreachable.
func (t *tuner) arm() {
	s := new([16]byte) // not tiny: a tiny allocation may share a block with live data
	runtime.SetFinalizer(s, func(*[16]byte) { t.cycle() })
}

// cycle runs after a collection: it sets GOGC and arms the next sentinel,
// or stops where the floor is 0.
func (t *tuner) cycle() {
	for t.floor.Load() <= 0 {
		t.running.Store(false)
		// A set between the load and the store found the tuner running.
		if t.floor.Load() <= 0 || !t.running.CompareAndSwap(false, true) {
			return
		}
	}
	t.tune()
	t.arm()
}

// tune sets GOGC from the live heap of the last cycle (before the first,
// Go's initial goal of 4 MiB times GOGC/100).
func (t *tuner) tune() {
	floor := t.floor.Load()
	if floor <= 0 {
		return
	}
	sample := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/globals:bytes"},
		{Name: "/gc/scan/stack:bytes"},
	}
	metrics.Read(sample)
	var v [3]int64
	for i, s := range sample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	debug.SetGCPercent(gcPercentFor(floor, v[0], v[0]+v[1]+v[2]))
}

// gcPercentFor returns the GOGC that makes the heap goal the larger of
// floor and what gcPercent gives: Go's goal is live + roots * GOGC/100,
// where roots is the live heap, the globals and the stacks (before a
// first cycle, live is 0 and the goal's base Go's 4 MiB minimum), and at
// least 4 MiB * GOGC/100.
func gcPercentFor(floor, live, roots int64) int {
	if live <= 0 || roots <= 0 {
		live, roots = 0, 4<<20
	}
	// Go's goal is also at least 4 MiB * GOGC/100.
	p := min((floor-live)*100/roots, floor*100/(4<<20))
	return int(max(p, gcPercent))
}

// memoryBudget returns the budget -max-memory asks for ("" for the
// default) and makes it the garbage collector's soft limit, so that the
// collector works harder before the watchdog stops a run; under a budget,
// unless the environment sets GOGC, it also keeps the collector off below
// gcFloor of the budget and at GOGC gcPercent above it.
func memoryBudget(flagValue string) (int64, error) {
	var n int64
	if flagValue == "" {
		n = memory.DefaultBudget()
	} else {
		var err error
		if n, err = memory.ParseSize(flagValue); err != nil {
			return 0, fmt.Errorf("-max-memory: %v", err)
		}
	}
	if n > 0 {
		debug.SetMemoryLimit(n)
	}
	if n > 0 && os.Getenv("GOGC") == "" {
		gcTuner.set(gcFloor(n))
	} else {
		gcTuner.set(0)
	}
	return n, nil
}
