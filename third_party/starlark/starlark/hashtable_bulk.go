// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import "github.com/bitsh/bitsh/builtins/threadkey"

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
// to, instead of doubling it again and again as they arrive.
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

// insertWords is hashInsertWords on ht: vals nil for a set (values None).
func (ht *hashtable) insertWords(keys, vals []uint64) bool {
	if ht.checkMutable("insert into") != nil {
		return false
	}
	ht.reserve(len(keys))
	for i, k := range keys {
		var v Value = None
		if vals != nil {
			v = MakeUint64(vals[i])
		}
		ht.insert(MakeUint64(k), v) // can't fail: ints, mutable
	}
	return true
}

// reserve makes room for n entries more than ht holds: its array and
// index become those that many entries would have grown them to, in one
// step, and where the array is large, the kernel is asked for huge pages
// for it (adviseHuge).
func (ht *hashtable) reserve(n int) {
	if n <= 0 || ht.frozen || ht.itercount > 0 {
		return
	}
	want := int(ht.len) + n
	if want < 0 || int64(want) > 1<<30 {
		return // (the inserts fail or grow as usual)
	}
	if ht.ents == nil {
		ht.init(want)
		adviseHuge(ht.ents)
		return
	}
	if len(ht.ents)+int(ht.dummies)+n <= cap(ht.ents) {
		return
	}
	c := max(cap(ht.ents), 2*smallEntries)
	for c < want {
		c <<= 1
	}
	ht.resize(c)
	adviseHuge(ht.ents)
}
