package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// Slot keys: a local table (its state in variables, its arrays the
// unit's own) keeps beside its slots the key of each full slot (skeys, a
// fuse.Scratch.Stale array), as C's open addressing keeps the key in the
// slot. A probe then compares the key at the slot it reads, a load that
// does not wait for the slot's entry number, where the keys array would
// be read at that number: one dependent load (a cache miss, in a large
// table) less a step. Every store of an entry number into a slot stores
// its key beside it; a slot emptied keeps a stale key, which no probe
// reads (a probe stops at an empty slot), and a table made fresh empties
// its slots alone. A table in a header array (a module's, or one a
// helper that recurses takes) has no slot keys: its arrays are shared
// with the code that lays them out (HashLayout, HashScratch).

// slotKey is the key of the entry p, which sits in the slot in the
// variable i: read beside the slot where h keeps slot keys, else from
// the keys array.
func (c *compiler) slotKey(h *hashTable, p, i int, at syntax.Position) *fuse.Expr {
	if h.skeys < 0 {
		return c.hashRead(h.keys, c.hashEntry(h, p), at)
	}
	return c.hashRead(h.skeys, varExpr(i), at)
}

// slotKeyStore is the store of the key in the variable kv beside the slot
// in the variable i, which an entry number was just stored into (none
// where h keeps no slot keys).
func (c *compiler) slotKeyStore(h *hashTable, i, kv int, at syntax.Position) []fuse.Stmt {
	if h.skeys < 0 {
		return nil
	}
	return []fuse.Stmt{{Kind: fuse.SStore, Arr: h.skeys, X: varExpr(i), Y: varExpr(kv),
		Check: c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table")}}
}
