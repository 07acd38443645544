package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bitsh/bitsh/interp"
)

// readSource reads the source named name, from r or (r nil) from the file
// of that name, through interp.ReadSource: at most interp.SourceLimit of
// the budget, under the timeout (0: none), the memory budget and Ctrl-C,
// so that bitsh /dev/zero, an endless standard input, or bitsh check of
// one, stop with an error naming the source. The read runs on a goroutine
// of its own, so that a read blocked on a pipe does not keep Ctrl-C or the
// timeout waiting. On failure it writes the message (tool, when not "",
// names the subcommand) and returns ok false with the exit status: 2 for a
// file that cannot be opened or read, as before, 1 for a source too large
// or a read stopped by the timeout or the budget, 130 for Ctrl-C.
func readSource(tool, name string, r io.Reader, timeout time.Duration, budget int64, stderr io.Writer) (src []byte, status int, ok bool) {
	prefix := progName
	if tool != "" {
		prefix += " " + tool
	}
	if r == nil {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
			return nil, exitUsage, false
		}
		defer f.Close()
		r = f
	}
	ctx, stop := runContext(timeout, budget)
	defer stop()
	type result struct {
		src []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		src, err := interp.ReadSource(ctx, r, name, budget)
		done <- result{src, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		res.err = fmt.Errorf("reading %s: %w", name, context.Cause(ctx))
	}
	if res.err == nil {
		return res.src, exitOK, true
	}
	fmt.Fprintf(stderr, "%s: %v\n", prefix, res.err)
	switch {
	case errors.Is(context.Cause(ctx), errInterrupted):
		return nil, exitInterrupted, false
	case ctx.Err() != nil, errors.Is(res.err, interp.ErrSourceTooLarge):
		return nil, exitError, false
	}
	return nil, exitUsage, false
}
