// bitsh fork: int keys of hash tables without interface calls
// (README.bitsh.md, change 28).

package starlark

// keyHash returns k.Hash(), computed inline (intHash) for an int in int32
// range or a word (int_posix64.go), which most keys of a program's sets
// and dicts are: the same value as Int.Hash, without the interface call.
func keyHash(k Value) (uint32, error) {
	if h, ok := intHash(k); ok {
		return h, nil
	}
	return k.Hash()
}

// intHash returns Int.Hash of k where k is an int in int32 range or a
// word.
func intHash(k Value) (uint32, bool) {
	i, ok := k.(Int)
	if !ok {
		return 0, false
	}
	if a, ok := i.small(); ok {
		return wordHash(uint64(a)), true
	}
	v, _, ok := i.tagged()
	return wordHash(uint64(v)), ok
}

// wordHash is Int.Hash of an int whose lowest 64 bits of magnitude (two's
// complement for an int in int32 range) are w. Upstream hashes the low 32
// bits of w only, so that ints that differ only above bit 31 (bitboards,
// i << 32) all collide; folding the high half in leaves the hash of an int
// in [0, 2^31) unchanged.
func wordHash(w uint64) uint32 {
	w += 3
	return 12582917 * (uint32(w) ^ uint32(w>>32))
}

// sameInt reports whether k and e are ints of one representation, and so
// equal: the probes test it, inline, before they call keyEqual (a found
// key has the representation of the key looked up when both are in int32
// range or words: each such value has one, int_posix64.go).
func sameInt(k, e Value) bool {
	i, ok1 := k.(Int)
	j, ok2 := e.(Int)
	return ok1 && ok2 && i.impl == j.impl
}

// keyEqual returns Equal(k, e). Where k is an int in int32 range or a
// word and e an int, they are equal exactly when their representations
// are (each value has one, int_posix64.go), which it compares inline,
// without Equal's comparison of types and its calls of Cmp.
func keyEqual(k, e Value) (bool, error) {
	if i, ok := k.(Int); ok {
		if j, ok := e.(Int); ok && i.immediate() {
			return i.impl == j.impl, nil
		}
	}
	return Equal(k, e)
}

// inTable computes x in y for the interpreter's IN where y is a set or a
// dict: the lookup, without Binary's switches. It reports false for any
// other y, or an error (an unhashable x), and IN runs as written.
func inTable(x, y Value) (Value, bool) {
	var ht *hashtable
	switch y := y.(type) {
	case *Set:
		ht = &y.ht
	case *Dict:
		ht = &y.ht
	default:
		return nil, false
	}
	if h := smallKeyHash(x); h != 0 && ht.ents != nil {
		if ht.index != nil && !ht.spread {
			// find's probe of a small index, without its call. An
			// entry of hash h whose key is not an int of x's
			// representation (1.0 for 1) may still equal x: find,
			// which calls keyEqual, answers then.
			mask := uint32(len(ht.index) - 1)
			for s := ht.slot(h); ; s = (s + 1) & mask {
				i := ht.index[s]
				if i == 0 {
					return False, true
				}
				if i > 0 {
					if e := &ht.ents[i-1]; e.hash == h {
						if sameInt(x, e.key) {
							return True, true
						}
						break
					}
				}
			}
		}
		pos, _, _ := ht.find(x, h) // no error: x is an int
		return Bool(pos >= 0), true
	}
	_, found, err := ht.lookup(x)
	if err != nil {
		return nil, false
	}
	return Bool(found), true
}

// immediate reports whether i is an int in int32 range or a word, whose
// representation is its value's only one.
func (i Int) immediate() bool {
	if _, ok := i.small(); ok {
		return true
	}
	_, _, ok := i.tagged()
	return ok
}

// smallKeyHash returns Int.Hash of k where k is an int in int32 range, and
// 0 otherwise (a hash the tables do not use): inlined where the tables
// hash a key, before keyHash.
func smallKeyHash(k Value) uint32 {
	i, ok := k.(Int)
	a, small := i.small() // the zero Int of a failed assertion is not small
	if !ok || !small {
		return 0
	}
	return wordHash(uint64(a))
}
