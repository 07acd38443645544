package builtins

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.starlark.net/starlark"
)

// onTerminal runs draw with a thread whose stderr and print go to a
// pseudo-terminal and returns what the terminal received.
func onTerminal(t *testing.T, draw func(thread *starlark.Thread)) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, ptmx) // until ptmx is closed
		got <- buf.String()
	}()
	thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(tty, msg) }}
	SetEnv(thread, Env{Stdout: io.Discard, Stderr: tty})
	draw(thread)
	tty.Close()
	ptmx.Close()
	return <-got
}

// TestProgressBar draws on a real terminal and checks the bar's text; a
// pipe, a disabled bar and a run shorter than the delay draw nothing.
func TestProgressBar(t *testing.T) {
	text := onTerminal(t, func(thread *starlark.Thread) {
		update, finish := progressAfter(thread, true, "counting", 0)
		if update == nil {
			t.Fatal("no progress callback on a terminal")
		}
		for i := int64(0); i <= 50; i += 10 {
			update(i, 100)
			time.Sleep(120 * time.Millisecond) // past the redraw throttle
		}
		// The last count is drawn by the next redraw (every half second):
		// wait for it, so a loaded machine cannot skip it.
		time.Sleep(time.Second)
		finish()
	})
	for _, want := range []string{"counting", "50/100", "\r\x1b[K"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal shows %q; want it to contain %q", text, want)
		}
	}

	for name, set := range map[string]func(*starlark.Thread) (func(int64, int64), func()){
		"disabled": func(th *starlark.Thread) (func(int64, int64), func()) {
			SetEnv(th, Env{Stdout: io.Discard, Stderr: os.Stderr})
			return progressAfter(th, false, "x", 0)
		},
		"not a terminal": func(th *starlark.Thread) (func(int64, int64), func()) {
			SetEnv(th, Env{Stdout: io.Discard, Stderr: new(bytes.Buffer)})
			return progressAfter(th, true, "x", 0)
		},
	} {
		if update, _ := set(&starlark.Thread{}); update != nil {
			t.Errorf("%s: got a progress callback, want none", name)
		}
	}
}

// TestProgressBarClock: the bar appears at the delay even when nothing is
// reported yet, its clock counts from the call's start, it keeps being
// redrawn while no report comes, and a print clears it first.
func TestProgressBarClock(t *testing.T) {
	text := onTerminal(t, func(thread *starlark.Thread) {
		orig := reflect.ValueOf(thread.Print).Pointer()
		start := time.Now().Add(-3 * time.Second) // the call began 3 s ago
		update, finish := progressSince(thread, true, "searching", start, time.Second)
		time.Sleep(2 * progressRedraw) // no report at all
		update(2, 10)
		thread.Print(thread, "a line")
		time.Sleep(2 * progressRedraw)
		finish()
		if reflect.ValueOf(thread.Print).Pointer() != orig {
			t.Errorf("finish did not give print back")
		}
	})
	if !regexp.MustCompile(`searching \(0/\?, [34]s\)`).MatchString(text) {
		t.Errorf("terminal shows %q; want a bar with 0/? and the call's 3 s before any report", text)
	}
	if !strings.Contains(text, "\r\x1b[Ka line") {
		t.Errorf("terminal shows %q; want the bar cleared before the printed line", text)
	}
	if !regexp.MustCompile(`searching  20.0% \|█+ +\| \(2/10, [345]s, ~\d+s left\)`).MatchString(text) {
		t.Errorf("terminal shows %q; want the bar redrawn at 2/10 after the print", text)
	}
}
