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
	i := ht.appendWords(keys, vals)
	for ; i < len(keys); i++ {
		var v Value = None
		if vals != nil {
			v = MakeUint64(vals[i])
		}
		ht.insert(MakeUint64(keys[i]), v) // can't fail: ints, mutable
	}
	return true
}

// appendWords inserts keys[i] (with vals[i]) as insert does, in order,
// while each is new to ht and there is room for all of them (reserve),
// and returns how many it inserted: the rest are for insert. A probe
// compares the keys it meets that it appended itself (ents[n0+j] holds
// keys[j]) with the words of keys, not with ents, so that only the
// index's memory is read at random; it stops at a key ht holds (one
// given twice, or one it held before), whose insert does not append.
func (ht *hashtable) appendWords(keys, vals []uint64) int {
	n0 := len(ht.ents)
	if ht.index == nil || n0+int(ht.dummies)+len(keys) > cap(ht.ents) {
		return 0
	}
	mask := uint32(len(ht.index) - 1)
	for i, w := range keys {
		k := MakeUint64(w)
		h := smallKeyHash(k)
		if h == 0 {
			h, _ = keyHash(k) // can't fail: an int
			if h == 0 {
				h = 1 // zero is reserved
			}
		}
		// The probe of find (hashtable_spread.go): the slot after s in a
		// small index, s*5 + 1 + p in a large one.
		s, mul, p := ht.slot(h), uint32(1), uint32(0)
		if ht.spread {
			s, mul, p = ht.spreadSlot(h), 5, h
		}
		for ; ht.index[s] != 0; s, p = (s*mul+1+p>>5)&mask, p>>5 {
			x := int(ht.index[s])
			switch {
			case x <= 0:
				// deleted
			case x > n0:
				if keys[x-1-n0] == w {
					return i
				}
			case ht.ents[x-1].hash == h:
				if eq, _ := keyEqual(k, ht.ents[x-1].key); eq {
					return i
				}
			}
		}
		var v Value = None
		if vals != nil {
			v = MakeUint64(vals[i])
		}
		ht.ents = append(ht.ents, entry{hash: h, key: k, value: v})
		ht.index[s] = int32(len(ht.ents))
		ht.len++
	}
	return len(keys)
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
