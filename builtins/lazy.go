package builtins

import (
	"context"
	"fmt"
	"math/big"

	"go.starlark.net/starlark"
)

// Lazy values (subsets, debruijn_sequences, set_classes) may stand for
// more items than memory holds. They deliberately do not implement
// starlark.Sequence: go.starlark.net's list(), tuple(), sorted() and
// enumerate() preallocate Len() slots before iterating, so
// list(subsets(2**40 - 1)) would crash the process before any check could
// run. Instead bitsh predeclares its own len and collecting builtins
// (list, tuple, sorted, set, enumerate, zip, reversed), which behave as
// Starlark's but check a lazy argument's size first and fail with an
// ordinary error, one that assert.fails can catch.
//
// Go consumers that do not keep items (min, max, any, all, for loops)
// are not limited; the iterators poll the run's context every 4096 items
// so that Ctrl-C and timeouts stop them.

// MaxMaterialise is the most items that list, tuple, sorted and the other
// collecting builtins accept from one of bitsh's lazy values.
const MaxMaterialise = 1 << 24

// A lazyCounter is a lazy bitsh value whose exact length len() reports.
type lazyCounter interface {
	starlark.Value
	lazyCount() *big.Int
}

// A collectLimiter is a lazy value whose items are large enough to need a
// lower limit than MaxMaterialise.
type collectLimiter interface {
	collectLimit() int64
}

// collectors are the Starlark builtins that keep every item of an
// iterable argument; bitsh's versions check lazy arguments' sizes first.
var collectors = []string{"list", "tuple", "sorted", "set", "enumerate", "zip", "reversed"}

func init() {
	register(Builtin{Name: "len", Topic: "starlark", Fn: lenFn, Doc: `len(x)
Returns the number of elements of x, as Starlark's len, extended to bitsh's
lazy values (subsets, debruijn_sequences, set_classes), whose length may
exceed 2^31. Error when it exceeds 2^63-1: s.count holds the exact count.`})
	for _, name := range collectors {
		register(Builtin{Name: name, Topic: "starlark", Fn: collect, Doc: name + `(...)
As Starlark's ` + name + `, except that a lazy bitsh value of more than
16777216 items (subsets, debruijn_sequences) or 1000000 items (set_classes)
is an error instead of exhausting memory: iterate it with for instead.`})
	}
}

func lenFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 1 && len(kwargs) == 0 {
		if lc, ok := args[0].(lazyCounter); ok {
			n := lc.lazyCount()
			if !n.IsInt64() {
				return nil, fmt.Errorf("len: %s has %s items, more than 2^63-1 (use .count)", lc.String(), n)
			}
			return starlark.MakeInt64(n.Int64()), nil
		}
	}
	return starlark.Universe["len"].(*starlark.Builtin).CallInternal(thread, args, kwargs)
}

// collect is list, tuple, sorted, set, enumerate, zip and reversed.
func collect(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	for _, a := range args {
		if lc, ok := a.(lazyCounter); ok {
			limit := int64(MaxMaterialise)
			if cl, ok := a.(collectLimiter); ok {
				limit = cl.collectLimit()
			}
			if n := lc.lazyCount(); n.Cmp(big.NewInt(limit)) > 0 {
				return nil, fmt.Errorf("%s: %s has %s items, more than the %d a %s may collect; iterate it with a for loop instead",
					b.Name(), lc.String(), n, limit, b.Name())
			}
		}
	}
	args, err := guardCollect(thread, b.Name(), args)
	if err != nil {
		return nil, err
	}
	if b.Name() == "sorted" {
		return sortedPolled(thread, args, kwargs)
	}
	return callUniverse(thread, b.Name(), args, kwargs)
}

// lazyIter holds what every lazy iterator shares: cancellation polling.
type lazyIter struct {
	thread *starlark.Thread // nil when unknown
	poll   int
	stop   bool
}

// startLazy prepares the iteration of a lazy value made at origin o.
func startLazy(o Origin) lazyIter {
	return lazyIter{thread: o.Thread(), poll: 4096}
}

// tick is called once per item; every 4096 items it polls the iterating
// thread's context and stops the iteration when it is done.
func (li *lazyIter) tick() bool {
	if li.poll--; li.poll > 0 {
		return true
	}
	li.poll = 4096
	if li.halted() {
		li.stop = true
		return false
	}
	return true
}

// halted reports whether the iterating run's context is done and, if so,
// cancels the thread: the Go consumer that stops early (max, any, list)
// returns normally, so the cancellation must not depend on the interpreter
// noticing the context first.
func (li *lazyIter) halted() bool {
	if li.thread == nil {
		return false
	}
	ctx := Context(li.thread)
	if ctx.Err() == nil {
		return false
	}
	li.thread.Cancel(context.Cause(ctx).Error())
	return true
}

// indexArg converts a Starlark index for a value of count items (count
// may be 2^64) into an offset in [0, count), negative indices counting
// from the end.
func indexArg(typ string, key starlark.Value, count *big.Int) (uint64, error) {
	i, ok := key.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s index: got %s, want int", typ, key.Type())
	}
	bi := i.BigInt()
	if bi.Sign() < 0 {
		bi.Add(bi, count)
	}
	if bi.Sign() < 0 || bi.Cmp(count) >= 0 {
		if count.Sign() == 0 {
			return 0, fmt.Errorf("%s index %s out of range: empty %s", typ, i, typ)
		}
		return 0, fmt.Errorf("%s index %s out of range [-%s:%s]", typ, i, count, new(big.Int).Sub(count, big.NewInt(1)))
	}
	return bi.Uint64(), nil
}

// memberWord converts the left operand of `in` to a word: ok is false for
// a non-int or an int outside [0, 2^64).
func memberWord(x starlark.Value) (uint64, bool) {
	i, ok := x.(starlark.Int)
	if !ok {
		return 0, false
	}
	return i.Uint64()
}
