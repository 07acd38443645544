package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/interp"
	"github.com/chzyer/readline"
	"go.starlark.net/starlark"
)

// errInterrupted is the cause of a run cancelled by Ctrl-C.
var errInterrupted = errors.New("interrupted")

const (
	prompt     = ">>> "
	contPrompt = "... "
)

// historyPath returns the REPL's history file: $BITSH_HISTORY when set
// (empty disables history), else $XDG_STATE_HOME/bitsh/history, else
// ~/.local/state/bitsh/history; "" when there is no home directory.
func historyPath() string {
	if p, ok := os.LookupEnv("BITSH_HISTORY"); ok {
		return p
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "bitsh", "history")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "bitsh", "history")
}

// prepareHistory creates the history file's directory and the file itself
// (private to the user); it returns "" when that fails, after a warning.
func prepareHistory(path string, stderr io.Writer) string {
	if path == "" {
		return ""
	}
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			err = f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: history not saved: %v\n", progName, err)
		return ""
	}
	return path
}

// runREPL runs the interactive session on the terminal tty until Ctrl-D,
// exit() or quit(), and returns the exit status (0 or exit's code, or 1
// if the terminal cannot be used).
func runREPL(in *interp.Interp, tty *os.File, stdout, stderr io.Writer, timeout time.Duration) int {
	// At the prompt the terminal is in raw mode and readline sees Ctrl-C as
	// a key; while an input runs the terminal is in cooked mode and Ctrl-C
	// sends SIGINT, which cancels the run.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt)
	defer signal.Stop(sigc)

	fd := int(tty.Fd())
	// readline closes its stdin on Close; this wrapper keeps tty open, and
	// closing it ourselves unblocks a pending read, which rl.Close waits for.
	stdin := readline.NewCancelableStdin(tty)

	var saved *readline.State // the terminal's cooked state, while raw
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          prompt,
		HistoryFile:     prepareHistory(historyPath(), stderr),
		HistoryLimit:    10000,
		AutoComplete:    &completer{in: in},
		InterruptPrompt: "^C",
		EOFPrompt:       "\n",
		Stdin:           stdin,
		Stdout:          stdout,
		Stderr:          stderr,
		FuncIsTerminal:  func() bool { return readline.IsTerminal(fd) },
		FuncMakeRaw: func() (err error) {
			saved, err = readline.MakeRaw(fd)
			return err
		},
		FuncExitRaw: func() error {
			if saved == nil {
				return nil
			}
			return readline.Restore(fd, saved)
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", progName, err)
		return exitError
	}
	defer func() {
		stdin.Close()
		rl.Close()
	}()
	fmt.Fprintf(stdout, "bitsh %s. help() lists the builtins; Ctrl-D exits.\n", versionString())

	prevDef := "" // the last input, when it was a def that ran
	inputs := 0   // the inputs run so far
	for {
		src, err := readInput(rl)
		switch {
		case errors.Is(err, io.EOF):
			return exitOK
		case errors.Is(err, readline.ErrInterrupt):
			continue // the line (or the pending block) is dropped
		case err != nil:
			printError(stderr, err)
			continue
		case strings.TrimSpace(src) == "":
			continue
		}
		// A blank line inside a pasted function ends its def, as in
		// Python; the indented lines after it then continue that def,
		// which runs again whole (running a def twice only rebinds it).
		if prevDef != "" && indented(src) && soleDef(prevDef+src) {
			src = prevDef + src
		}
		inputs++
		exit, code, ok := evalInput(in, inputName(inputs), src, sigc, stdout, stderr, timeout)
		if exit {
			return code
		}
		prevDef = ""
		if ok && soleDef(src) {
			prevDef = src
		}
	}
}

// readInput reads lines until interp.IsComplete accepts them (a blank
// line ends a block, as in Python; a syntax error inside a block is kept
// until the block ends, so that it is reported once) and returns their
// text. A leading %time or %prun is left in the text. It returns io.EOF on Ctrl-D
// at the primary prompt and readline.ErrInterrupt on Ctrl-C or on Ctrl-D
// in a block (both drop the input).
func readInput(rl *readline.Instance) (string, error) {
	var text strings.Builder
	rl.SetPrompt(prompt)
	for {
		line, err := rl.Readline()
		if err != nil {
			if errors.Is(err, io.EOF) && text.Len() > 0 {
				err = readline.ErrInterrupt // Ctrl-D in a block drops the block
			}
			return "", err
		}
		rl.SetPrompt(contPrompt)
		text.WriteString(line + "\n")
		body, _ := cutTimeMagic(text.String())
		body, _ = cutMagic(body, prunMagic)
		if strings.TrimSpace(body) == "" || interp.IsComplete(body) != interp.Incomplete {
			return text.String(), nil
		}
	}
}

// inputName names the REPL's nth input (from 1) in positions and
// tracebacks: <stdin:n>. Each input has a name of its own, so that fuse
// finds a function's def or lambda in the input that defined it.
func inputName(n int) string {
	return fmt.Sprintf("<stdin:%d>", n)
}

// evalInput runs one input, named name, cancelling it on SIGINT or after
// the timeout.
// Each expression statement's value (None excepted) is echoed as it is
// computed; an error is printed. With %time, the wall time follows; with
// %prun, the input's top functions by wall time (profile.go). It
// reports whether the input called exit() or quit(), and the status, and
// whether it ran without error.
func evalInput(in *interp.Interp, name, src string, sigc chan os.Signal, stdout, stderr io.Writer, timeout time.Duration) (exit bool, code int, ok bool) {
	select {
	case <-sigc: // a stale interrupt must not cancel this run
	default:
	}
	src, timed := cutTimeMagic(src)
	src, profiled := cutMagic(src, prunMagic)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ctx, cancelTimeout := withTimeout(ctx, timeout)
	defer cancelTimeout()
	ctx, unwatch := memory.Watch(ctx, in.MaxMemory()) // so that the hard stop sees the budget's cancellation too
	defer unwatch()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigc:
			cancel(errInterrupted)
		case <-done:
		}
	}()
	color := useColor(stdout)
	t0 := time.Now()
	exec := func() error {
		bare := strings.TrimSpace(src)
		return in.ExecInteractive(ctx, name, src, func(v starlark.Value) {
			if hint := exitHint(bare, v); hint != "" {
				fmt.Fprintln(stdout, hint)
				return
			}
			echoValue(stdout, v, color)
		})
	}
	p := start(func() error {
		if profiled {
			return prunReport(exec, stdout, stderr)
		}
		return exec()
	})
	err, stuck := p.wait(ctx, hardStopGrace)
	if stuck {
		err = waitStuck(ctx, p, sigc, stderr)
	}
	wall := time.Since(t0)
	if code, ok := exitCode(err); ok {
		return true, code, true
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), errInterrupted) {
			fmt.Fprintln(stderr) // end the line the terminal echoed ^C on
			// The ^C says why the input stopped: the traceback goes without
			// the line that names the cause ("bitsh: interrupted"), which a
			// builtin's own message ("fused lambda.count: cancelled") lacks.
			var ce *interp.CancelledError
			if errors.As(err, &ce) {
				err = ce.Err
			}
		}
		printError(stderr, err)
		if indented(src) {
			fmt.Fprintln(stderr, "(an indented line continues a block, but a blank line had ended the block before it)")
		}
	}
	if timed {
		fmt.Fprintf(stdout, "Wall time: %s\n", formatWall(wall))
	}
	return false, 0, err == nil
}
