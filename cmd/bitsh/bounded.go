package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/bitsh/bitsh/builtins/memory"
)

// addMemoryFlag adds -max-memory to a source tool's flags (bitsh check,
// bitsh fmt): its value, as the run's, is parsed by memoryBudget.
func addMemoryFlag(fs *flag.FlagSet) *string {
	return fs.String("max-memory", "", "stop when the heap exceeds `SIZE` (512M, 2G; 0: no budget); default 3/4 of the memory available")
}

// bounded runs work, a source tool's work on one file, under the memory
// budget (0: none) and Ctrl-C, as a script's run is: parsing and checking
// a file take some 70 to 100 times its size (a 50 MB file took 3.4 and
// 4.8 GB, and Go's out-of-memory under ulimit -v), and neither polls for
// cancellation. Past the budget or on Ctrl-C it says so, naming the tool
// and the file, and returns the exit status (1, or 130 for Ctrl-C) with
// ok false: work goes on running, and the command must exit.
func bounded(tool, name string, size int, budget int64, stderr io.Writer, work func()) (status int, ok bool) {
	ctx, stop := runContext(0, budget)
	defer stop()
	p := start(func() error { work(); return nil })
	select {
	case <-p.done:
		return exitOK, true
	case <-ctx.Done():
	}
	select {
	case <-p.done: // it ended as it was stopped
		if !errors.Is(context.Cause(ctx), errInterrupted) {
			return exitOK, true
		}
	default:
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, errInterrupted) {
		fmt.Fprintf(stderr, "%s %s: %s: %v\n", progName, tool, name, cause)
		return exitInterrupted, false
	}
	fmt.Fprintf(stderr, "%s %s: %s: %v (the file has %s; -max-memory sets the budget)\n",
		progName, tool, name, cause, memory.FormatSize(int64(size)))
	return exitError, false
}
