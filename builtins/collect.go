package builtins

import (
	"context"
	"fmt"
	"strings"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/starlark"
)

// enumerateBuiltin is bitsh's enumerate, one value shared by every
// interpreter (it holds no state). SetEnv names it to bitsh's fork of
// go.starlark.net under enumerateKey: a for loop or comprehension over
// enumerate(x) of a list or tuple x then runs without building the list of
// pairs (third_party/starlark/README.bitsh.md, change 21), which for such
// an x is what this enumerate returns; it allocates a copy of x at most, so
// it needs no look at the memory budget.
var enumerateBuiltin = starlark.NewBuiltin("enumerate", collect)

// enumerateKey is the thread-local key under which the fork looks for an
// application's enumerate.
const enumerateKey = string(threadkey.Enumerate)

// pollEvery is how many items a collecting builtin takes between two
// looks at the run's context, as the lazy iterators do.
const pollEvery = 4096

// itemBytes estimates what one collected item costs, beyond the items
// that already exist: a slot of 16 bytes (an interface) in the result,
// plus the per-item structures of the collector. Items of a lazy value
// are made as they are collected, so they count too (an int above 2^32 is
// a big.Int of about 48 bytes).
func itemBytes(fn string, lazy bool, arity int) int64 {
	var n int64 = 16
	switch fn {
	case "set":
		n = 64 // hash table entry and bucket share
	case "enumerate":
		n = 16 + 48 + 16 // the pair tuple and its index
	case "zip":
		n = 16 + 24 + 16*int64(max(arity, 1))
	}
	if lazy {
		n += 48
	}
	return n
}

// guardCollect checks the size of what the collector fn would build from
// args against the run's memory budget and wraps iterable arguments so
// that collecting them polls the run's context: go.starlark.net's own
// collectors never do, and list(range(10**8)) would otherwise ignore a
// timeout for seconds.
func guardCollect(thread *starlark.Thread, fn string, args starlark.Tuple) (starlark.Tuple, error) {
	iterables := args
	if fn == "enumerate" && len(args) > 1 {
		iterables = args[:1] // start is not an iterable
	}
	items := int64(-1)
	lazy := false
	for _, a := range iterables {
		n := int64(-1)
		if lc, ok := a.(lazyCounter); ok {
			lazy = true
			if c := lc.lazyCount(); c.IsInt64() {
				n = c.Int64()
			}
		} else {
			n = int64(starlark.Len(a))
		}
		if n >= 0 && (items < 0 || n < items) {
			items = n // zip stops at its shortest argument
		}
	}
	if items > 0 {
		if err := CheckAlloc(thread, fn, memory.AllocSize(items, itemBytes(fn, lazy, len(iterables)))); err != nil {
			return nil, err
		}
	}
	var out starlark.Tuple
	for i, a := range iterables {
		it, ok := a.(starlark.Iterable)
		if !ok {
			continue
		}
		if _, ok := a.(lazyCounter); ok {
			continue // lazy values poll by themselves
		}
		if n := starlark.Len(a); n >= 0 && n <= pollEvery {
			continue
		}
		if out == nil {
			out = append(starlark.Tuple(nil), args...)
		}
		out[i] = &polled{Iterable: it, thread: thread}
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// polled is an iterable whose iterator looks at the run's context every
// pollEvery items. It deliberately hides the Len of what it wraps: the
// collector then grows its result as items come instead of allocating it
// whole before the first poll.
type polled struct {
	starlark.Iterable
	thread *starlark.Thread
}

func (p *polled) Iterate() starlark.Iterator {
	return &polledIter{it: p.Iterable.Iterate(), thread: p.thread, left: pollEvery}
}

type polledIter struct {
	it     starlark.Iterator
	thread *starlark.Thread
	left   int
}

func (pi *polledIter) Next(p *starlark.Value) bool {
	if pi.left--; pi.left <= 0 {
		pi.left = pollEvery
		if ctx := Context(pi.thread); ctx.Err() != nil {
			// The collector returns what it has as if the iterable had
			// ended; cancelling the thread makes the run fail right after.
			pi.thread.Cancel(fmt.Sprint(context.Cause(ctx)))
			return false
		}
	}
	return pi.it.Next(p)
}

func (pi *polledIter) Done() { pi.it.Done() }

// callUniverse calls go.starlark.net's builtin of that name (CallInternal
// keeps the traceback free of a second frame for the name) and makes its
// error name it: sorted([1, "a"]) fails in the comparison, whose message
// alone ("string < int not implemented") does not say who compared.
func callUniverse(thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, err := starlark.Universe[name].(*starlark.Builtin).CallInternal(thread, args, kwargs)
	if err != nil && !strings.HasPrefix(err.Error(), name+":") && !strings.HasPrefix(err.Error(), name+"(") {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, err
}

// sortedPolled is sorted: it collects the items with polling first, so
// that a cancelled run does not go on to sort what it had collected.
func sortedPolled(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 1 {
		return callUniverse(thread, "sorted", args, kwargs)
	}
	if _, ok := args[0].(*polled); !ok {
		return callUniverse(thread, "sorted", args, kwargs)
	}
	items, err := callUniverse(thread, "list", args, nil)
	if err != nil {
		return nil, fmt.Errorf("sorted: %w", err)
	}
	if ctx := Context(thread); ctx.Err() != nil {
		return nil, fmt.Errorf("sorted: %v", context.Cause(ctx))
	}
	return callUniverse(thread, "sorted", starlark.Tuple{items}, kwargs)
}
