package builtins

import (
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/machine"
	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/starlark"
)

// hashRun is what a call keeps of one of the module's sets and dicts its
// code takes (machine.PlainCode.Hashes): the words of the entries it
// filled the arrays with, to write back what the run changed.
type hashRun struct {
	keys, vals, slots, out []uint64
	written                bool
}

// hashWords returns the words of the module's sets and dicts the code
// takes, and of those among args it takes, as they are now (a key and a
// value an entry): what each call converts, which may have grown since
// the function was compiled.
func (nf *nativeFunc) hashWords(args starlark.Tuple) int {
	if len(nf.pc.Hashes) == 0 && len(nf.pc.HashParams) == 0 {
		return 0
	}
	n := 0
	count := func(v starlark.Value) {
		switch v := v.(type) {
		case *starlark.Dict:
			n += 2 * v.Len()
		case *starlark.Set:
			n += v.Len()
		}
	}
	for _, g := range nf.pc.Hashes {
		count(g.Hash)
	}
	for i, k := range nf.pc.HashParams {
		if k != 0 && i < len(args) {
			count(args[i])
		}
	}
	return n
}

// hashArg reports whether a, an argument, is a set (kind compile.HashSet)
// or a dict (compile.HashDict) as kind says.
func hashArg(a starlark.Value, kind int) bool {
	switch a.(type) {
	case *starlark.Set:
		return kind == compile.HashSet
	case *starlark.Dict:
		return kind == compile.HashDict
	}
	return false
}

// hashTables returns the sets and dicts the code takes, in the order of
// their arrays: the module's, then the arguments' (params), or false where
// one is given twice (the code would not see one's writes in the other).
func (nf *nativeFunc) hashTables(params []starlark.Value) ([]starlark.Value, bool) {
	var buf [machine.MaxGlobals + compile.MaxExactParams]starlark.Value
	tabs := buf[:0]
	for _, g := range nf.pc.Hashes {
		tabs = append(tabs, g.Hash)
	}
	for _, p := range params {
		for _, t := range tabs {
			if t == p {
				return nil, false
			}
		}
		tabs = append(tabs, p)
	}
	return tabs, true
}

// fillHashes fills r's arrays of the module's sets and dicts from them:
// the header, the slots in use, the keys, the removed flags (none) and the
// values (compile.HashLayout); ok is false where one holds what the code
// cannot take, or is one the code writes that Starlark does not let it
// change now.
func (nf *nativeFunc) fillHashes(r *nativeRun, params []starlark.Value) bool {
	if len(nf.pc.Hashes)+len(params) == 0 {
		return true
	}
	tabs, ok := nf.hashTables(params)
	if !ok {
		return false
	}
	if len(r.hashes) < len(tabs) {
		r.hashes = make([]hashRun, len(tabs))
	}
	a := nf.pc.NLists + len(nf.pc.Globals)
	for i, t := range tabs {
		g := compile.Global{Hash: t}
		h := &r.hashes[i]
		dict := compile.IsDict(g.Hash)
		// Written where the code may write the header (an insertion, a
		// removal, a clear) or the values.
		h.written = nf.pc.Written[a] || dict && nf.pc.Written[a+4]
		if h.written && !machine.MutableHash(g.Hash) {
			return false
		}
		var ok bool
		h.keys, h.vals, ok = machine.HashWords(g.Hash, append(h.keys[:0], 0), append(h.vals[:0], 0))
		if !ok {
			return false
		}
		hdr, slots, ok := compile.HashLayout(h.keys[1:], h.slots)
		if !ok {
			return false
		}
		h.slots = slots
		if cap(h.out) < len(h.keys) {
			h.out = make([]uint64, len(h.keys))
		}
		r.w.SetPrefix(a, hdr[:])
		r.w.SetPrefix(a+1, slots)
		r.w.SetPrefix(a+2, h.keys)
		r.w.SetPrefix(a+3, zeros(h.out[:len(h.keys)]))
		if dict {
			r.w.SetPrefix(a+4, h.vals)
		}
		a += compile.HashArrays(dict)
	}
	return true
}

// zeros clears w and returns it.
func zeros(w []uint64) []uint64 {
	clear(w)
	return w
}

// writeHashes writes back to the module's sets and dicts what a run that
// succeeded changed: the entries it removed, the values it set of the
// others, then the entries it added, in order; after a clear, or where
// the table was rebuilt (its entries renumbered), all of them anew. Where
// the fork offers it (hashInsertWordsKey), the entries added go in at
// once: the set's or dict's table grown once, the entries placed in the
// order of its buckets.
func (nf *nativeFunc) writeHashes(thread *starlark.Thread, r *nativeRun, params []starlark.Value) {
	if len(nf.pc.Hashes)+len(params) == 0 {
		return
	}
	tabs, _ := nf.hashTables(params)
	a := nf.pc.NLists + len(nf.pc.Globals)
	for i, t := range tabs {
		g := compile.Global{Hash: t}
		h := &r.hashes[i]
		dict := compile.IsDict(g.Hash)
		k := compile.HashArrays(dict)
		if !h.written {
			a += k
			continue
		}
		var hdr [compile.HashHeader]uint64
		r.w.Array(a, hdr[:])
		n, n0 := int(hdr[0]), len(h.keys)-1
		// The arrays as the run left them, read where they lie in the
		// worker's memory where they can be: a table of 200,000 entries
		// has 5 MB of them, which copied would be as many page faults and
		// would bring on a garbage collection.
		var keys, dead, vals []uint64
		h.out, keys = r.w.ArrayWords(a+2, n+1, h.out[:0])
		h.out, dead = r.w.ArrayWords(a+3, n+1, h.out)
		if dict {
			h.out, vals = r.w.ArrayWords(a+4, n+1, h.out)
		}
		// The entries are appended, flagged when removed, and renumbered
		// only by a clear or a rebuild: a table whose first n0 keys are
		// not those it was given was cleared or rebuilt.
		anew := n < n0
		for j := 1; j <= min(n, n0) && !anew; j++ {
			anew = keys[j] != h.keys[j]
		}
		if anew {
			var err error
			switch d := g.Hash.(type) {
			case *starlark.Dict:
				err = d.Clear()
			case *starlark.Set:
				err = d.Clear()
			}
			if err != nil {
				panic(err) // checked mutable before the run
			}
			n0 = 0
		}
		// The entries it was given first (a removed one may be added
		// again), then those added (n0 <= n here), at once where the fork
		// offers it.
		for j := 1; j <= n; j++ {
			var added []uint64
			if dict {
				added = vals[j:]
			}
			if j == n0+1 && insertAdded(thread, g.Hash, keys[j:], added, dead[j:], dict) {
				break // (the entries added are in, in order)
			}
			key := func() starlark.Value { return starlark.MakeUint64(keys[j]) }
			var err error
			switch d := g.Hash.(type) {
			case *starlark.Dict:
				switch {
				case dead[j] != 0 && j <= n0:
					_, _, err = d.Delete(key())
				case dead[j] != 0, j <= n0 && vals[j] == h.vals[j]:
				default:
					err = d.SetKey(key(), starlark.MakeUint64(vals[j]))
				}
			case *starlark.Set:
				switch {
				case dead[j] != 0 && j <= n0:
					_, err = d.Delete(key())
				case dead[j] != 0, j <= n0:
				default:
					err = d.Insert(key())
				}
			}
			if err != nil {
				panic(err) // checked mutable before the run
			}
		}
		a += k
	}
}

// hashInsertWordsKey is the thread-local key under which bitsh's fork
// of go.starlark.net gives a function that inserts many ints into a set or
// dict at once, as inserting them one by one would
// (third_party/starlark/README.bitsh.md); other builds of go.starlark.net
// give nothing there.
const hashInsertWordsKey = string(threadkey.HashInsertWords)

// insertAdded inserts into the set or dict h the entries a run added,
// keys and (for a dict) vals, those whose removed flag in dead is 0, in
// order, through the fork's function where thread offers it, and reports
// whether it did. It writes none of keys, vals and dead (they may be the
// worker's memory, native.Worker.ArrayWords): where some were removed, it
// packs the others into new arrays.
func insertAdded(thread *starlark.Thread, h starlark.Value, keys, vals, dead []uint64, dict bool) bool {
	if len(keys) < 64 {
		return false // (a few inserts grow the table at most once or twice)
	}
	insert, ok := thread.Local(hashInsertWordsKey).(func(starlark.Value, []uint64, []uint64) bool)
	if !ok {
		return false
	}
	live := len(keys)
	for _, d := range dead {
		if d != 0 {
			live--
		}
	}
	if live < len(keys) {
		ks := make([]uint64, 0, live)
		var vs []uint64
		if dict {
			vs = make([]uint64, 0, live)
		}
		for j, k := range keys {
			if dead[j] == 0 {
				ks = append(ks, k)
				if dict {
					vs = append(vs, vals[j])
				}
			}
		}
		keys, vals = ks, vs
	}
	if !dict {
		vals = nil
	}
	if !insert(h, keys, vals) {
		panic("a set or dict that Starlark does not let the code change") // checked mutable before the run
	}
	return true
}
