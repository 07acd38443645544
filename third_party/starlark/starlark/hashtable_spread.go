// bitsh fork: large hash tables probed as CPython's (README.bitsh.md,
// change 38).

package starlark

// spreadIndex is the length from which an index is probed as CPython's
// dicts probe theirs: tables of more than 65,536 entries, whose index
// (256 KiB and up) and entries no longer stay in the processor's caches,
// so that each probe that reaches a new part of them costs a miss.
//
// Such an index starts the probe of an int key at a slot in the order of
// the int's value (spreadSlot), so that a walk over nearby keys (memo[n]
// for n counting up) reads the index in order, as CPython's does, and
// goes on, where the slot is taken, by CPython's recurrence: s*5 + 1 + p,
// where the perturbation p is the hash shifted right by 5 more bits at
// each step (after which s*5 + 1 alone, modulo the index's length, visits
// every slot). A linear probe would not do: consecutive keys fill
// consecutive slots, and every other key whose probe began among them
// would walk to their end. Since another key's probe may pass any slot, a
// deleted slot is never emptied (free), and insert puts a new key in the
// first deleted slot its probe passed, if any. Smaller tables keep the
// Fibonacci slot and the linear probe.
const spreadIndex = 1 << 17

// spreadSlot returns the slot at which the probe for hash h starts in a
// large index. An int's hash is 12582917 times its low word plus 3,
// folded to 32 bits (wordHash); x undoes the multiply, so that for an int
// x is that folded value plus 3 (for other keys, whose hashes are already
// mixed, x is as mixed). The slot is x's low bits, XORed with a Fibonacci
// hash of the bits above them: ints that differ only in their low bits
// lie in nearby slots, and ints that differ only in their high bits
// (i << 20, bitboards) still spread over the index.
func (ht *hashtable) spreadSlot(h uint32) uint32 {
	x := h * 2920074445                       // the inverse of 12582917 modulo 2^32
	k := 32 - ht.shift                        // log2(len(ht.index))
	high := (x >> k) * 2654435769 >> ht.shift // the top k bits
	return (x ^ high) & (1<<k - 1)
}

// findSpread is find's probe of a large index: it returns the position of
// k's entry and its slot, or -1 and the first deleted slot the probe
// passed, where insert puts k, else the empty slot at which it ended.
func (ht *hashtable) findSpread(k Value, h uint32) (pos int, slot uint32, err error) {
	mask := uint32(len(ht.index) - 1)
	dead := ^uint32(0) // none yet
	for s, p := ht.spreadSlot(h), h; ; s, p = (s*5+1+p>>5)&mask, p>>5 {
		x := ht.index[s]
		if x == 0 {
			if dead != ^uint32(0) {
				return -1, dead, nil
			}
			return -1, s, nil
		}
		if x < 0 {
			if dead == ^uint32(0) {
				dead = s
			}
			continue
		}
		e := &ht.ents[x-1]
		if e.hash == h {
			if sameInt(k, e.key) {
				return int(x - 1), s, nil
			}
			if eq, err := keyEqual(k, e.key); err != nil {
				return -1, 0, err
			} else if eq {
				return int(x - 1), s, nil
			}
		}
	}
}

// emptySpread is emptySlot's probe of a large index: the first empty slot
// on the probe of hash h (an index being rebuilt has no deleted slots).
func (ht *hashtable) emptySpread(h uint32) uint32 {
	mask := uint32(len(ht.index) - 1)
	s, p := ht.spreadSlot(h), h
	for ht.index[s] != 0 {
		s, p = (s*5+1+p>>5)&mask, p>>5
	}
	return s
}
