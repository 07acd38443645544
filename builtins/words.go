package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

// Words is the word array of SPEC §8 (type "words"): an immutable slice
// of 64-bit words. Other bindings (chess, fuse, shards) take and return
// arrays through NewWords and Uint64s.
type Words struct {
	w []uint64
}

// NewWords returns an array holding ws. The array owns ws: the caller must
// not modify it afterwards.
func NewWords(ws []uint64) *Words { return &Words{w: ws} }

// Uint64s returns the array's words. The caller must not modify them.
func (a *Words) Uint64s() []uint64 { return a.w }

var (
	_ starlark.Indexable = (*Words)(nil)
	_ starlark.Sequence  = (*Words)(nil)
)

// String shows the length and the first items.
func (a *Words) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "words(len=%d, [", len(a.w))
	for i, x := range a.w {
		if i == 8 {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", x)
	}
	b.WriteString("])")
	return b.String()
}

// Type returns "words".
func (a *Words) Type() string { return "words" }

// Freeze does nothing: arrays are immutable.
func (a *Words) Freeze() {}

// Truth reports whether the array is non-empty.
func (a *Words) Truth() starlark.Bool { return len(a.w) > 0 }

// Hash fails: arrays are not hashable.
func (a *Words) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: words") }

// Len returns the number of words.
func (a *Words) Len() int { return len(a.w) }

// Index returns word i as an int.
func (a *Words) Index(i int) starlark.Value { return starlark.MakeUint64(a.w[i]) }

// Iterate yields the words as ints.
func (a *Words) Iterate() starlark.Iterator { return &wordsIter{a: a} }

type wordsIter struct {
	a *Words
	i int
}

func (it *wordsIter) Next(p *starlark.Value) bool {
	if it.i >= len(it.a.w) {
		return false
	}
	*p = starlark.MakeUint64(it.a.w[it.i])
	it.i++
	return true
}

func (it *wordsIter) Done() {}
