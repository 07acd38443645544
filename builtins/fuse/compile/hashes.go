package compile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Sets and dicts of words in a function compiled with Options.Exact: a
// local made in the function's body (s = set(), d = {}, d = dict(), a
// dict literal) is a hash table in four of the unit's scratch arrays (a
// set's) or five (a dict's), written in the IR's own statements, so that
// every engine runs it; one of the module's (Global.Hash), one passed
// (Options.Hashes), one given to a helper that recurses, and a local that
// may be, keep their state in a header array among theirs (HashScratch):
//
//   - slots, of 1 << HashMaxBits words (a module's: GlobalHashMaxBits),
//     the open-addressing table: 0 for an empty slot, else the entry's
//     number (1 on) in the order arrays; the slots in use are the first
//     mask + 1, a power of two, and a key k starts its linear probe at
//     the low bits of the top bits of k * hashMul (Fibonacci hashing:
//     ((k * hashMul) >> (64 - bits)) & mask, bits the log2 of the most
//     slots: a constant shift, so the slot needs no index check);
//   - keys, removed flags and, for a dict, vals: the entries in the order
//     they were inserted, from index 1, which is the order Starlark
//     iterates them in; a removed entry keeps its place, flagged (the
//     last entry is dropped instead: the entries are one fewer), and its
//     slot is emptied by shifting the later slots of its run back (no
//     tombstones), so a probe never meets it;
//   - three variables (a module's table: its header array, whose third
//     word, once the shift, is unused): the entries n (removed ones
//     included), mask and the entries removed.
//
// A table is rebuilt where an insertion would make the n + 1 entries fill
// more than half its slots: the slots are emptied (a local's made fresh:
// O(1) where each scratch element has an epoch, else the slots written
// since cleared; a module's, whose arrays a Proc shares, cleared one by
// one), grown four times (hashGrown) where the live entries alone fill
// half of them, and the live entries moved down over the removed ones and
// probed in again, in order. An insertion past HashCap live entries (a
// module's: GlobalHashCap) fails the run (the interpreter runs the
// call). Keys and values are ints in [0, 2^64); a negative one fails
// the run too (its word is not a word, as anywhere in exact code).
//
// A write to a table while a for loop runs over it fails the run, as it
// fails in Starlark ("cannot insert into hash table during iteration").

// bHash is the binding of a name to a set or dict: id indexes
// compiler.hashes.
const bHash = bLog + 1

// HashMaxBits is the log2 of the slots of a set or dict a function run as
// machine code makes, and HashCap the most entries it holds: half of
// them. A module's set or dict, one a run, may grow larger
// (GlobalHashMaxBits, GlobalHashCap): a memo table. Their arrays take
// memory only where a run writes them (a worker's memory is mapped).
const (
	HashMaxBits       = 18
	HashCap           = 1 << (HashMaxBits - 1)
	GlobalHashMaxBits = 19
	GlobalHashCap     = 1 << (GlobalHashMaxBits - 1)
	hashMinBits       = 4
	// hashMul is 2^64 divided by the golden ratio, odd: Knuth's
	// multiplicative hashing (TAOCP vol. 3, 6.4).
	hashMul = 0x9E3779B97F4A7C15
)

// hashTable is a set or dict of the unit: its scratch arrays and
// variables (see above).
type hashTable struct {
	name              string
	dict              bool
	slots, keys, vals int // scratch arrays (vals: -1 for a set)
	dead              int // scratch array: 1 for an entry removed
	skeys             int // scratch array: the key of each full slot, or -1 (hashslotkeys.go)
	n, mask           int // variables (a module's table: -1)
	removed           int // variable: the entries removed among the n
	// hdr, for a module's set or dict (a Global), is the array that
	// holds n, mask and the entries removed (else -1): its arrays are
	// the caller's, shared with the Procs that take them, and never made
	// fresh.
	hdr int
	// iter counts the for loops over the table being compiled: a write
	// there fails the run.
	iter int
	// hdrCheck is the index check of the header's reads and writes.
	hdrCheck int
	// bits is the log2 of the most slots; fresh says that the unit owns
	// the arrays (a local of the function's body): its slots may be made
	// fresh (a Proc given them shares them: its tables clear them one by
	// one); guard, where not -1, is a variable assigned where the table
	// is made, read before each use (fuse.Func.GuardUnassigned: a table
	// used before its name is assigned fails as in Starlark).
	bits  int
	fresh bool
	guard int
}

// HashHeader is the length of a module's table's header array.
const HashHeader = hdrLen

// The words of a module's table's header array (hashTable.hdr).
const (
	hdrN = iota
	hdrMask
	hdrShift // unused: the slot's shift is a constant (hashSlot)
	hdrRemoved
	hdrLen
)

// get reads the table's entries (hdrN), mask or entries removed.
func (h *hashTable) get(field int) *fuse.Expr {
	if h.hdr < 0 {
		return varExpr([...]int{h.n, h.mask, -1, h.removed}[field])
	}
	return &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(h.hdr), Args: []*fuse.Expr{constExpr(uint64(field))}, Check: h.hdrCheck}
}

// set is the statement that sets the table's entries (hdrN), mask or
// entries removed to x.
func (h *hashTable) set(field int, x *fuse.Expr) fuse.Stmt {
	if h.hdr < 0 {
		return fuse.Stmt{Kind: fuse.SAssign, Var: [...]int{h.n, h.mask, -1, h.removed}[field], X: x}
	}
	return fuse.Stmt{Kind: fuse.SStore, Arr: h.hdr, X: constExpr(uint64(field)), Y: x, Check: h.hdrCheck}
}

// kind is "set" or "dict".
func (h *hashTable) kind() string {
	if h.dict {
		return "dict"
	}
	return "set"
}

// hashOf returns the binding's table where b is a bHash.
func (c *compiler) hashOf(b binding) *hashTable { return c.hashes[b.id] }

// hashNamed returns the table the name e (an identifier, perhaps in
// parentheses) holds in the scope, or nil; err is a GlobalArray where it
// is a module's set or dict that Options.Globals does not list yet.
func (c *compiler) hashNamed(e syntax.Expr) (*hashTable, *syntax.Ident, error) {
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return nil, nil, nil
	}
	b, ok := c.scope.names[id.Name]
	if ok {
		if b.kind != bHash {
			return nil, nil, nil
		}
		return c.hashOf(b), id, nil
	}
	if !c.opt.Exact || c.scope.locals[id.Name] || c.scope.src.Free == nil {
		return nil, nil, nil
	}
	v, ok := c.scope.src.Free(id.Name)
	if !ok || !isHash(v) {
		return nil, nil, nil
	}
	return nil, nil, &GlobalArray{Err: &Error{Pos: id.NamePos, Msg: fmt.Sprintf("%s is a %s of its module", id.Name, v.Type())},
		Name: id.Name, Hash: v}
}

// isHash reports whether v is a set or a dict.
func isHash(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.Dict, *starlark.Set:
		return true
	}
	return false
}

// IsDict reports whether v, a module's set or dict (Global.Hash), is a
// dict.
func IsDict(v starlark.Value) bool {
	_, ok := v.(*starlark.Dict)
	return ok
}

// HashArrays returns the number of array parameters of a module's set (4)
// or dict (5): the header, the slots, the keys, the removed flags and the
// values.
func HashArrays(dict bool) int {
	if dict {
		return 5
	}
	return 4
}

// HashScratch returns the arrays of a module's set or dict, in order:
// the header (entries, mask, an unused word, entries removed), the slots, the
// keys, the removed flags, and, of a dict, the values.
func HashScratch(name string, dict bool) []fuse.Scratch {
	return hashScratch(name, dict, GlobalHashMaxBits)
}

// hashScratch returns the arrays of a table of up to 1 << bits slots
// whose state is in a header array (HashScratch).
func hashScratch(name string, dict bool, bits int) []fuse.Scratch {
	n := 1<<(bits-1) + 1
	ss := []fuse.Scratch{{Name: name + " (header)", Len: hdrLen}, {Name: name + " (slots)", Len: 1 << bits, Sparse: true},
		{Name: name + " (keys)", Len: n}, {Name: name + " (removed)", Len: n}}
	if dict {
		ss = append(ss, fuse.Scratch{Name: name + " (values)", Len: n})
	}
	return ss
}

// globalArrays returns the array parameters the Globals listed (their
// indexes) take: one a list, HashArrays a set or dict.
func (c *compiler) globalArrays(listed []int) int {
	n := 0
	for _, i := range listed {
		if g := c.opt.Globals[i]; g.Hash != nil {
			n += HashArrays(IsDict(g.Hash))
		} else {
			n++
		}
	}
	return n
}

// value is g's set, dict or list.
func (g *Global) value() starlark.Value {
	if g.Hash != nil {
		return g.Hash
	}
	return g.List
}

// globalHash returns the index in c.hashes of the unit's table of the
// module's set or dict g, whose arrays start at a.
func (c *compiler) globalHash(g Global, a int) int {
	return c.arrayHash(g.Name, IsDict(g.Hash), GlobalHashMaxBits, a)
}

// arrayHash returns the index in c.hashes of the unit's table whose
// arrays start at a (hashScratch's, of up to 1 << bits slots), its state
// in its header array: a module's set or dict, one a helper that recurses
// is given, or a local such a helper may be given.
func (c *compiler) arrayHash(name string, dict bool, bits, a int) int {
	if i, ok := c.globalHashes[arrayOf{c.proc, a}]; ok {
		return i
	}
	h := &hashTable{name: name, dict: dict, hdr: a, slots: a + 1, keys: a + 2, dead: a + 3, vals: -1, skeys: -1, n: -1, mask: -1, removed: -1,
		hdrCheck: c.check(fuse.CheckIndex, 0, syntax.Position{}, "index out of range of a hash table"), bits: bits, guard: -1}
	if dict {
		h.vals = a + 4
	}
	c.hashes = append(c.hashes, h)
	if c.globalHashes == nil {
		c.globalHashes = map[arrayOf]int{}
	}
	c.globalHashes[arrayOf{c.proc, a}] = len(c.hashes) - 1
	return len(c.hashes) - 1
}

// passedToCall reports whether the scope's body passes the name to a
// function (f(name), not name.add(x), nor a builtin's len(name)): a
// helper that may recurse.
func (c *compiler) passedToCall(name string) bool {
	passed := false
	for _, st := range c.scope.src.Body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				if _, method := call.Fn.(*syntax.DotExpr); !method && !c.builtinCall(call) {
					for _, a := range call.Args {
						if id, ok := unparen(a).(*syntax.Ident); ok && id.Name == name {
							passed = true
						}
					}
				}
			}
			return !passed
		})
	}
	return passed
}

// HashLayout lays out the table of the keys given, in order, as the code
// reads it (the header and the slots in use; the keys and values arrays
// are the keys and values from index 1): the fewest slots, 16 or more,
// that keys fill at most half of. buf is room for the slots, used where
// large enough. ok is false where there are more than GlobalHashCap keys.
// The tables it lays out are a module's or a call's (GlobalHashMaxBits):
// their slots are hashSlot's for those bits.
func HashLayout(keys []uint64, buf []uint64) (hdr [hdrLen]uint64, slots []uint64, ok bool) {
	if len(keys) > GlobalHashCap {
		return hdr, nil, false
	}
	bits := hashMinBits
	for len(keys) > 1<<(bits-1) {
		bits++
	}
	n := 1 << bits
	if cap(buf) >= n {
		slots = buf[:n]
		clear(slots)
	} else {
		slots = make([]uint64, n)
	}
	mask, shift := uint64(n-1), uint64(64-GlobalHashMaxBits)
	for j, k := range keys {
		i := (k * hashMul) >> shift & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint64(j + 1)
	}
	hdr[hdrN], hdr[hdrMask] = uint64(len(keys)), mask
	return hdr, slots, true
}

// madeHash reports whether rhs makes a set or dict: set(), dict() (the
// builtins), {} or a dict literal {k: v, ...}; dict says which.
func (c *compiler) madeHash(rhs syntax.Expr) (dict, ok bool) {
	switch r := unparen(rhs).(type) {
	case *syntax.DictExpr:
		return true, true
	case *syntax.CallExpr:
		name, ok := callee(r)
		if !ok || len(r.Args) != 0 || (name != "set" && name != "dict") || !c.isBuiltin(name) {
			return false, false
		}
		if _, local := c.scope.names[name]; local || c.scope.locals[name] {
			return false, false
		}
		return name == "dict", true
	}
	return false, false
}

// hashAssign compiles name = set(), name = {} and name = dict() with
// Options.Exact: a fresh table, the name's (the same arrays where the
// name held one of the same kind before).
func (c *compiler) hashAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	dict, ok := c.madeHash(rhs)
	if !ok || !c.opt.Exact {
		return false, nil
	}
	kind := "set"
	if dict {
		kind = "dict"
	}
	if c.unit >= 0 {
		return true, errAt(id.NamePos, "%s: a helper that recurses makes no %s in a function run as machine code", id.Name, kind)
	}
	var h *hashTable
	if b, ok := c.scope.names[id.Name]; ok {
		if b.kind != bHash || c.hashOf(b).dict != dict {
			return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a function run as machine code", id.Name, kindName(b))
		}
		h = c.hashOf(b)
		if c.scope.byRef[id.Name] {
			// A helper's parameter names the caller's table: rebinding
			// it makes a new one in Starlark, which the caller's name
			// does not see.
			return true, errAt(id.NamePos, "%s is a parameter holding the caller's %s; a function run as machine code does not rebind it", id.Name, kind)
		}
		if h.iter > 0 {
			return true, errAt(id.NamePos, "%s is a %s a loop runs over; a function run as machine code does not rebind it there", id.Name, kind)
		}
	} else {
		if c.passedToCall(id.Name) {
			// Its state in a header array, which a helper that recurses
			// may take with the others.
			a := len(c.proc.Scratch)
			c.proc.Scratch = append(c.proc.Scratch, hashScratch(id.Name, dict, HashMaxBits)...)
			i := c.arrayHash(id.Name, dict, HashMaxBits, a)
			h = c.hashes[i]
			h.fresh = true
			h.guard = c.newVar()
			c.varNames[[2]int{c.unit, h.guard}] = id.Name
			c.scope.names[id.Name] = binding{kind: bHash, id: i}
		} else {
			h = &hashTable{name: id.Name, dict: dict, vals: -1, hdr: -1, bits: HashMaxBits, fresh: true}
			add := func(what string, n int) int {
				c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name + " (" + what + ")", Len: n})
				return len(c.proc.Scratch) - 1
			}
			h.slots = add(kind+" slots", 1<<HashMaxBits)
			// Not Sparse: on x86-64 the slots keep no epochs (a probe
			// reads one cache line, not two), and are made fresh by
			// clearing those written since, at most the mask + 1 in
			// use: work in proportion to the insertions that grew it.
			h.skeys = add(kind+" slot keys", 1<<HashMaxBits)
			c.proc.Scratch[h.skeys].Stale = true
			h.keys = add(kind+" keys", HashCap+1)
			h.dead = add(kind+" removed", HashCap+1)
			if dict {
				h.vals = add("dict values", HashCap+1)
			}
			h.n, h.mask, h.removed = c.newVar(), c.newVar(), c.newVar()
			for _, v := range []int{h.n, h.mask, h.removed} {
				c.varNames[[2]int{c.unit, v}] = id.Name
			}
			h.guard = h.n
			c.hashes = append(c.hashes, h)
			c.scope.names[id.Name] = binding{kind: bHash, id: len(c.hashes) - 1}
		}
	}
	c.hashReset(h, id.NamePos)
	if lit, ok := unparen(rhs).(*syntax.DictExpr); ok {
		// Each entry in order, key then value; a key given twice is
		// Starlark's error.
		for _, e := range lit.List {
			e := e.(*syntax.DictEntry)
			kv, err := c.hashKey(h, e.Key)
			if err != nil {
				return true, err
			}
			v, err := c.word(e.Value)
			if err != nil {
				return true, err
			}
			vv := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vv, X: c.biasedTo(v, 0)})
			p, i := c.hashProbe(h, kv, e.Colon)
			c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpNe, varExpr(p), constExpr(0)), Body: []fuse.Stmt{
				{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, e.Colon, "duplicate key")}}})
			c.hashInsert(h, kv, p, i, e.Colon)
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: h.vals, X: varExpr(p), Y: varExpr(vv),
				Check: c.check(fuse.CheckIndex, 0, e.Colon, "index out of range of a hash table")})
		}
	}
	return true, nil
}

// hashReset emits the statements that empty h.
func (c *compiler) hashReset(h *hashTable, at syntax.Position) {
	c.emit(h.set(hdrN, constExpr(0)))
	c.emit(h.set(hdrMask, constExpr(1<<hashMinBits-1)))
	c.emit(h.set(hdrRemoved, constExpr(0)))
	if h.guard >= 0 && h.guard != h.n {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: h.guard, X: constExpr(1)})
	}
	*c.out = append(*c.out, c.hashClear(h, at)...)
}

// hashClear is the statements that empty the slots in use (the first
// mask + 1): a local table's slots are made fresh, a module's (whose
// arrays are never made fresh: a Proc shares them) set to 0 one by one.
func (c *compiler) hashClear(h *hashTable, at syntax.Position) []fuse.Stmt {
	if h.fresh {
		return []fuse.Stmt{{Kind: fuse.SFresh, Arr: h.slots}}
	}
	j := c.newVar()
	return []fuse.Stmt{{Kind: fuse.SForRange, Label: c.newLabel(), Var: j, X: constExpr(0),
		Y: c.exactExpr(mk(fuse.OpAdd, h.get(hdrMask), constExpr(1))), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero"),
		Body: []fuse.Stmt{{Kind: fuse.SStore, Arr: h.slots, X: varExpr(j), Y: constExpr(0),
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table")}}}}
}

// exactExpr marks x as exact by construction (fuse.Func.Exact) and returns
// it.
func (c *compiler) exactExpr(x *fuse.Expr) *fuse.Expr {
	c.madeExact[x] = true
	return x
}

// hashSlot is the first slot of the key in the variable kv: the low bits
// (mask) of the top h.bits bits of its product with hashMul. The shift is
// a constant, so that the generator knows the slot below 1 << h.bits, the
// slots array's length: a probe reads the slot with no index check.
//
// m is the variable that holds the table's mask (hashMask), or -1: the
// mask read where it is.
func (c *compiler) hashSlot(h *hashTable, kv, m int) *fuse.Expr {
	prod := c.exactExpr(mk(fuse.OpMul, varExpr(kv), constExpr(hashMul)))
	return c.exactExpr(mk(fuse.OpAnd, c.exactExpr(mk(fuse.OpShr, prod, constExpr(uint64(64-h.bits)))), c.maskIn(h, m)))
}

// maskIn is h's mask: the variable m, or, where m is -1, h's own.
func (c *compiler) maskIn(h *hashTable, m int) *fuse.Expr {
	if m < 0 {
		return h.get(hdrMask)
	}
	return varExpr(m)
}

// hashMask returns the variable that holds h's mask for a probe, which
// writes no table: a local table's own, or a new one read from the
// header array once, before the probe's loop (the statement assign, its
// X nil where there is none), rather than at each slot.
func (c *compiler) hashMask(h *hashTable) (m int, assign fuse.Stmt) {
	if h.hdr < 0 {
		return h.mask, fuse.Stmt{}
	}
	m = c.newVar()
	return m, fuse.Stmt{Kind: fuse.SAssign, Var: m, X: h.get(hdrMask)}
}

// withMask is ss after the mask's assignment, where there is one.
func withMask(assign fuse.Stmt, ss ...fuse.Stmt) []fuse.Stmt {
	if assign.X == nil {
		return ss
	}
	return append([]fuse.Stmt{assign}, ss...)
}

// hashNext is the slot after the one in the variable i. The mask is at
// most 1<<h.bits - 1; the and with that constant tells the generator so
// (it emits nothing where it knows the mask's bound already).
func (c *compiler) hashNext(h *hashTable, i, m int) *fuse.Expr {
	next := mk(fuse.OpAnd, c.exactExpr(mk(fuse.OpAdd, varExpr(i), constExpr(1))), c.maskIn(h, m))
	return c.exactExpr(mk(fuse.OpAnd, c.exactExpr(next), constExpr(1<<h.bits-1)))
}

// hashEntry is the entry number in the variable p (a slot's, at most
// the table's most entries) as an index of its keys or values: the
// unsigned min with that most, which changes no value, tells
// the generator the index is in range, so that it reads the entry with
// no check of its sign and length.
func (c *compiler) hashEntry(h *hashTable, p int) *fuse.Expr {
	return c.exactExpr(mk(fuse.OpMin, varExpr(p), constExpr(1<<(h.bits-1))))
}

// read is element i of the unit's scratch array arr, index-checked.
func (c *compiler) hashRead(arr int, i *fuse.Expr, at syntax.Position) *fuse.Expr {
	return &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(arr), Args: []*fuse.Expr{i},
		Check: c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table")}
}

// hashKey evaluates the key x into a variable of its own.
func (c *compiler) hashKey(h *hashTable, x syntax.Expr) (int, error) {
	if _, ok := c.tupleLocalNamed(x); ok || isTupleExpr(x) {
		return c.tupleKey(h, x) // tuplekeys.go
	}
	if err := c.wordKeys(h, pos(x)); err != nil {
		return 0, err
	}
	k, err := c.word(x)
	if err != nil {
		return 0, err
	}
	kv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: kv, X: c.biasedTo(k, 0)})
	return kv, nil
}

// hashProbe emits the probe for the key in kv: afterwards the variable p
// holds its entry's number, or 0 where h lacks it, and i, then, the empty
// slot where it would go.
func (c *compiler) hashProbe(h *hashTable, kv int, at syntax.Position) (p, i int) {
	p, i = c.newVar(), c.newVar()
	c.hashGuard(h)
	// The mask read at each use (m -1): a variable of the probe's own
	// for a header array's mask measured slower on setqueens (more
	// variables for the same registers).
	const m = -1
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: c.hashSlot(h, kv, m)})
	label := c.newLabel()
	c.emit(fuse.Stmt{Kind: fuse.SWhile, Label: label, X: constExpr(1), Body: []fuse.Stmt{
		{Kind: fuse.SAssign, Var: p, X: c.hashRead(h.slots, varExpr(i), at)},
		{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)), Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: label}}},
		{Kind: fuse.SIf, X: mk(fuse.OpEq, c.slotKey(h, p, i, at), varExpr(kv)), Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: label}}},
		{Kind: fuse.SAssign, Var: i, X: c.hashNext(h, i, m)},
	}})
	return p, i
}

// hashFree emits the probe of the key in kv for an empty slot, into i:
// where h lacks the key.
func (c *compiler) hashFree(h *hashTable, kv, i int, at syntax.Position) []fuse.Stmt {
	m, assign := c.hashMask(h)
	return withMask(assign,
		fuse.Stmt{Kind: fuse.SAssign, Var: i, X: c.hashSlot(h, kv, m)},
		fuse.Stmt{Kind: fuse.SWhile, Label: c.newLabel(), X: mk(fuse.OpNe, c.hashRead(h.slots, varExpr(i), at), constExpr(0)),
			Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: i, X: c.hashNext(h, i, m)}}},
	)
}

// hashWritable emits, where a loop over h is running, the failure of a
// write there (Starlark's error), and reports whether it did.
func (c *compiler) hashWritable(h *hashTable, at syntax.Position) bool {
	if h.iter == 0 {
		return false
	}
	c.emit(fuse.Stmt{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, at, "cannot insert into hash table during iteration")})
	return true
}

// hashInsert emits the insertion of the key in kv where the probe found
// no entry (p is 0, i the empty slot): where the n + 1 entries (those
// removed counted) would fill more than half the slots, the table is
// rebuilt first, its entries compacted (those removed dropped, the others
// in order) into slots grown (hashGrown) where the live ones fill half of
// them.
// Afterwards p holds the entry's number.
func (c *compiler) hashInsert(h *hashTable, kv, p, i int, at syntax.Position) {
	bits := h.bits
	idx := func() int { return c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table") }
	full := c.check(fuse.CheckReturned, 0, at, "a %s of a function run as machine code holds at most %d entries", h.kind(), 1<<(bits-1))
	live := c.exactExpr(mk(fuse.OpSub, h.get(hdrN), h.get(hdrRemoved)))
	var double []fuse.Stmt
	double = append(double,
		fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, h.get(hdrMask), constExpr(1<<bits-1)),
			Body: []fuse.Stmt{{Kind: fuse.SFail, Check: full}}},
		h.set(hdrMask, c.hashGrown(h)))
	grow := []fuse.Stmt{{Kind: fuse.SIf, X: mk(fuse.OpGe, c.exactExpr(mk(fuse.OpAdd, live, live)), h.get(hdrMask)), Body: double}}
	grow = append(grow, c.hashClear(h, at)...)
	// Every live entry again, in order, moved down over those removed,
	// each into the first empty slot of its probe.
	j, m, kj, s := c.newVar(), c.newVar(), c.newVar(), c.newVar()
	grow = append(grow, fuse.Stmt{Kind: fuse.SAssign, Var: m, X: constExpr(0)})
	again := []fuse.Stmt{
		{Kind: fuse.SAssign, Var: m, X: c.exactExpr(mk(fuse.OpAdd, varExpr(m), constExpr(1)))},
		{Kind: fuse.SAssign, Var: kj, X: c.hashRead(h.keys, varExpr(j), at)},
		{Kind: fuse.SStore, Arr: h.keys, X: varExpr(m), Y: varExpr(kj), Check: idx()},
		{Kind: fuse.SStore, Arr: h.dead, X: varExpr(m), Y: constExpr(0), Check: idx()},
	}
	if h.dict {
		again = append(again, fuse.Stmt{Kind: fuse.SStore, Arr: h.vals, X: varExpr(m), Y: c.hashRead(h.vals, varExpr(j), at), Check: idx()})
	}
	again = append(again, c.hashFree(h, kj, s, at)...)
	again = append(again, fuse.Stmt{Kind: fuse.SStore, Arr: h.slots, X: varExpr(s), Y: varExpr(m), Check: idx()})
	again = append(again, c.slotKeyStore(h, s, kj, at)...)
	grow = append(grow, fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: j, X: constExpr(1),
		Y: c.exactExpr(mk(fuse.OpAdd, h.get(hdrN), constExpr(1))), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero"),
		Body:  []fuse.Stmt{{Kind: fuse.SIf, X: mk(fuse.OpEq, c.hashRead(h.dead, varExpr(j), at), constExpr(0)), Body: again}}})
	grow = append(grow, h.set(hdrN, varExpr(m)), h.set(hdrRemoved, constExpr(0)))
	grow = append(grow, c.hashFree(h, kv, i, at)...)
	// Rebuilt where 2n >= mask: the n + 1 entries would fill more than
	// half the mask + 1 slots.
	twice := c.exactExpr(mk(fuse.OpAdd, h.get(hdrN), h.get(hdrN)))
	body := []fuse.Stmt{
		{Kind: fuse.SIf, X: mk(fuse.OpGe, twice, h.get(hdrMask)), Body: grow, Rare: true},
		h.set(hdrN, c.exactExpr(mk(fuse.OpAdd, h.get(hdrN), constExpr(1)))),
		{Kind: fuse.SStore, Arr: h.keys, X: h.get(hdrN), Y: varExpr(kv), Check: idx()},
		{Kind: fuse.SStore, Arr: h.dead, X: h.get(hdrN), Y: constExpr(0), Check: idx()},
		{Kind: fuse.SStore, Arr: h.slots, X: varExpr(i), Y: h.get(hdrN), Check: idx()},
		{Kind: fuse.SAssign, Var: p, X: h.get(hdrN)},
	}
	body = append(body, c.slotKeyStore(h, i, kv, at)...)
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)), Body: body})
}

// hashRemove emits the removal of the entry p (not 0) whose key sits in
// slot i: the entry is flagged removed (its number and order stay until
// the table is rebuilt), or, where it is the last entry, dropped (the
// entries are one fewer: a backtracking search that adds and then removes
// in the reverse order, as set-based N-queens does, never fills the table
// with removed entries, nor rebuilds it); and the slot emptied by backward
// shifting, so that no probe needs a tombstone: each later entry of the
// run of full slots moves into the hole where the hole lies between its
// first slot and its own.
func (c *compiler) hashRemove(h *hashTable, p, i int, at syntax.Position) []fuse.Stmt {
	idx := func() int { return c.check(fuse.CheckIndex, 0, at, "index out of range of a hash table") }
	j, q, kq, home := c.newVar(), c.newVar(), c.newVar(), c.newVar()
	m, assign := c.hashMask(h)
	dist := func(a, b *fuse.Expr) *fuse.Expr { // (b - a) & mask
		return c.exactExpr(mk(fuse.OpAnd, c.exactExpr(mk(fuse.OpSub, b, a)), varExpr(m)))
	}
	label := c.newLabel()
	return withMask(assign,
		// (p >= 1: the last entry's number less one is exact.)
		fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), h.get(hdrN)),
			Body: []fuse.Stmt{h.set(hdrN, c.exactExpr(mk(fuse.OpSub, varExpr(p), constExpr(1))))},
			Else: []fuse.Stmt{
				{Kind: fuse.SStore, Arr: h.dead, X: varExpr(p), Y: constExpr(1), Check: idx()},
				h.set(hdrRemoved, c.exactExpr(mk(fuse.OpAdd, h.get(hdrRemoved), constExpr(1)))),
			}},
		fuse.Stmt{Kind: fuse.SAssign, Var: j, X: varExpr(i)},
		fuse.Stmt{Kind: fuse.SWhile, Label: label, X: constExpr(1), Body: []fuse.Stmt{
			{Kind: fuse.SAssign, Var: j, X: c.hashNext(h, j, m)},
			{Kind: fuse.SAssign, Var: q, X: c.hashRead(h.slots, varExpr(j), at)},
			{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(q), constExpr(0)), Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: label}}},
			{Kind: fuse.SAssign, Var: kq, X: c.slotKey(h, q, j, at)},
			{Kind: fuse.SAssign, Var: home, X: c.hashSlot(h, kq, m)},
			{Kind: fuse.SIf, X: mk(fuse.OpGe, dist(varExpr(home), varExpr(j)), dist(varExpr(i), varExpr(j))), Body: append(
				append([]fuse.Stmt{{Kind: fuse.SStore, Arr: h.slots, X: varExpr(i), Y: varExpr(q), Check: idx()}}, c.slotKeyStore(h, i, kq, at)...),
				fuse.Stmt{Kind: fuse.SAssign, Var: i, X: varExpr(j)})},
		}},
		fuse.Stmt{Kind: fuse.SStore, Arr: h.slots, X: varExpr(i), Y: constExpr(0), Check: idx()},
	)
}

// hashLen is len(name): the entries less those removed, read now (an
// operand after it in the same expression may change the table).
func (c *compiler) hashLen(h *hashTable) *fuse.Expr {
	c.hashGuard(h)
	return c.snapshot(c.exactExpr(mk(fuse.OpSub, h.get(hdrN), h.get(hdrRemoved))))
}

// before returns x, an operand compiled before statements[mark:] of the
// current list were emitted (the next operand's: a set's add, a helper
// inlined), as Starlark evaluates it: before them. Where x is more than
// a constant or a variable (a call of a Proc, a read of an array those
// statements may write), it is assigned to a variable of its own ahead
// of them; a biased read (which a comparison takes biased) stays.
func (c *compiler) before(x *fuse.Expr, mark int) *fuse.Expr {
	if len(*c.out) == mark || x.Op == fuse.OpConst || x.Op == fuse.OpVar || c.biased[x] != 0 {
		return x
	}
	if _, ok := negConstant(x); ok {
		return x
	}
	v := c.newVar()
	*c.out = slices.Insert(*c.out, mark, fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
	return varExpr(v)
}

// beforeAll is before for each of xs, the operands compiled before
// statements[mark:] (nil ones skipped), in order: their assignments go
// ahead of those statements in the operands' order.
func (c *compiler) beforeAll(xs []*fuse.Expr, mark int) {
	for i, x := range xs {
		if x != nil {
			n := len(*c.out)
			xs[i] = c.before(x, mark)
			mark += len(*c.out) - n
		}
	}
}

// hashGuard emits a read of h's guard variable, where it has one: a
// table used before its name is assigned fails as in Starlark
// (fuse.Func.GuardUnassigned).
func (c *compiler) hashGuard(h *hashTable) {
	if h.guard >= 0 {
		c.snapshot(varExpr(h.guard))
	}
}

// snapshot assigns x to a variable of its own and returns the variable:
// a read of a table's state that an operand evaluated after it (an add,
// a pop, a helper given the table) must not see changed.
func (c *compiler) snapshot(x *fuse.Expr) *fuse.Expr {
	v := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
	return varExpr(v)
}

// hashIn compiles x in name and x not in name (x compiled already, as
// Starlark evaluates it first).
func (c *compiler) hashIn(h *hashTable, x *fuse.Expr, not bool, at syntax.Position) *fuse.Expr {
	kv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: kv, X: c.biasedTo(x, 0)})
	p, i := c.hashProbe(h, kv, at)
	c.probed(h, kv, p, i)
	if not {
		return mk(fuse.OpEq, varExpr(p), constExpr(0))
	}
	return mk(fuse.OpNe, varExpr(p), constExpr(0))
}

// hashIndex compiles d[k]: the value, or the run fails where d lacks k
// (Starlark's KeyError).
func (c *compiler) hashIndex(h *hashTable, id *syntax.Ident, e *syntax.IndexExpr) (*fuse.Expr, error) {
	if !h.dict {
		return nil, errAt(e.Lbrack, "%s is a set, which is not indexed", id.Name)
	}
	kv, err := c.hashKey(h, e.Y)
	if err != nil {
		return nil, err
	}
	p := c.hashFound(h, kv, e.Lbrack)
	return c.snapshot(c.hashRead(h.vals, c.hashEntry(h, p), e.Lbrack)), nil
}

// hashFound emits the probe for the key in kv and the failure where the
// dict lacks it; it returns the variable holding the entry's number.
func (c *compiler) hashFound(h *hashTable, kv int, at syntax.Position) int {
	p, _ := c.hashProbe(h, kv, at)
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)), Body: []fuse.Stmt{
		{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, at, "key not in dict")}}})
	return p
}

// hashStore compiles d[k] = v and d[k] op= v.
func (c *compiler) hashStore(h *hashTable, id *syntax.Ident, s *syntax.AssignStmt, lhs *syntax.IndexExpr) error {
	if !h.dict {
		return errAt(lhs.Lbrack, "%s is a set, which is not indexed", id.Name)
	}
	if s.Op == syntax.EQ {
		// Starlark evaluates the value first, then the key.
		v, err := c.word(s.RHS)
		if err != nil {
			return err
		}
		vv := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vv, X: c.biasedTo(v, 0)})
		kv, err := c.hashKey(h, lhs.Y)
		if err != nil {
			return err
		}
		if c.hashWritable(h, lhs.Lbrack) {
			return nil
		}
		p, i := c.hashProbe(h, kv, lhs.Lbrack)
		c.hashInsert(h, kv, p, i, lhs.Lbrack)
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: h.vals, X: varExpr(p), Y: varExpr(vv),
			Check: c.check(fuse.CheckIndex, 0, lhs.Lbrack, "index out of range of a hash table")})
		return nil
	}
	op, ok := augOps[s.Op]
	if !ok {
		return errAt(s.OpPos, "%s is not allowed in a function run as machine code", s.Op)
	}
	// The key, the value it holds (or a KeyError), the operand, then the
	// store.
	kv, err := c.hashKey(h, lhs.Y)
	if err != nil {
		return err
	}
	p := c.hashFound(h, kv, lhs.Lbrack)
	old := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: old, X: c.hashRead(h.vals, c.hashEntry(h, p), lhs.Lbrack)})
	y, err := c.word(s.RHS)
	if err != nil {
		return err
	}
	val, err := c.arith(op, s.OpPos, varExpr(old), y)
	if err != nil {
		return err
	}
	vv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vv, X: c.biasedTo(val, 0)})
	if c.hashWritable(h, lhs.Lbrack) {
		return nil
	}
	if callsIn(s.RHS) {
		// The operand's calls may have removed the key, or rebuilt the
		// table: the key is stored as by d[k] = v.
		q, i := c.hashProbe(h, kv, lhs.Lbrack)
		c.hashInsert(h, kv, q, i, lhs.Lbrack)
		p = q
	}
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: h.vals, X: varExpr(p), Y: varExpr(vv),
		Check: c.check(fuse.CheckIndex, 0, lhs.Lbrack, "index out of range of a hash table")})
	return nil
}

// hashMethod compiles s.add(x), s.clear(), d.get(k, default), d.clear()
// on a table; ok is false where dot is not a method call on one.
func (c *compiler) hashMethod(e *syntax.CallExpr, dot *syntax.DotExpr) (x *fuse.Expr, ok bool, err error) {
	h, id, err := c.hashNamed(dot.X)
	if h == nil {
		return nil, err != nil, err
	}
	for _, a := range e.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			return nil, true, errAt(pos(a), "%s.%s: keyword arguments are not allowed in a function run as machine code", id.Name, dot.Name.Name)
		}
	}
	at := e.Lparen
	if x, ok, err := c.hashMethodMore(h, id, e, dot); ok {
		return x, true, err // hashupdate.go
	}
	none := func() (*fuse.Expr, bool, error) {
		if !c.discarded[e] {
			return nil, true, errAt(pos(e.Fn), "%s.%s returns None, which is not a word: call it as a statement", id.Name, dot.Name.Name)
		}
		return constExpr(0), true, nil
	}
	switch name := dot.Name.Name; {
	case name == "add" && !h.dict && len(e.Args) == 1:
		if c.reusedAdd(h, e) {
			return none()
		}
		kv, err := c.hashKey(h, e.Args[0])
		if err != nil {
			return nil, true, err
		}
		if !c.hashWritable(h, at) {
			p, i := c.hashProbe(h, kv, at)
			c.hashInsert(h, kv, p, i, at)
		}
		return none()
	case name == "clear" && len(e.Args) == 0:
		c.hashGuard(h)
		if !c.hashWritable(h, at) {
			c.hashReset(h, at)
		}
		return none()
	case name == "get" && h.dict && len(e.Args) == 2:
		kv, err := c.hashKey(h, e.Args[0])
		if err != nil {
			return nil, true, err
		}
		d, err := c.word(e.Args[1])
		if err != nil {
			return nil, true, err
		}
		if k, ok := negConstant(d); ok {
			return c.getBiased(h, kv, k, at), true, nil
		}
		dv := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: dv, X: c.biasedTo(d, 0)})
		p, _ := c.hashProbe(h, kv, at)
		r := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)),
			Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: varExpr(dv)}},
			Else: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: c.hashRead(h.vals, c.hashEntry(h, p), at)}}})
		return varExpr(r), true, nil
	case (name == "remove" || name == "discard") && !h.dict && len(e.Args) == 1,
		name == "pop" && h.dict && (len(e.Args) == 1 || len(e.Args) == 2):
		kv, err := c.hashKey(h, e.Args[0])
		if err != nil {
			return nil, true, err
		}
		dv := -1
		if len(e.Args) == 2 {
			d, err := c.word(e.Args[1])
			if err != nil {
				return nil, true, err
			}
			dv = c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: dv, X: c.biasedTo(d, 0)})
		}
		if c.hashWritable(h, at) {
			if name == "pop" {
				return constExpr(0), true, nil
			}
			return none()
		}
		p, i := c.hashProbe(h, kv, at)
		r := c.newVar()
		var missing []fuse.Stmt
		switch {
		case name == "discard":
		case dv >= 0:
			missing = []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: varExpr(dv)}}
		default:
			missing = []fuse.Stmt{{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, at, "%s.%s: missing key", id.Name, name)}}
		}
		var found []fuse.Stmt
		if h.dict {
			found = append(found, fuse.Stmt{Kind: fuse.SAssign, Var: r, X: c.hashRead(h.vals, c.hashEntry(h, p), at)})
		}
		found = append(found, c.hashRemove(h, p, i, at)...)
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)), Body: missing, Else: found})
		if name == "pop" {
			return varExpr(r), true, nil
		}
		return none()
	case name == "get" && h.dict && len(e.Args) == 1:
		return nil, true, errAt(pos(e.Fn), "%s.get(k) may return None, which is not a word: give a default, %s.get(k, 0)", id.Name, id.Name)
	}
	return nil, true, errAt(pos(e.Fn), "%s.%s is not allowed on a %s in a function run as machine code (x in s, s.add(x), s.remove(x), s.discard(x), len(s), d[k], d[k] = v, d.get(k, v), d.pop(k), clear(), for loops)",
		id.Name, dot.Name.Name, h.kind())
}

// callsIn reports whether e calls a function.
func callsIn(e syntax.Expr) bool {
	calls := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.CallExpr); ok {
			calls = true
		}
		return !calls
	})
	return calls
}

// forHash compiles for x in s, for k in d, for k in d.keys(), for v in
// d.values() and for k, v in d.items(): the entries in insertion order.
func (c *compiler) forHash(s *syntax.ForStmt) (bool, error) {
	x := unparen(s.X)
	method := ""
	if call, ok := x.(*syntax.CallExpr); ok {
		if dot, ok := call.Fn.(*syntax.DotExpr); ok && len(call.Args) == 0 {
			x, method = dot.X, dot.Name.Name
		}
	}
	h, id, err := c.hashNamed(x)
	if h == nil {
		return err != nil, err
	}
	if err := c.hashLooped(h, pos(s.X)); err != nil {
		return true, err
	}
	var key, val *syntax.Ident
	switch {
	case method == "" || method == "keys" && h.dict:
		key, _ = unparen(s.Vars).(*syntax.Ident)
		if key == nil {
			return true, errAt(pos(s.Vars), "a for loop over %s binds one name", id.Name)
		}
	case method == "values" && h.dict:
		val, _ = unparen(s.Vars).(*syntax.Ident)
		if val == nil {
			return true, errAt(pos(s.Vars), "a for loop over %s.values() binds one name", id.Name)
		}
	case method == "items" && h.dict:
		if vs, ok := exprList(s.Vars); ok && len(vs) == 2 {
			key, _ = unparen(vs[0]).(*syntax.Ident)
			val, _ = unparen(vs[1]).(*syntax.Ident)
		}
		if key == nil || val == nil {
			return true, errAt(pos(s.Vars), "a for loop over %s.items() binds two names: for k, v in %s.items()", id.Name, id.Name)
		}
	default:
		return true, errAt(pos(s.X), "a for loop over %s.%s() is not allowed in a function run as machine code", id.Name, method)
	}
	c.hashGuard(h)
	j := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: j, X: constExpr(1),
		Y: c.exactExpr(mk(fuse.OpAdd, h.get(hdrN), constExpr(1))), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, pos(s.X), "range: step argument must not be zero")}
	h.iter++
	body, err := c.nested(func() error {
		c.scope.loops = append(c.scope.loops, st.Label)
		defer func() { c.scope.loops = c.scope.loops[:len(c.scope.loops)-1] }()
		// An entry removed is skipped.
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpNe, c.hashRead(h.dead, varExpr(j), pos(s.X)), constExpr(0)),
			Body: []fuse.Stmt{{Kind: fuse.SContinue, Label: st.Label}}})
		bind := func(name *syntax.Ident, arr int) error {
			if name == nil {
				return nil
			}
			v, err := c.bindVar(name)
			if err != nil {
				return err
			}
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: c.hashRead(arr, varExpr(j), pos(s.X))})
			return nil
		}
		if err := bind(key, h.keys); err != nil {
			return err
		}
		if err := bind(val, h.vals); err != nil {
			return err
		}
		return c.stmts(s.Body)
	})
	h.iter--
	if err != nil {
		return true, err
	}
	st.Body = body
	c.emit(st)
	return true, nil
}

// hashKind is the kind of a table passed to a helper (procKey): "g" (the
// helper is inlined only: the table's state is in variables of the
// caller's), or "h" with whether it is a dict and the log2 of its most
// slots: a Proc takes its arrays.
func (h *hashTable) argKind() string {
	if h.hdr < 0 {
		return "g"
	}
	d := 0
	if h.dict {
		d = 1
	}
	return fmt.Sprintf("h%d:%d", d, h.bits)
}

// hashParam binds a Proc's parameter of the kind k ("h...": argKind) to
// a table in its array parameters, which it adds to the unit u.
func (c *compiler) hashParam(sc *scope, u *fuse.Proc, name, k string) {
	var d, bits int
	fmt.Sscanf(k, "h%d:%d", &d, &bits)
	a := len(u.Scratch)
	for _, s := range hashScratch(name, d == 1, bits) {
		u.Scratch = append(u.Scratch, s)
		u.Arrays++
	}
	saved := c.proc
	c.proc = u
	i := c.arrayHash(name, d == 1, bits, a)
	c.proc = saved
	sc.names[name] = binding{kind: bHash, id: i}
}

// hashArgs returns the array arguments that pass h to a Proc, or an error
// where a loop over it is running (the Proc may write it, an error in
// Starlark).
func (c *compiler) hashArgs(h *hashTable, at syntax.Position) ([]*fuse.Expr, error) {
	if h.iter > 0 {
		return nil, errAt(at, "%s is being iterated over; a function run as machine code does not pass it to a helper that recurses there", h.name)
	}
	if err := c.hashPassed(h, at); err != nil {
		return nil, err
	}
	var xs []*fuse.Expr
	for _, a := range []int{h.hdr, h.slots, h.keys, h.dead, h.vals} {
		if a >= 0 {
			xs = append(xs, &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a), Check: -1})
		}
	}
	return xs, nil
}

// hashArrayArgs counts the arrays beyond one that the table arguments of
// kinds take (a Proc's array parameters less its arguments that are
// arrays).
func hashArrayArgs(kinds string) int {
	n := 0
	for _, k := range strings.Split(kinds, ",") {
		if strings.HasPrefix(k, "h1") {
			n += 4
		} else if strings.HasPrefix(k, "h0") {
			n += 3
		}
	}
	return n
}

// The kinds of a parameter of Options.Hashes.
const (
	HashSet  = 1
	HashDict = 2
)

// hashParams binds the parameters that are sets or dicts
// (Options.Hashes) to tables in array parameters, after the Globals'.
func (c *compiler) hashParams(src *Source, sc *scope, opt Options) error {
	if opt.Hashes == nil {
		return nil
	}
	if !opt.Exact || len(opt.Hashes) != len(src.Params) {
		return fmt.Errorf("Options.Hashes takes Exact and a kind for each of the %d parameters", len(src.Params))
	}
	for i, p := range src.Params {
		if opt.Hashes[i] == 0 {
			continue
		}
		dict := opt.Hashes[i] == HashDict
		a := len(c.proc.Scratch)
		for _, s := range HashScratch(p.Name, dict) {
			c.proc.Scratch = append(c.proc.Scratch, s)
			c.proc.Arrays++
		}
		sc.names[p.Name] = binding{kind: bHash, id: c.arrayHash(p.Name, dict, GlobalHashMaxBits, a)}
	}
	return nil
}
