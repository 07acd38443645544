package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/interp"
	"golang.org/x/term"
)

// exitInterrupted is the exit status of a script stopped by Ctrl-C, the
// shell's 128 + SIGINT.
const exitInterrupted = 130

// hardStopGrace is how long a cancelled run may take to stop before bitsh
// gives up on it. Starlark code stops at its next step and bitsh's kernels
// within 100 ms, but a builtin of go.starlark.net (str or json.encode of a
// deeply nested list, int of a million digits) polls nothing and can run
// for minutes.
const hardStopGrace = time.Second

// A pending run is one call into the interpreter on its own goroutine, so
// that the command can stop waiting for it.
type pending struct {
	done chan struct{}
	err  error // valid once done is closed
}

func start(fn func() error) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = fn()
	}()
	return p
}

// wait returns the run's error once it returns; stuck is true when ctx
// ended and the run has not returned grace later (it goes on running).
func (p *pending) wait(ctx context.Context, grace time.Duration) (err error, stuck bool) {
	select {
	case <-p.done:
		return p.err, false
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return p.err, false
		case <-t.C:
			return nil, true
		case <-tick.C:
			// A builtin that ignores the memory budget's cancellation and
			// goes on allocating would take the process down before the
			// second is out: give up on it at half the budget again.
			var me *memory.LimitError
			if errors.As(context.Cause(ctx), &me) && memory.HeapBytes() > me.Limit/2*3 {
				return nil, true
			}
		}
	}
}

// runContext returns the context of a command-line run: cancelled after
// timeout (when not 0), with errInterrupted as its cause on Ctrl-C, and
// with a *memory.LimitError when the heap exceeds budget (when not
// 0). Every cause cancels this one context, which the hard stop waits
// on. stop releases it, the signal and the memory watch.
func runContext(timeout time.Duration, budget int64) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, cancelTimeout := withTimeout(ctx, timeout)
	ctx, unwatch := memory.Watch(ctx, budget)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt)
	go func() {
		select {
		case <-sigc:
			cancel(errInterrupted)
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigc)
		unwatch()
		cancelTimeout()
		cancel(nil)
	}
}

// runScript runs a script or a -c snippet with the timeout, Ctrl-C and the
// hard stop, and returns the exit status: 0, 1 for an error (a timeout or
// a memory budget included), 130 for Ctrl-C.
func runScript(in *interp.Interp, filename string, src []byte, timeout time.Duration, stderr io.Writer) int {
	ctx, stop := runContext(timeout, in.MaxMemory())
	defer stop()

	p := start(func() error {
		_, err := in.ExecFile(ctx, filename, src)
		return err
	})
	err, stuck := p.wait(ctx, hardStopGrace)
	interrupted := errors.Is(context.Cause(ctx), errInterrupted)
	if interrupted || stuck {
		clearBar(stderr)
	}
	status := exitError
	if interrupted {
		status = exitInterrupted
	}
	switch {
	case stuck:
		fmt.Fprintf(stderr, "%s: %v, and the interpreter did not stop within %v (a builtin that cannot be interrupted is running): exiting\n",
			progName, context.Cause(ctx), hardStopGrace)
		return status
	case err != nil:
		if code, ok := exitCode(err); ok {
			return code // exit(n) in the script
		}
		printError(stderr, err)
		return status
	}
	return exitOK
}

// waitStuck is the REPL's hard stop: the run did not stop in time; the
// user may leave with another Ctrl-C or wait for it. It returns the run's
// error when the run ends first.
func waitStuck(ctx context.Context, p *pending, sigc chan os.Signal, stderr io.Writer) error {
	clearBar(stderr)
	fmt.Fprintf(stderr, "%s: %v, and the interpreter did not stop within %v: a builtin that cannot be interrupted is running.\n"+
		"Press Ctrl-C again to leave bitsh, or wait for it to finish.\n", progName, context.Cause(ctx), hardStopGrace)
	select {
	case <-p.done:
		return p.err
	case <-sigc:
		fmt.Fprintln(stderr)
		os.Exit(exitInterrupted)
		return nil
	}
}

// clearBar erases the line a progress bar may have left on a terminal.
func clearBar(w io.Writer) {
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) { // an *os.File, or the watched standard output
		fmt.Fprint(w, "\r\x1b[K")
	}
}
