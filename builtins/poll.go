package builtins

import (
	"context"

	"go.starlark.net/starlark"
)

// pollWords is how many words a kernel works through between two polls
// of its run's context: 2^16 words take from about 20 µs (a copy) to a
// few ms (the slowest elementwise kernels, pdep of dense masks), so a
// cancelled kernel stops well within 100 ms, and a poll (an atomic load)
// costs nothing measurable.
const pollWords = 1 << 16

// inChunks calls fn(lo, hi) for consecutive ranges of at most step
// elements covering [0, n), in order, polling the context of thread's run
// (if any) before each. It returns fn's interruption error, naming the
// builtin name, when the run is cancelled.
func inChunks(thread *starlark.Thread, name string, n, step int, fn func(lo, hi int)) error {
	ctx := context.Background()
	if thread != nil {
		ctx = Context(thread)
	}
	step = max(step, 1)
	for lo := 0; lo < n; lo += step {
		if ctx.Err() != nil {
			return interrupted(name, ctx)
		}
		fn(lo, min(lo+step, n))
	}
	return nil
}

// scan calls fn with a's words in order, at most pollWords at a time (a
// deferred array's computed a block at a time), polling the context of
// thread's run; fn returns false to stop. It returns the interruption
// error, naming name, when the run is cancelled: what fn gathered is then
// partial.
func (a *Words) scan(thread *starlark.Thread, name string, fn func(blk []uint64) bool) error {
	ctx := context.Background()
	if thread != nil {
		ctx = Context(thread)
	}
	var err error
	a.blocks(func(blk []uint64) bool {
		for lo := 0; lo < len(blk); lo += pollWords {
			if ctx.Err() != nil {
				err = interrupted(name, ctx)
				return false
			}
			if !fn(blk[lo:min(lo+pollWords, len(blk))]) {
				return false
			}
		}
		return true
	})
	return err
}
