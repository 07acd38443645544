// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

import (
	"unsafe"

	"github.com/bitsh/bitsh/builtins/threadkey"
)

// hashReserveKey is the thread-local key under which Thread.Local
// returns, where the application stored nothing under it, the fork's
// function hashReserve, of type
//
//	func(v starlark.Value, n int)
//
// which makes room in the dict or set v for n entries more than it holds,
// so that inserting them does not grow its table again and again (each
// growth rehashes every entry). It changes nothing a program can observe:
// the entries, their order and the errors of later operations are those
// without it. It does nothing where v is neither a dict nor a set, is
// frozen or being iterated (an iterator holds on to the table's entries),
// or already has the room. An application that inserts many entries at
// once from Go (bitsh writes back what its machine code added to a dict)
// reads it with a type assertion; against upstream's go.starlark.net,
// Local returns nil and the assertion fails.
const hashReserveKey = string(threadkey.HashReserve)

// hashReserve is the function Thread.Local returns under hashReserveKey.
func hashReserve(v Value, n int) {
	switch v := v.(type) {
	case *Dict:
		v.ht.reserve(n)
	case *Set:
		v.ht.reserve(n)
	}
}

// reserve makes room for n entries more than ht holds: its table becomes
// the one that many entries would have grown it to, in one step.
func (ht *hashtable) reserve(n int) {
	if n <= 0 || ht.frozen || ht.itercount > 0 {
		return
	}
	want := int(ht.len) + n
	if want < 0 || want > 1<<31 {
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
// (a second fault, which copies it), in the keys' random order. Written
// first, in order, each page faults once.
func touchPages(table []bucket) {
	const page = 4096
	step := max(page/int(unsafe.Sizeof(bucket{})), 1)
	for i := 0; i < len(table); i += step {
		table[i].entries[0].hash = 0
	}
}
