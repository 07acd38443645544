// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

const insertWordsKey = "go.starlark.net/hashtable.insert-words"

// TestHashInsertWords: the function Thread.Local gives under
// go.starlark.net/hashtable.insert-words leaves a dict and a set as
// inserting the same ints one by one does (entries, order, values,
// lengths), whether they hold entries already (strings among them, some
// deleted, some given again), a key is given twice, and the ints are few
// or many (past the table's growth); it
// refuses a frozen dict, one being iterated, another value, and values
// that do not match the keys, changing nothing; an application's own value
// under the key is returned as stored.
func TestHashInsertWords(t *testing.T) {
	thread := new(starlark.Thread)
	insert, ok := thread.Local(insertWordsKey).(func(starlark.Value, []uint64, []uint64) bool)
	if !ok {
		t.Fatalf("Local(%q) = %T; want func(starlark.Value, []uint64, []uint64) bool", insertWordsKey, thread.Local(insertWordsKey))
	}
	for _, start := range []int{0, 1, 9, 300} {
		for _, more := range []int{0, 5, 100, 5000, 20000} {
			plain, fast := starlark.NewDict(0), starlark.NewDict(0)
			ps, fs := starlark.NewSet(0), starlark.NewSet(0)
			for i := range start {
				var k starlark.Value = starlark.MakeInt(i * 7)
				if i%4 == 1 {
					k = starlark.String(strings.Repeat("s", i%5) + string(rune('a'+i%26)))
				}
				for _, d := range []*starlark.Dict{plain, fast} {
					d.SetKey(k, starlark.MakeInt(i))
				}
				ps.Insert(k)
				fs.Insert(k)
			}
			for i := 0; i < start; i += 3 {
				for _, d := range []*starlark.Dict{plain, fast} {
					d.Delete(starlark.MakeInt(i * 7))
				}
				ps.Delete(starlark.MakeInt(i * 7))
				fs.Delete(starlark.MakeInt(i * 7))
			}
			keys, vals := make([]uint64, more), make([]uint64, more)
			x := uint64(start*31 + more)
			for i := range keys {
				x = x*6364136223846793005 + 1442695040888963407
				switch i % 5 {
				case 0:
					keys[i] = uint64(i%(start+1)) * 7 // one it holds (or held)
				case 1:
					keys[i] = x // past 2^63 at times
				case 2:
					keys[i] = keys[i/2] // given twice
				default:
					keys[i] = x >> 40
				}
				vals[i] = x >> 50
			}
			for i, k := range keys {
				plain.SetKey(starlark.MakeUint64(k), starlark.MakeUint64(vals[i]))
				ps.Insert(starlark.MakeUint64(k))
			}
			if !insert(fast, keys, vals) || !insert(fs, keys, nil) {
				t.Fatalf("start %d, more %d: refused", start, more)
			}
			if plain.Len() != fast.Len() || ps.Len() != fs.Len() {
				t.Fatalf("start %d, more %d: len %d and %d; want %d and %d", start, more, fast.Len(), fs.Len(), plain.Len(), ps.Len())
			}
			if p, f := plain.String(), fast.String(); p != f {
				t.Fatalf("start %d, more %d: dict %.300s...; want %.300s...", start, more, f, p)
			}
			if p, f := ps.String(), fs.String(); p != f {
				t.Fatalf("start %d, more %d: set %.300s...; want %.300s...", start, more, f, p)
			}
			for _, k := range keys {
				pv, _, _ := plain.Get(starlark.MakeUint64(k))
				fv, found, _ := fast.Get(starlark.MakeUint64(k))
				if !found || pv != fv {
					t.Fatalf("start %d, more %d: Get(%d) = %v, %v; want %v", start, more, k, fv, found, pv)
				}
				if ok, _ := fs.Has(starlark.MakeUint64(k)); !ok {
					t.Fatalf("start %d, more %d: the set lacks %d", start, more, k)
				}
			}
			// Later operations see a sound table: delete half, add some.
			for i, k := range keys {
				if i%2 == 0 {
					plain.Delete(starlark.MakeUint64(k))
					fast.Delete(starlark.MakeUint64(k))
				}
			}
			plain.SetKey(starlark.MakeInt(-1), starlark.None)
			fast.SetKey(starlark.MakeInt(-1), starlark.None)
			if p, f := plain.String(), fast.String(); p != f || plain.Len() != fast.Len() {
				t.Fatalf("start %d, more %d: after deletions, dict %.300s...; want %.300s...", start, more, f, p)
			}
		}
	}

	// A table of tens of megabytes (on Linux, in huge pages where the
	// kernel grants them).
	big := make([]uint64, 250000)
	for i := range big {
		big[i] = uint64(i) * 2654435761 % 1000003
	}
	plain, fast := starlark.NewDict(0), starlark.NewDict(0)
	for _, k := range big {
		plain.SetKey(starlark.MakeUint64(k), starlark.MakeUint64(k>>3))
	}
	if !insert(fast, big, func() []uint64 {
		v := make([]uint64, len(big))
		for i, k := range big {
			v[i] = k >> 3
		}
		return v
	}()) {
		t.Fatal("250,000 ints refused")
	}
	if plain.Len() != fast.Len() || plain.String() != fast.String() {
		t.Fatalf("250,000 ints: len %d; want %d, or another order", fast.Len(), plain.Len())
	}

	// Refusals change nothing.
	d := starlark.NewDict(0)
	d.SetKey(starlark.MakeInt(1), starlark.MakeInt(2))
	many := make([]uint64, 5000)
	for i := range many {
		many[i] = uint64(i + 10)
	}
	iter := d.Iterate()
	if insert(d, many, many) || d.Len() != 1 {
		t.Errorf("a dict being iterated: inserted, len %d", d.Len())
	}
	iter.Done()
	if insert(d, many, many[1:]) || insert(d, many, nil) || d.Len() != 1 {
		t.Errorf("values that do not match the keys: inserted, len %d", d.Len())
	}
	if insert(starlark.NewSet(0), many, many) {
		t.Errorf("a set given values: inserted")
	}
	d.Freeze()
	if insert(d, many, many) || d.Len() != 1 {
		t.Errorf("a frozen dict: inserted, len %d", d.Len())
	}
	if insert(starlark.NewList(nil), many, nil) {
		t.Errorf("a list: inserted")
	}
	thread.SetLocal(insertWordsKey, "mine")
	if v := thread.Local(insertWordsKey); v != "mine" {
		t.Errorf("Local(%q) = %v after SetLocal; want the application's value", insertWordsKey, v)
	}
}
