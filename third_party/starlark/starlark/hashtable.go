// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

import (
	"fmt"
	"hash/maphash"
	"os"
)

// hashtable is used to represent Starlark dict and set values.
//
// bitsh fork (README.bitsh.md, change 28): a compact table, as CPython's
// dict. The entries lie in an array in the order they were inserted; a
// deleted entry leaves a hole (hash 0) there until the array is next
// rebuilt, which drops the holes. An index, an open-addressing table of
// positions in that array without pointers, finds an entry by its hash;
// a table of at most smallEntries entries has none and is searched in
// order, in the hashtable itself without an allocation. Iteration is the
// array's order without its holes: insertion order, as before.
//
// Initialized instances of hashtable must not be copied.
type hashtable struct {
	ents      []entry             // in insertion order; holes have hash 0; nil: not initialized
	index     []int32             // nil or a power of two long: 0 empty, -1 deleted, else a position in ents plus 1
	ents0     [smallEntries]entry // inline allocation for small maps
	len       uint32
	dummies   uint32 // deleted slots of the index whose entries are no longer in ents
	itercount uint32 // number of active iterators (ignored if frozen)
	shift     uint8  // 32 - log2(len(index))
	spread    bool   // bitsh fork: a large index, probed as CPython's (hashtable_spread.go)
	frozen    bool

	_ noCopy // triggers vet copylock check on this type.
}

// noCopy is zero-sized type that triggers vet's copylock check.
// See https://github.com/golang/go/issues/8005#issuecomment-190753527.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// smallEntries is the most entries a table without an index holds.
const smallEntries = 8

type entry struct {
	hash       uint32 // nonzero => in use
	key, value Value
}

// init prepares the table for size entries.
func (ht *hashtable) init(size int) {
	if size < 0 {
		panic("size < 0")
	}
	if size <= smallEntries {
		ht.ents = ht.ents0[:0:smallEntries]
		return
	}
	n := 2 * smallEntries
	for n < size {
		n <<= 1
	}
	ht.ents = make([]entry, 0, n)
	ht.makeIndex(n)
}

// makeIndex makes an empty index for an array of capacity n, a power of
// two: twice as long, so that at most half its slots are in use.
func (ht *hashtable) makeIndex(n int) {
	ht.index = make([]int32, 2*n)
	shift := uint8(32)
	for m := 2 * n; m > 1; m >>= 1 {
		shift--
	}
	ht.shift = shift
	ht.spread = len(ht.index) >= spreadIndex // bitsh fork: hashtable_spread.go
}

// slot returns the index slot at which the probe for hash h starts: the
// top bits of a Fibonacci hash, so that every bit of h counts (bitsh fork:
// in a small index; a large one starts at spreadSlot).
func (ht *hashtable) slot(h uint32) uint32 {
	return (h * 2654435769) >> ht.shift
}

func (ht *hashtable) freeze() {
	if !ht.frozen {
		ht.frozen = true
		for i := range ht.ents {
			if e := &ht.ents[i]; e.hash != 0 {
				e.key.Freeze()
				e.value.Freeze()
			}
		}
	}
}

// find returns the position in ents of the entry of key k, whose hash is
// h, or -1, and, for a table with an index, the slot at which the probe
// found it, or else where insert puts k: the slot at which the probe
// ended (empty), or in a large index the first deleted slot it passed
// (bitsh fork, hashtable_spread.go).
func (ht *hashtable) find(k Value, h uint32) (pos int, slot uint32, err error) {
	if ht.index == nil {
		for i := range ht.ents {
			e := &ht.ents[i]
			if e.hash == h {
				if sameInt(k, e.key) { // bitsh fork: hashtable_fast.go
					return i, 0, nil
				}
				if eq, err := keyEqual(k, e.key); err != nil {
					return -1, 0, err // e.g. excessively recursive tuple
				} else if eq {
					return i, 0, nil
				}
			}
		}
		return -1, 0, nil
	}
	if ht.spread {
		return ht.findSpread(k, h) // bitsh fork: hashtable_spread.go
	}
	mask := uint32(len(ht.index) - 1)
	for s := ht.slot(h); ; s = (s + 1) & mask {
		x := ht.index[s]
		if x == 0 {
			return -1, s, nil
		}
		if x > 0 {
			e := &ht.ents[x-1]
			if e.hash == h {
				if sameInt(k, e.key) { // bitsh fork: hashtable_fast.go
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
}

func (ht *hashtable) insert(k, v Value) error {
	if ht.frozen || ht.itercount > 0 { // checkMutable's test, inlined
		return ht.checkMutable("insert into")
	}
	if ht.ents == nil {
		ht.init(1)
	}
	h := smallKeyHash(k) // inlined; 0 for other keys
	if h == 0 {
		var err error
		if h, err = keyHash(k); err != nil {
			return err
		}
		if h == 0 {
			h = 1 // zero is reserved
		}
	}
	pos, slot, err := ht.find(k, h)
	if err != nil {
		return err
	}
	if pos >= 0 {
		// Key already present; update value.
		ht.ents[pos].value = v
		return nil
	}
	if len(ht.ents)+int(ht.dummies) == cap(ht.ents) {
		ht.grow()
		if ht.spread { // bitsh fork: hashtable_spread.go
			slot = ht.emptySpread(h)
		} else if ht.index != nil {
			slot = ht.emptySlot(h)
		}
	}
	ht.ents = append(ht.ents, entry{hash: h, key: k, value: v})
	if ht.index != nil {
		if ht.spread && ht.index[slot] < 0 && ht.dummies > 0 {
			// bitsh fork: a deleted slot of a large index reused
			// (hashtable_spread.go); the index has one fewer.
			ht.dummies--
		}
		ht.index[slot] = int32(len(ht.ents))
	}
	ht.len++
	return nil
}

// grow makes room for one more entry at the end of ents: it drops the
// holes, and doubles the array's capacity (and the index) where the
// entries fill half of it or more.
func (ht *hashtable) grow() {
	n := cap(ht.ents)
	if int(ht.len) >= n/2 {
		n *= 2
	}
	ht.resize(n)
}

// resize drops the holes of ents and gives it capacity n, a power of two
// at least its entries' count (in place where n is its capacity), and
// rebuilds the index (none at smallEntries or fewer).
func (ht *hashtable) resize(n int) {
	old := ht.ents
	if n == cap(old) {
		// Compact in place: the holes are at least half the array.
		j := 0
		for i := range old {
			if old[i].hash != 0 {
				old[j] = old[i]
				j++
			}
		}
		clear(old[j:])
		ht.ents = old[:j]
	} else {
		ents := make([]entry, 0, n)
		if int(ht.len) == len(old) {
			ents = append(ents, old...) // no holes: one copy
		} else {
			for i := range old {
				if old[i].hash != 0 {
					ents = append(ents, old[i])
				}
			}
		}
		ht.ents = ents
		if len(old) > 0 && &old[0] == &ht.ents0[0] {
			ht.ents0 = [smallEntries]entry{} // clear out unused inline entries
		}
	}
	if cap(ht.ents) <= smallEntries {
		return // no index
	}
	ht.dummies = 0
	if len(ht.index) == 2*cap(ht.ents) {
		clear(ht.index)
	} else {
		ht.makeIndex(cap(ht.ents))
	}
	if ht.spread { // bitsh fork: hashtable_spread.go
		for i := range ht.ents {
			ht.index[ht.emptySpread(ht.ents[i].hash)] = int32(i + 1)
		}
		return
	}
	for i := range ht.ents {
		ht.index[ht.emptySlot(ht.ents[i].hash)] = int32(i + 1)
	}
}

// free marks the index slot s deleted, or empty where the slot after it
// is empty: no probe passes s to reach an entry then, since every probe
// stops at that empty slot. The deleted slots just before s become empty
// too, for the same reason. It reports whether s became empty.
func (ht *hashtable) free(s uint32) bool {
	if ht.spread { // bitsh fork: hashtable_spread.go
		ht.index[s] = -1
		return false
	}
	mask := uint32(len(ht.index) - 1)
	if ht.index[(s+1)&mask] != 0 {
		ht.index[s] = -1
		return false
	}
	ht.index[s] = 0
	for p := (s - 1) & mask; ht.index[p] == -1; p = (p - 1) & mask {
		ht.index[p] = 0
	}
	return true
}

// emptySlot returns the first empty slot of the index on the probe of
// hash h.
//
// bitsh fork: in a small index (a large one: emptySpread,
// hashtable_spread.go).
func (ht *hashtable) emptySlot(h uint32) uint32 {
	mask := uint32(len(ht.index) - 1)
	s := ht.slot(h)
	for ht.index[s] != 0 {
		s = (s + 1) & mask
	}
	return s
}

func (ht *hashtable) lookup(k Value) (v Value, found bool, err error) {
	h := smallKeyHash(k) // inlined; 0 for other keys
	if h == 0 {
		if h, err = keyHash(k); err != nil {
			return nil, false, err // unhashable
		}
		if h == 0 {
			h = 1 // zero is reserved
		}
	}
	if ht.ents == nil {
		return None, false, nil // empty
	}
	pos, _, err := ht.find(k, h)
	if err != nil {
		return nil, false, err // e.g. excessively recursive tuple
	}
	if pos < 0 {
		return None, false, nil // not found
	}
	return ht.ents[pos].value, true, nil // found
}

// count returns the number of distinct elements of iter that are elements of ht.
func (ht *hashtable) count(iter Iterator) (int, error) {
	if ht.ents == nil {
		return 0, nil // empty
	}

	var k Value
	count := 0

	// A bit per position of ht.ents records the elements seen.
	seen := make([]uint64, (len(ht.ents)+63)/64)
	for iter.Next(&k) && count != int(ht.len) {
		h, err := keyHash(k)
		if err != nil {
			return 0, err // unhashable
		}
		if h == 0 {
			h = 1 // zero is reserved
		}
		pos, _, err := ht.find(k, h)
		if err != nil {
			return 0, err
		}
		if pos >= 0 && seen[pos/64]&(1<<(pos%64)) == 0 {
			seen[pos/64] |= 1 << (pos % 64)
			count++
		}
	}

	return count, nil
}

// Items returns all the items in the map (as key/value pairs) in insertion order.
func (ht *hashtable) items() []Tuple {
	items := make([]Tuple, 0, ht.len)
	array := make([]Value, ht.len*2) // allocate a single backing array
	for i := range ht.ents {
		e := &ht.ents[i]
		if e.hash == 0 {
			continue
		}
		pair := Tuple(array[:2:2])
		array = array[2:]
		pair[0] = e.key
		pair[1] = e.value
		items = append(items, pair)
	}
	return items
}

func (ht *hashtable) first() (Value, bool) {
	for i := range ht.ents {
		if e := &ht.ents[i]; e.hash != 0 {
			return e.key, true
		}
	}
	return None, false
}

func (ht *hashtable) keys() []Value {
	keys := make([]Value, 0, ht.len)
	for i := range ht.ents {
		if e := &ht.ents[i]; e.hash != 0 {
			keys = append(keys, e.key)
		}
	}
	return keys
}

func (ht *hashtable) delete(k Value) (v Value, found bool, err error) {
	if ht.frozen || ht.itercount > 0 { // bitsh fork: checkMutable's test, inlined
		return nil, false, ht.checkMutable("delete from")
	}
	if ht.ents == nil {
		return None, false, nil // empty
	}
	h := smallKeyHash(k) // inlined; 0 for other keys
	if h == 0 {
		if h, err = keyHash(k); err != nil {
			return nil, false, err // unhashable
		}
		if h == 0 {
			h = 1 // zero is reserved
		}
	}
	pos, slot, err := ht.find(k, h)
	if err != nil {
		return nil, false, err
	}
	if pos < 0 {
		return None, false, nil // not found
	}
	e := &ht.ents[pos]
	v = e.value
	*e = entry{}
	freed := false
	if ht.index != nil {
		freed = ht.free(slot)
	}
	if pos == len(ht.ents)-1 {
		// The last entry: no hole. Unless free emptied it, its slot
		// stays deleted until the index is rebuilt, and counts against
		// the array's capacity, so that the index's slots in use stay at
		// most half.
		ht.ents = ht.ents[:pos]
		if ht.index != nil && !freed {
			ht.dummies++
		}
	}
	ht.len--
	return v, true, nil // found
}

// checkMutable reports an error if the hash table should not be mutated.
// verb+" dict" should describe the operation.
func (ht *hashtable) checkMutable(verb string) error {
	if ht.frozen {
		return fmt.Errorf("cannot %s frozen hash table", verb)
	}
	if ht.itercount > 0 {
		return fmt.Errorf("cannot %s hash table during iteration", verb)
	}
	return nil
}

func (ht *hashtable) clear() error {
	if err := ht.checkMutable("clear"); err != nil {
		return err
	}
	clear(ht.ents)
	ht.ents = ht.ents[:0]
	clear(ht.index)
	ht.len = 0
	ht.dummies = 0
	return nil
}

func (ht *hashtable) addAll(other *hashtable) error {
	for i := 0; i < len(other.ents); i++ { // other may be ht, whose ents insert does not grow then
		e := &other.ents[i]
		if e.hash == 0 {
			continue
		}
		if err := ht.insert(e.key, e.value); err != nil {
			return err
		}
	}
	return nil
}

// dump is provided as an aid to debugging.
func (ht *hashtable) dump() {
	fmt.Fprintf(os.Stderr, "hashtable %p len=%d entries=%d/%d index=%d\n",
		ht, ht.len, len(ht.ents), cap(ht.ents), len(ht.index))
	for i := range ht.ents {
		e := &ht.ents[i]
		fmt.Fprintf(os.Stderr, "\tentry %d @ %p hash=%d key=%v value=%v\n",
			i, e, e.hash, e.key, e.value)
	}
	for s, x := range ht.index {
		if x != 0 {
			fmt.Fprintf(os.Stderr, "\tslot %d: %d\n", s, x)
		}
	}
}

func (ht *hashtable) iterate() *keyIterator {
	if !ht.frozen {
		ht.itercount++
	}
	return &keyIterator{ht: ht}
}

type keyIterator struct {
	ht *hashtable
	i  int // the next position in ht.ents
}

func (it *keyIterator) Next(k *Value) bool {
	for it.i < len(it.ht.ents) {
		e := &it.ht.ents[it.i]
		it.i++
		if e.hash != 0 {
			*k = e.key
			return true
		}
	}
	return false
}

func (it *keyIterator) Done() {
	if !it.ht.frozen {
		it.ht.itercount--
	}
}

// entries is a go1.23 iterator over the entries of the hash table.
func (ht *hashtable) entries(yield func(k, v Value) bool) {
	if !ht.frozen {
		ht.itercount++
		defer func() { ht.itercount-- }()
	}
	for i := 0; i < len(ht.ents); i++ {
		if e := &ht.ents[i]; e.hash != 0 && !yield(e.key, e.value) {
			break
		}
	}
}

var seed = maphash.MakeSeed()

// hashString computes the hash of s.
func hashString(s string) uint32 {
	if len(s) >= 12 {
		// Call the Go runtime's optimized hash implementation,
		// which uses the AES instructions on amd64 and arm64 machines.
		h := maphash.String(seed, s)
		return uint32(h>>32) ^ uint32(h)
	}
	return softHashString(s)
}

// softHashString computes the 32-bit FNV-1a hash of s in software.
func softHashString(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// all is a go1.23 iterator over the entries in use, in insertion order,
// for the package's own loops (bitsh fork: they walked the linked list
// that change 28 replaced); it does not count as an iteration.
func (ht *hashtable) all(yield func(e *entry) bool) {
	for i := 0; i < len(ht.ents); i++ {
		if e := &ht.ents[i]; e.hash != 0 && !yield(e) {
			return
		}
	}
}
