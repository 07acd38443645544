package builtins

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"golang.org/x/term"
)

// progressFor returns a progress callback that draws a bar, with the time
// elapsed since now and an estimate of the time left, on the thread's
// stderr once a run has lasted a second, when enabled and stderr is a
// terminal; and a function that removes the bar. Short runs, pipes and
// files see nothing. The callback is safe for concurrent calls; a nil
// callback means no bar. progressFor and the function it returns must be
// called on the thread's goroutine (they swap thread.Print).
func progressFor(thread *starlark.Thread, enabled bool, what string) (func(done, total int64), func()) {
	return progressSince(thread, enabled, what, time.Now(), time.Second)
}

// progressAfter is progressFor with the delay before the bar appears.
func progressAfter(thread *starlark.Thread, enabled bool, what string, delay time.Duration) (func(done, total int64), func()) {
	return progressSince(thread, enabled, what, time.Now(), delay)
}

// progressRedraw is how often a shown bar is redrawn when no progress is
// reported, so that its clock moves and a stalled phase is visible.
const progressRedraw = 500 * time.Millisecond

// progressSince is progressFor for a call that started at start: the bar
// appears once start is delay in the past, even before the first report
// (a long first subtree must not leave the terminal blank), and shows the
// time since start, so the phases of one call (setless counts, then
// searches) show one clock.
func progressSince(thread *starlark.Thread, enabled bool, what string, start time.Time, delay time.Duration) (func(done, total int64), func()) {
	return progressUnits(thread, enabled, what, start, delay, 1)
}

// progressUnits is progressSince for a callback that counts in units of
// 1/unit of an item (setcard.ProgressUnit per subtree): the bar shows
// whole items and moves with the fractions.
func progressUnits(thread *starlark.Thread, enabled bool, what string, start time.Time, delay time.Duration, unit int64) (func(done, total int64), func()) {
	f, ok := Stderr(thread).(*os.File)
	if !enabled || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	b := &bar{w: f, fd: int(f.Fd()), what: what, unit: max(unit, 1), start: start, phase: time.Now(), stop: make(chan struct{}), stopped: make(chan struct{})}
	go b.tick(delay)
	// A script's print (a set_classes loop's body) clears the bar first,
	// so that its line is not glued to the bar's; the bar comes back at the
	// next redraw. The thread's Print is swapped here and restored by
	// finish, both on the thread's own goroutine.
	prevPrint := thread.Print
	thread.Print = func(t *starlark.Thread, msg string) {
		// Hold the bar until the line is out, so that no redraw comes
		// between the clearing and the line.
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.shown {
			io.WriteString(b.w, "\r\x1b[K")
			b.shown = false
		}
		if prevPrint != nil {
			prevPrint(t, msg)
		} else {
			fmt.Fprintln(os.Stderr, msg) // Starlark's default
		}
	}
	var once sync.Once
	return b.update, func() {
		once.Do(func() {
			thread.Print = prevPrint
			close(b.stop)
			<-b.stopped
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.shown {
				io.WriteString(b.w, "\r\x1b[K")
				b.shown = false
			}
			b.closed = true
		})
	}
}

// A bar is one progress line on a terminal.
type bar struct {
	w             io.Writer
	fd            int
	what          string
	unit          int64     // the callback's counts per item shown
	start, phase  time.Time // the call's start, this bar's start (for the rate)
	stop, stopped chan struct{}

	mu          sync.Mutex
	done, total int64
	shown       bool // drawn and not yet cleared
	closed      bool
	visible     bool // the delay has passed
	last        time.Time
}

func (b *bar) tick(delay time.Duration) {
	defer close(b.stopped)
	wait := time.Until(b.start.Add(delay))
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-b.stop:
			return
		}
	}
	t := time.NewTicker(progressRedraw)
	defer t.Stop()
	for {
		b.mu.Lock()
		b.visible = true
		b.draw()
		b.mu.Unlock()
		select {
		case <-t.C:
		case <-b.stop:
			return
		}
	}
}

func (b *bar) update(done, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.total = done, total
	if b.visible && !b.closed && time.Since(b.last) >= 100*time.Millisecond {
		b.draw()
	}
}

// draw writes the line; b.mu is held.
func (b *bar) draw() {
	if b.closed {
		return
	}
	now := time.Now()
	b.last = now
	elapsed := now.Sub(b.start).Round(time.Second)
	var line string
	if b.total <= 0 {
		line = fmt.Sprintf("%s (%d/?, %s)", b.what, b.done/b.unit, elapsed)
	} else {
		frac := min(float64(b.done)/float64(b.total), 1)
		const width = 30
		fill := int(frac * width)
		left := "?"
		if b.done*100 >= b.total { // earlier estimates swing by orders of magnitude
			rate := now.Sub(b.phase).Seconds() / float64(b.done)
			left = time.Duration(rate * float64(b.total-b.done) * float64(time.Second)).Round(time.Second).String()
		}
		done := fmt.Sprint(b.done)
		if b.unit > 1 { // fractions of an item: show that they move
			done = fmt.Sprintf("%.1f", float64(b.done)/float64(b.unit))
		}
		line = fmt.Sprintf("%s %5.1f%% |%s%s| (%s/%d, %s, ~%s left)", b.what, frac*100,
			strings.Repeat("█", fill), strings.Repeat(" ", width-fill), done, b.total/b.unit, elapsed, left)
	}
	// A line wider than the terminal wraps, and \r would then redraw only
	// its last row.
	if cols, _, err := term.GetSize(b.fd); err == nil && cols > 1 {
		if r := []rune(line); len(r) > cols-1 {
			line = string(r[:cols-1])
		}
	}
	io.WriteString(b.w, "\r"+line+"\x1b[K")
	b.shown = true
}
