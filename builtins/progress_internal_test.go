package builtins

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.starlark.net/starlark"
)

// TestProgressBar draws on a real terminal and checks the bar's text; a
// pipe, a disabled bar and a run shorter than the delay draw nothing.
func TestProgressBar(t *testing.T) {
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

	thread := &starlark.Thread{}
	SetOutput(thread, io.Discard, tty)
	update, finish := progressAfter(thread, true, "counting", 0)
	if update == nil {
		t.Fatal("no progress callback on a terminal")
	}
	for i := int64(0); i <= 50; i += 10 {
		update(i, 100)
		time.Sleep(120 * time.Millisecond) // past the bar's redraw throttle
	}
	finish()
	tty.Close()
	ptmx.Close()
	text := <-got
	for _, want := range []string{"counting", "50/100"} {
		if !strings.Contains(text, want) {
			t.Errorf("terminal shows %q; want it to contain %q", text, want)
		}
	}

	for name, set := range map[string]func(*starlark.Thread) (func(int64, int64), func()){
		"disabled": func(th *starlark.Thread) (func(int64, int64), func()) {
			SetOutput(th, io.Discard, os.Stderr)
			return progressAfter(th, false, "x", 0)
		},
		"not a terminal": func(th *starlark.Thread) (func(int64, int64), func()) {
			SetOutput(th, io.Discard, new(bytes.Buffer))
			return progressAfter(th, true, "x", 0)
		},
	} {
		if update, _ := set(&starlark.Thread{}); update != nil {
			t.Errorf("%s: got a progress callback, want none", name)
		}
	}
}
