package main

import (
	"fmt"
	"runtime/debug"

	"github.com/bitsh/bitsh/interp"
)

// memoryBudget returns the budget -max-memory asks for ("" for the
// default) and makes it the garbage collector's soft limit, so that the
// collector works harder before the watchdog stops a run.
func memoryBudget(flagValue string) (int64, error) {
	var n int64
	if flagValue == "" {
		n = interp.DefaultMemoryBudget()
	} else {
		var err error
		if n, err = interp.ParseSize(flagValue); err != nil {
			return 0, fmt.Errorf("-max-memory: %v", err)
		}
	}
	if n > 0 {
		debug.SetMemoryLimit(n)
	}
	return n, nil
}
