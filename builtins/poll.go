package builtins

import (
	"context"
	"runtime"
	"slices"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/words"
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

// The passes over whole arrays that do not fit in a kernel call of their
// own (a copy, an order check, a deduplication) go through inChunks too,
// so that every kernel polls at the same rate.

// asyncAllocBytes is the size from which makeSlice allocates on a
// goroutine of its own: below it make takes microseconds.
const asyncAllocBytes = 4 << 20

// allocSlots bounds the large allocations in flight in the process, those
// whose caller was cancelled included, at one per processor: repeated
// cancellations (a script interrupted again and again, a test sweep)
// cannot pile up abandoned allocations that fault in memory and take the
// processors from the runs that follow. It only bounds; it holds no data.
var allocSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// makeSlice returns make([]T, n) for a result of the builtin fn, or the
// interruption error when the run of thread is cancelled first. Go zeroes
// a large allocation whose memory it reuses before make returns, and
// where a page fault is slow (a virtual machine: 15 µs) that zeroing
// faults in the whole array at once: 0.4-0.6 s for 128 MiB, which no
// polling can cut (docs/reliability.md, "Word arrays"). So from
// asyncAllocBytes on, make runs on a goroutine of its own and a
// cancelled caller returns without waiting for it; the allocation is then
// garbage when it ends. At most allocSlots such allocations run at once;
// a caller waits for a slot, interruptibly. The caller checks the budget
// first (CheckAlloc).
func makeSlice[T any](thread *starlark.Thread, fn string, n int) ([]T, error) {
	var zero T
	if thread == nil || int64(n)*int64(unsafe.Sizeof(zero)) < asyncAllocBytes {
		return make([]T, n), nil
	}
	ctx := Context(thread)
	if ctx.Err() != nil {
		return nil, interrupted(fn, ctx)
	}
	select {
	case allocSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, interrupted(fn, ctx)
	}
	done := make(chan []T, 1)
	go func() {
		s := make([]T, n)
		<-allocSlots
		done <- s
	}()
	select {
	case s := <-done:
		return s, nil
	case <-ctx.Done():
		return nil, interrupted(fn, ctx)
	}
}

// cloneWords returns a copy of src, copied pollWords at a time, polling
// the context of thread's run; fn names the builtin in the interruption
// error.
func cloneWords(thread *starlark.Thread, fn string, src []uint64) ([]uint64, error) {
	dst, err := makeSlice[uint64](thread, fn, len(src))
	if err != nil {
		return nil, err
	}
	if err := inChunks(thread, fn, len(src), pollWords, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) }); err != nil {
		return nil, err
	}
	return dst, nil
}

// isSortedWords reports whether s is in ascending order, checked pollWords
// at a time, polling the context of thread's run.
func isSortedWords(thread *starlark.Thread, fn string, s []uint64) (bool, error) {
	sorted := true
	err := inChunks(thread, fn, len(s), pollWords, func(lo, hi int) {
		sorted = sorted && slices.IsSorted(s[lo:hi]) && (lo == 0 || s[lo-1] <= s[lo])
	})
	return sorted, err
}

// dedupWords removes the repeats of the sorted s in place (words.Dedup),
// pollWords at a time, polling the context of thread's run, and returns
// what is left.
func dedupWords(thread *starlark.Thread, fn string, s []uint64) ([]uint64, error) {
	k := 0 // s[:k] is done
	err := inChunks(thread, fn, len(s), pollWords, func(lo, hi int) {
		d := words.Dedup(s[lo:hi])
		if k > 0 && d[0] == s[k-1] {
			d = d[1:]
		}
		k += copy(s[k:], d)
	})
	if err != nil {
		return nil, err
	}
	return s[:k], nil
}

// countRuns returns the number of distinct values of the sorted s, or
// more than most when there are more, pollWords at a time, polling the
// context of thread's run.
func countRuns(thread *starlark.Thread, fn string, s []uint64, most int) (int, error) {
	n := 0
	err := inChunks(thread, fn, len(s), pollWords, func(lo, hi int) {
		if n > most {
			return
		}
		if lo > 0 && s[lo] == s[lo-1] {
			n-- // the run goes on from the chunk before
		}
		words.Runs(s[lo:hi], func(uint64, int) bool { n++; return n <= most })
	})
	return n, err
}
