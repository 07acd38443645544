// bitsh fork: int keys of hash tables without interface calls
// (README.bitsh.md, change 27).

package starlark

// keyHash returns k.Hash(), computed inline for an int in int32 range or
// a word (int_posix64.go), which most keys of a program's sets and dicts
// are: the same value as Int.Hash, without the interface call.
func keyHash(k Value) (uint32, error) {
	if i, ok := k.(Int); ok {
		if a, ok := i.small(); ok {
			return 12582917 * (uint32(a) + 3), nil
		}
		if v, _, ok := i.tagged(); ok {
			return 12582917 * (uint32(v) + 3), nil
		}
	}
	return k.Hash()
}

// keyEqual returns Equal(k, e): for two ints each in int32 range, or two
// words, it compares their values inline, without Equal's comparison of
// types and its calls of Cmp.
func keyEqual(k, e Value) (bool, error) {
	if i, ok := k.(Int); ok {
		if j, ok := e.(Int); ok {
			if a, ok := i.small(); ok {
				if b, ok := j.small(); ok {
					return a == b, nil
				}
			} else if v, neg, ok := i.tagged(); ok {
				if w, jneg, ok := j.tagged(); ok {
					return v == w && neg == jneg, nil
				}
			}
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
	_, found, err := ht.lookup(x)
	if err != nil {
		return nil, false
	}
	return Bool(found), true
}
