package machine

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
)

// A module's sets and dicts of ints that a plain function reads or writes
// (compile.Global.Hash), and those passed to it (compile.Options.Hashes):
// each is compile.HashArrays array parameters, after the module's lists
// (the module's first, then the arguments'), laid out as the compiler's
// hash tables are (compile.HashLayout). Before each run the hook fills
// them from the set or dict (HashWords: O(n) per call, which the hook
// times where it is large, so that the give-up rules weigh it); after a
// successful run it writes back the entries removed, the values changed
// and the entries added, in their order. A failed run changes nothing:
// the interpreter runs the call on the set or dict as it was.

// hashGlobal returns the compile.Global of the module's set or dict gw
// names, or the error that leaves the function interpreted: one of more
// than compile.GlobalHashCap entries or of other keys or values than ints in
// [0, 2^64), one compiled already (named twice), or one too many.
func hashGlobal(gw *compile.GlobalArray, globals []compile.Global) (compile.Global, error) {
	refuse := func(format string, args ...any) (compile.Global, error) {
		return compile.Global{}, &compile.Error{Pos: gw.Err.Pos, Msg: fmt.Sprintf(format, args...)}
	}
	if len(globals) >= MaxGlobals {
		return refuse("%s is one of more than %d lists, sets and dicts of its module that the function reads or writes", gw.Name, MaxGlobals)
	}
	for _, g := range globals {
		if g.Hash == gw.Hash {
			return refuse("%s is a %s of its module that the function names twice", gw.Name, gw.Hash.Type())
		}
	}
	if n := hashLen(gw.Hash); n > compile.GlobalHashCap {
		return refuse("%s is a %s of %d entries; one a function run as machine code takes has at most %d", gw.Name, gw.Hash.Type(), n, compile.GlobalHashCap)
	}
	if _, _, ok := HashWords(gw.Hash, nil, nil); !ok {
		return refuse("%s is a %s of other keys or values than ints in [0, 2^64)", gw.Name, gw.Hash.Type())
	}
	return compile.Global{Name: gw.Name, Hash: gw.Hash}, nil
}

// hashLen is the entries of a set or dict.
func hashLen(v starlark.Value) int {
	switch v := v.(type) {
	case *starlark.Dict:
		return v.Len()
	case *starlark.Set:
		return v.Len()
	}
	return 0
}

// HashWords appends to keys (and, for a dict, vals) the words of v's
// entries, in order; ok is false where a key or value is not an int in
// [0, 2^64).
func HashWords(v starlark.Value, keys, vals []uint64) ([]uint64, []uint64, bool) {
	word := func(x starlark.Value) (uint64, bool) {
		i, ok := x.(starlark.Int)
		if !ok {
			return 0, false
		}
		return i.Uint64()
	}
	switch v := v.(type) {
	case *starlark.Dict:
		for k, x := range v.Entries() {
			kw, ok1 := word(k)
			xw, ok2 := word(x)
			if !ok1 || !ok2 {
				return keys, vals, false
			}
			keys, vals = append(keys, kw), append(vals, xw)
		}
	case *starlark.Set:
		for k := range v.Elements() {
			kw, ok := word(k)
			if !ok {
				return keys, vals, false
			}
			keys = append(keys, kw)
		}
	default:
		return keys, vals, false
	}
	return keys, vals, true
}

// MutableHash reports whether Starlark lets the set or dict v be changed
// now (it is not frozen, nor being iterated), changing nothing: one of its
// entries set again, or, empty, cleared.
func MutableHash(v starlark.Value) bool {
	// The first entry is set again once its iteration is over: Starlark
	// refuses a change while one runs.
	var first, value starlark.Value
	switch v := v.(type) {
	case *starlark.Dict:
		for k, x := range v.Entries() {
			first, value = k, x
			break
		}
		if first == nil {
			return v.Clear() == nil
		}
		return v.SetKey(first, value) == nil
	case *starlark.Set:
		for k := range v.Elements() {
			first = k
			break
		}
		if first == nil {
			return v.Clear() == nil
		}
		return v.Insert(first) == nil
	}
	return false
}

// globalArrays appends the biases of the array parameters of globals (the
// module's lists, then its sets and dicts) to biases, and the words each
// call converts to words; it returns the lists and the sets and dicts
// apart (PlainCode.Globals, PlainCode.Hashes).
func globalArrays(globals []compile.Global, biases []uint64, words int) (lists, hashes []compile.Global, _ []uint64, _ int) {
	lists, hashes = splitGlobals(globals)
	for _, g := range lists {
		biases = append(biases, g.Bias)
		if !g.Log {
			words += g.Len
		}
	}
	for _, g := range hashes {
		k := compile.HashArrays(compile.IsDict(g.Hash))
		biases = append(biases, make([]uint64, k)...)
		words += (k - 1) * max(hashLen(g.Hash), 8) // (slots at most twice the entries, keys, values)
	}
	return lists, hashes, biases, words
}

// splitGlobals returns the module's lists of globals, then its sets and
// dicts: the order of their array parameters (compile.Global).
func splitGlobals(globals []compile.Global) (lists, hashes []compile.Global) {
	for _, g := range globals {
		if g.Hash != nil {
			hashes = append(hashes, g)
		} else {
			lists = append(lists, g)
		}
	}
	return lists, hashes
}

// hashesOf gives, for each argument, its kind where it is a set or dict
// (compile.HashSet, compile.HashDict), else 0, and how many are; nil where
// none is.
func hashesOf(args starlark.Tuple) ([]int, int) {
	var kinds []int
	n := 0
	for i, a := range args {
		k := 0
		switch a.(type) {
		case *starlark.Set:
			k = compile.HashSet
		case *starlark.Dict:
			k = compile.HashDict
		default:
			continue
		}
		if kinds == nil {
			kinds = make([]int, len(args))
		}
		kinds[i] = k
		n++
	}
	return kinds, n
}
