package builtins

import (
	"context"

	"go.starlark.net/starlark"
)

// A prefetch iterator runs a producer on a goroutine of its own, a batch
// of items ahead of the script, so that the producer's work per item
// overlaps with the interpreter's loop instead of adding to it. conv turns
// an item into a Starlark value on the script's side. Done stops the
// producer and waits for it: no goroutine outlives the iteration.
type prefetch[T any] struct {
	lazyIter
	conv    func(T) starlark.Value
	batches chan []T
	batch   []T
	cancel  context.CancelFunc
	done    chan struct{}
}

const prefetchBatch = 1024

// newPrefetch starts produce, which calls emit with every item in order
// and stops early when emit returns false or ctx is done.
func newPrefetch[T any](li lazyIter, ctx context.Context, produce func(ctx context.Context, emit func(T) bool) error, conv func(T) starlark.Value) *prefetch[T] {
	ctx, cancel := context.WithCancel(ctx)
	it := &prefetch[T]{lazyIter: li, conv: conv, batches: make(chan []T, 2), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(it.done)
		defer close(it.batches)
		batch := make([]T, 0, prefetchBatch)
		send := func() bool {
			select {
			case it.batches <- batch:
				batch = make([]T, 0, prefetchBatch)
				return true
			case <-ctx.Done():
				return false
			}
		}
		err := produce(ctx, func(x T) bool {
			batch = append(batch, x)
			return len(batch) < prefetchBatch || send()
		})
		if err == nil && len(batch) > 0 {
			send()
		}
	}()
	return it
}

func (it *prefetch[T]) Next(p *starlark.Value) bool {
	if it.stop {
		return false
	}
	if len(it.batch) == 0 {
		var ok bool
		if it.batch, ok = <-it.batches; !ok {
			it.stop = true
			it.halted() // the producer may have stopped for a cancellation
			return false
		}
	}
	*p, it.batch = it.conv(it.batch[0]), it.batch[1:]
	return true
}

func (it *prefetch[T]) Done() {
	it.cancel()
	<-it.done
}
