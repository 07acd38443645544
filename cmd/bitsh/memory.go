package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/bitsh/bitsh/builtins/memory"
)

// gcPercent is the collector's GOGC under a memory budget, unless the
// GOGC environment variable sets one: a script's live heap is often a few
// MiB, and Go's default (a heap goal of twice the live heap, at least 4
// MiB) then collects every few milliseconds of integer arithmetic. The
// budget, as the soft limit, still bounds the heap: near it the collector
// works as hard as it must whatever GOGC says.
const gcPercent = 400

// memoryBudget returns the budget -max-memory asks for ("" for the
// default) and makes it the garbage collector's soft limit, so that the
// collector works harder before the watchdog stops a run; under a budget
// it also sets GOGC to gcPercent unless the environment sets it.
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
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(gcPercent)
		}
	}
	return n, nil
}
