package machine

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
)

// Global lists read as tables beside lists of words and of rows of words
// (snapshot): lists holding negative ints (down to -2^63), and lists of
// rows of tuples of ints (PLACEMENTS[cell] lists (piece, mask) pairs),
// which the compiler reads biased and strided (builtins/fuse/compile,
// tuples.go). Their snapshot is the walk over their values, an int or a
// list's or tuple's length at each step, compared step by step at each
// call; the lists met on the way are recorded, as a list of rows records
// its rows.

// tableToken is one step of the walk over a table's value.
type tableToken struct {
	kind uint8  // tokWord, tokNeg, tokList, tokTuple
	w    uint64 // the int (two's complement where negative), or the length
}

const (
	tokWord = iota
	tokNeg
	tokList
	tokTuple
)

// maxTableDepth is the lists or tuples a table nests: a list of rows of
// tuples.
const maxTableDepth = 3

// deepSnapshot records the walk of l, a list with a list or tuple among
// its elements (nested; a flat list with negative ints is not one, and is
// left to an array of the code's: compile.GlobalArray), or says why not
// (snapshot's reasons): it holds something other than ints in [-2^63,
// 2^64) and lists or tuples of them, nested at most maxTableDepth deep, or
// the memory budget has no room for the walk.
func deepSnapshot(env Env, l *starlark.List) (t Table, why string, nested bool) {
	t = Table{l: l}
	steps := 1 + l.Len()
	for i := 0; i < l.Len(); i++ {
		if r, ok := compile.ListOrTuple(l.Index(i)); ok {
			nested = true
			steps += r.Len()
			for j := 0; j < r.Len() && steps < 1<<26; j++ {
				if x, ok := compile.ListOrTuple(r.Index(j)); ok {
					steps += 1 + x.Len()
				}
			}
		}
	}
	if !nested {
		return t, otherValues, false
	}
	if err := env.reserve("a table copied from a list", memory.AllocSize(int64(steps), 16)); err != nil {
		return t, fmt.Sprintf("is a list of %d words, which the memory budget has no room to copy (%v)", steps, err), true
	}
	t.deep = make([]tableToken, 0, steps)
	if !t.walk(l, 1) {
		return t, otherValues, true
	}
	return t, "", true
}

func (t *Table) walk(v starlark.Value, depth int) bool {
	switch v := v.(type) {
	case starlark.Int:
		tok, ok := intToken(v)
		t.deep = append(t.deep, tok)
		return ok
	case *starlark.List:
		if depth > maxTableDepth {
			return false
		}
		t.lists = append(t.lists, v)
		t.deep = append(t.deep, tableToken{tokList, uint64(v.Len())})
		for i := 0; i < v.Len(); i++ {
			if !t.walk(v.Index(i), depth+1) {
				return false
			}
		}
		return true
	case starlark.Tuple:
		if depth > maxTableDepth {
			return false
		}
		t.deep = append(t.deep, tableToken{tokTuple, uint64(len(v))})
		for _, x := range v {
			if !t.walk(x, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// intToken is x's step, or false where x is below -2^63 or past 2^64 - 1.
func intToken(x starlark.Int) (tableToken, bool) {
	if u, ok := x.Uint64(); ok {
		return tableToken{tokWord, u}, true
	}
	if s, ok := x.Int64(); ok {
		return tableToken{tokNeg, uint64(s)}, true
	}
	return tableToken{}, false
}

// holdsDeep reports whether t's list still walks as recorded.
func (t *Table) holdsDeep() bool {
	n, ok := t.match(t.l, 0)
	return ok && n == len(t.deep)
}

// match compares v's walk with t.deep from step i; it returns the step
// after v's.
func (t *Table) match(v starlark.Value, i int) (int, bool) {
	if i >= len(t.deep) {
		return i, false
	}
	tok := t.deep[i]
	switch v := v.(type) {
	case starlark.Int:
		got, ok := intToken(v)
		return i + 1, ok && got == tok
	case *starlark.List:
		if tok.kind != tokList || uint64(v.Len()) != tok.w {
			return i, false
		}
		i++
		for j := 0; j < v.Len(); j++ {
			var ok bool
			if i, ok = t.match(v.Index(j), i); !ok {
				return i, false
			}
		}
		return i, true
	case starlark.Tuple:
		if tok.kind != tokTuple || uint64(len(v)) != tok.w {
			return i, false
		}
		i++
		for _, x := range v {
			var ok bool
			if i, ok = t.match(x, i); !ok {
				return i, false
			}
		}
		return i, true
	}
	return i, false
}

// tableTuple reports whether t holds ints in [-2^63, 2^64) only, or tuples
// of them, nested at most maxTableDepth deep with t: a table whose words
// the compiler reads (biased where it holds negative ints). A tuple
// holding a list is not one: the list may change between calls.
func tableTuple(t starlark.Tuple, depth int) bool {
	if depth > maxTableDepth {
		return false
	}
	for _, x := range t {
		switch x := x.(type) {
		case starlark.Int:
			if _, ok := intToken(x); !ok {
				return false
			}
		case starlark.Tuple:
			if !tableTuple(x, depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
