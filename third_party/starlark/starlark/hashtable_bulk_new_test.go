// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark_test

import (
	"fmt"
	"testing"

	"go.starlark.net/starlark"
)

// TestHashInsertWordsNew: ints new to the table, inserted at once, leave
// a dict and a set as inserting them one by one does, where they share
// their hash with others (alike; ints past 2^63 are hashed as big ints), where the table holds entries, some deleted, and
// where, after thousands of new ones, one is given again or is one the
// table held before (the rest go in one by one).
func TestHashInsertWordsNew(t *testing.T) {
	for _, k := range []uint64{0, 5, 100002} {
		h1, _ := starlark.MakeUint64(k).Hash()
		h2, _ := starlark.MakeUint64(alike(k)).Hash()
		if h1 != h2 || alike(k) == k {
			t.Fatalf("alike(%d) = %d: hashes %d and %d", k, alike(k), h1, h2)
		}
	}
	insert := new(starlark.Thread).Local(insertWordsKey).(func(starlark.Value, []uint64, []uint64) bool)
	for _, start := range []int{0, 3, 40} {
		for _, last := range []string{"new", "twice", "held"} {
			what := fmt.Sprintf("start %d, %s", start, last)
			plain, fast := starlark.NewDict(0), starlark.NewDict(0)
			ps, fs := starlark.NewSet(0), starlark.NewSet(0)
			for i := range start {
				k := starlark.MakeInt(200000 + i) // not among the new keys below
				for _, d := range []*starlark.Dict{plain, fast} {
					d.SetKey(k, starlark.MakeInt(i))
					d.SetKey(starlark.String(fmt.Sprint(i)), starlark.None)
				}
				ps.Insert(k)
				fs.Insert(k)
				if i%3 == 0 {
					for _, d := range []*starlark.Dict{plain, fast} {
						d.Delete(k)
					}
					ps.Delete(k)
					fs.Delete(k)
				}
			}
			var keys, vals []uint64
			for i := range uint64(3000) {
				k := i * 7919 % 100003
				keys = append(keys, k, alike(k), 1<<63+i*104729)
				vals = append(vals, i, i+1, i+2)
			}
			switch last {
			case "twice":
				keys = append(keys, keys[100], 5)
				vals = append(vals, 99, 98)
			case "held":
				keys = append(keys, 200000+uint64(start)/2, 5) // held, unless deleted (start 0, 3)
				vals = append(vals, 97, 96)
			}
			for i, k := range keys {
				plain.SetKey(starlark.MakeUint64(k), starlark.MakeUint64(vals[i]))
				ps.Insert(starlark.MakeUint64(k))
			}
			if !insert(fast, keys, vals) || !insert(fs, keys, nil) {
				t.Fatalf("%s: refused", what)
			}
			if plain.Len() != fast.Len() || ps.Len() != fs.Len() || plain.String() != fast.String() || ps.String() != fs.String() {
				t.Fatalf("%s: len %d and %d (want %d and %d), or another order or values", what, fast.Len(), fs.Len(), plain.Len(), ps.Len())
			}
			for _, k := range keys {
				pv, _, _ := plain.Get(starlark.MakeUint64(k))
				fv, found, _ := fast.Get(starlark.MakeUint64(k))
				if ok, _ := fs.Has(starlark.MakeUint64(k)); !found || pv != fv || !ok {
					t.Fatalf("%s: Get(%d) = %v, %v, in the set %v; want %v", what, k, fv, found, ok, pv)
				}
			}
			for i, k := range keys {
				if i%3 != 1 {
					plain.Delete(starlark.MakeUint64(k))
					fast.Delete(starlark.MakeUint64(k))
				}
			}
			plain.SetKey(starlark.MakeInt(7), starlark.None)
			fast.SetKey(starlark.MakeInt(7), starlark.None)
			if plain.Len() != fast.Len() || plain.String() != fast.String() {
				t.Fatalf("%s: after deletions, another dict", what)
			}
		}
	}
}

// alike returns an int other than k, above 2^32, whose hash is k's: an
// int's hash is of the two halves of its low word plus 3, xored (the
// fork's wordHash), so flipping the same bit in both halves keeps it.
func alike(k uint64) uint64 {
	return ((k + 3) ^ (1<<32 | 1)) - 3
}
