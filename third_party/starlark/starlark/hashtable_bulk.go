// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import (
	"unsafe"

	"github.com/bitsh/bitsh/builtins/threadkey"
)

// hashInsertWordsKey is the thread-local key under which Thread.Local
// returns, where the application stored nothing under it, the fork's
// function hashInsertWords, of type
//
//	func(v starlark.Value, keys, vals []uint64) bool
//
// which inserts into the dict v the ints keys[i] with the values vals[i]
// (into the set v the ints keys[i], vals nil), in order: the entries, their
// order and values are those of v.SetKey(MakeUint64(keys[i]),
// MakeUint64(vals[i])) (v.Insert) for each i in turn. It reports false,
// changing nothing, where v is neither, is frozen or is being iterated,
// or where vals is not as long as keys (a dict) or not nil (a set).
// It grows the table once, to the size those entries would have grown it
// to, and places many entries in the order of their buckets, so that the
// table's memory is written in order rather than at random (a cache miss
// an entry in a table of megabytes), then links them in the order given.
// An application that inserts many ints at once from Go (bitsh writes
// back what its machine code added to a dict) reads it with a type
// assertion; against upstream's go.starlark.net, Local returns nil there
// and the assertion fails.
const hashInsertWordsKey = string(threadkey.HashInsertWords)

// hashInsertWords is the function Thread.Local returns under
// hashInsertWordsKey.
func hashInsertWords(v Value, keys, vals []uint64) bool {
	switch v := v.(type) {
	case *Dict:
		if len(vals) != len(keys) {
			return false
		}
		return v.ht.insertWords(keys, vals)
	case *Set:
		if vals != nil {
			return false
		}
		return v.ht.insertWords(keys, nil)
	}
	return false
}

// bulkEntries is the fewest entries insertWords places in bucket order.
const bulkEntries = 4096

// insertWords is hashInsertWords on ht: vals nil for a set (values None).
func (ht *hashtable) insertWords(keys, vals []uint64) bool {
	if ht.checkMutable("insert into") != nil {
		return false
	}
	value := func(i int) Value {
		if vals == nil {
			return None
		}
		return MakeUint64(vals[i])
	}
	ht.reserve(len(keys))
	if len(keys) < bulkEntries || overloaded(int(ht.len)+len(keys), len(ht.table)) {
		for i, k := range keys {
			ht.insert(MakeUint64(k), value(i)) // can't fail: ints, mutable
		}
		return true
	}
	// The hashes, and the keys' order by bucket (a counting sort, stable:
	// a key given twice meets its first entry in the order given).
	mask := uint32(len(ht.table) - 1)
	hs := make([]uint32, len(keys))
	start := make([]int32, len(ht.table)+1)
	for i, k := range keys {
		h, _ := MakeUint64(k).Hash()
		if h == 0 {
			h = 1 // zero is reserved
		}
		hs[i] = h
		start[h&mask+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	order := make([]int32, len(keys))
	for i, h := range hs {
		b := h & mask
		order[start[b]] = int32(i)
		start[b]++
	}
	// Each key in bucket order: its value set where it has an entry (one
	// of the table's, or one placed for an earlier i), else a new entry
	// placed, not linked yet.
	placed := make([]*entry, len(keys))
	for _, i := range order {
		h, k := hs[i], MakeUint64(keys[i])
		p := &ht.table[h&mask]
		var free, found *entry
	scan:
		for {
			for j := range p.entries {
				e := &p.entries[j]
				switch {
				case e.hash == 0:
					if free == nil {
						free = e
					}
				case e.hash == h:
					if eq, _ := Equal(k, e.key); eq {
						found = e
						break scan
					}
				}
			}
			if p.next == nil {
				break
			}
			p = p.next
		}
		switch {
		case found != nil:
			found.value = value(int(i))
		case free != nil:
			free.hash, free.key, free.value = h, k, value(int(i))
			placed[i] = free
		default:
			b := new(bucket)
			p.next = b
			e := &b.entries[0]
			e.hash, e.key, e.value = h, k, value(int(i))
			placed[i] = e
		}
	}
	// The new entries linked in the order given.
	for _, e := range placed {
		if e != nil {
			e.prevLink = ht.tailLink
			*ht.tailLink = e
			ht.tailLink = &e.next
			ht.len++
		}
	}
	return true
}

// reserve makes room for n entries more than ht holds: its table becomes
// the one that many entries would have grown it to, in one step.
func (ht *hashtable) reserve(n int) {
	if n <= 0 || ht.frozen || ht.itercount > 0 {
		return
	}
	want := int(ht.len) + n
	if want < 0 || int64(want) > 1<<31 {
		return // (the inserts fail or grow as usual)
	}
	if ht.table == nil {
		ht.init(want)
		return
	}
	nb := len(ht.table)
	if !overloaded(want, nb) {
		return
	}
	for overloaded(want, nb) {
		nb <<= 1
	}
	// As grow does, to nb buckets at once.
	ht.table = make([]bucket, nb)
	touchPages(ht.table)
	oldhead := ht.head
	ht.head = nil
	ht.tailLink = &ht.head
	ht.len = 0
	for e := oldhead; e != nil; e = e.next {
		ht.insert(e.key, e.value) // can't fail
	}
	ht.bucket0[0] = bucket{} // clear out unused initial bucket
}

// touchPages writes a zero into each page of a table just made: a table
// of many pages is fresh memory from the kernel, whose pages the inserts
// would first read (the kernel maps its shared zero page) and then write
// (a second fault, which copies it). Written first, each page faults
// once; and where the kernel gives the table huge pages (adviseHuge),
// once every 2 MiB.
func touchPages(table []bucket) {
	adviseHuge(table)
	const page = 4096
	step := max(page/int(unsafe.Sizeof(bucket{})), 1)
	for i := 0; i < len(table); i += step {
		table[i].entries[0].hash = 0
	}
}
