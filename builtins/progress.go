package builtins

import (
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"go.starlark.net/starlark"
	"golang.org/x/term"
)

// progressFor returns a progress callback that draws a bar, with an
// estimate of the time left, on the thread's stderr once a run has lasted
// a second, when enabled and stderr is a terminal; and a function that
// removes the bar. Short runs, pipes and files see nothing. Both are safe
// for concurrent calls; a nil callback means no bar.
func progressFor(thread *starlark.Thread, enabled bool, what string) (func(done, total int64), func()) {
	return progressAfter(thread, enabled, what, time.Second)
}

// progressAfter is progressFor with the delay before the bar appears.
func progressAfter(thread *starlark.Thread, enabled bool, what string, delay time.Duration) (func(done, total int64), func()) {
	f, ok := Stderr(thread).(*os.File)
	if !enabled || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, func() {}
	}
	var (
		mu    sync.Mutex
		start = time.Now()
		bar   *progressbar.ProgressBar
	)
	update := func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			if time.Since(start) < delay || done >= total {
				return
			}
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(f),
				progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionSetWidth(30))
		}
		if bar.GetMax64() != total {
			bar.ChangeMax64(total)
		}
		_ = bar.Set64(done)
	}
	finish := func() {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			_ = bar.Clear()
			bar = nil
		}
	}
	return update, finish
}
