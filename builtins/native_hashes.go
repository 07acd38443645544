package builtins

import (
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/machine"
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
// takes, as they are now (a key and a value an entry): what each call
// converts, which may have grown since the function was compiled.
func (nf *nativeFunc) hashWords() int {
	n := 0
	for _, g := range nf.pc.Hashes {
		switch v := g.Hash.(type) {
		case *starlark.Dict:
			n += 2 * v.Len()
		case *starlark.Set:
			n += v.Len()
		}
	}
	return n
}

// fillHashes fills r's arrays of the module's sets and dicts from them:
// the header, the slots in use, the keys and the values (compile.HashLayout);
// ok is false where one holds what the code cannot take, or is one the
// code writes that Starlark does not let it change now.
func (nf *nativeFunc) fillHashes(r *nativeRun) bool {
	if len(nf.pc.Hashes) == 0 {
		return true
	}
	if len(r.hashes) < len(nf.pc.Hashes) {
		r.hashes = make([]hashRun, len(nf.pc.Hashes))
	}
	a := nf.pc.NLists + len(nf.pc.Globals)
	for i, g := range nf.pc.Hashes {
		h := &r.hashes[i]
		dict := compile.IsDict(g.Hash)
		k := compile.HashArrays(dict)
		// Written where the code may write the header (an insertion, a
		// clear) or the values.
		h.written = nf.pc.Written[a] || dict && nf.pc.Written[a+3]
		var ok bool
		h.keys, h.vals, ok = machine.HashWords(g.Hash, append(h.keys[:0], 0), append(h.vals[:0], 0))
		if !ok || h.written && !machine.MutableHash(g.Hash) {
			return false
		}
		hdr, slots, ok := compile.HashLayout(h.keys[1:], h.slots)
		if !ok {
			return false
		}
		h.slots = slots
		r.w.SetPrefix(a, hdr[:])
		r.w.SetPrefix(a+1, slots)
		r.w.SetPrefix(a+2, h.keys)
		if dict {
			r.w.SetPrefix(a+3, h.vals)
		}
		a += k
	}
	return true
}

// writeHashes writes back to the module's sets and dicts what a run that
// succeeded changed: the values it set of the entries they held, then the
// entries it added, in order (all of them, after a clear).
func (nf *nativeFunc) writeHashes(r *nativeRun) {
	a := nf.pc.NLists + len(nf.pc.Globals)
	for i, g := range nf.pc.Hashes {
		h := &r.hashes[i]
		dict := compile.IsDict(g.Hash)
		k := compile.HashArrays(dict)
		if !h.written {
			a += k
			continue
		}
		var hdr [3]uint64
		r.w.Array(a, hdr[:])
		n, n0 := int(hdr[0]), len(h.keys)-1
		if cap(h.out) < 2*(n+1) {
			h.out = make([]uint64, 2*(n+1))
		}
		keys, vals := h.out[:n+1], h.out[n+1:2*(n+1)]
		r.w.Array(a+2, keys)
		if dict {
			r.w.Array(a+3, vals)
		}
		// A clear empties the table; the entries are appended only, so
		// a table that holds others than its first n0 (or fewer) was
		// cleared: written back anew.
		cleared := n < n0
		for j := 1; j <= min(n, n0) && !cleared; j++ {
			cleared = keys[j] != h.keys[j]
		}
		if cleared {
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
		for j := 1; j <= n; j++ {
			var err error
			switch d := g.Hash.(type) {
			case *starlark.Dict:
				if j <= n0 && vals[j] == h.vals[j] {
					continue
				}
				err = d.SetKey(starlark.MakeUint64(keys[j]), starlark.MakeUint64(vals[j]))
			case *starlark.Set:
				if j <= n0 {
					continue
				}
				err = d.Insert(starlark.MakeUint64(keys[j]))
			}
			if err != nil {
				panic(err) // checked mutable before the run
			}
		}
		a += k
	}
}
