package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// Tuple keys. A set or dict the function makes in its own body (a local,
// not passed to a helper that runs as a call, nor of its module) may
// have tuples of k ints as its keys (memo[(i, j)], (x, y) in seen,
// seen.add((x, y)), d[i, j]), every key a tuple of the same k: the
// tuple is held as one word, its ints packed in 64/k bits each, which
// the run checks they fit in (an int past them sends the call back to
// the interpreter). A table of tuple keys is not looped over (its keys
// would be the packed words), and one of word keys takes no tuple.

// keyKind is what a table's keys are, as its uses have found so far.
type keyKind struct {
	tuple  int  // 0: not known yet, -1: words, k: tuples of k ints
	looped bool // a for loop runs over the table
	passed bool // the table is passed to a helper that runs as a call
}

// kindOf returns the key kind the compiler has found for h.
func (c *compiler) kindOf(h *hashTable) *keyKind {
	if c.keyKinds == nil {
		c.keyKinds = map[*hashTable]*keyKind{}
	}
	k, ok := c.keyKinds[h]
	if !ok {
		k = &keyKind{}
		c.keyKinds[h] = k
	}
	return k
}

// wordKeys records that h takes a word as a key at at.
func (c *compiler) wordKeys(h *hashTable, at syntax.Position) error {
	k := c.kindOf(h)
	if k.tuple > 0 {
		return errAt(at, "%s has tuples as its keys; a function run as machine code keys a %s with tuples or with ints, not both", h.name, h.kind())
	}
	k.tuple = -1
	return nil
}

// hashLooped records that a for loop runs over h.
func (c *compiler) hashLooped(h *hashTable, at syntax.Position) error {
	k := c.kindOf(h)
	if k.tuple > 0 {
		return errAt(at, "%s has tuples as its keys; a function run as machine code does not loop over it", h.name)
	}
	k.looped = true
	return nil
}

// hashPassed records that h is passed to a helper that runs as a call (a
// Proc, whose own uses of the table the caller's do not see).
func (c *compiler) hashPassed(h *hashTable, at syntax.Position) error {
	k := c.kindOf(h)
	if k.tuple > 0 {
		return errAt(at, "%s has tuples as its keys; a function run as machine code does not pass it to a helper that recurses", h.name)
	}
	k.passed = true
	return nil
}

// tupleKey evaluates the tuple t, a key of h, into a variable of its
// own: its ints packed into one word.
func (c *compiler) tupleKey(h *hashTable, t syntax.Expr) (int, error) {
	n := 0
	if vars, ok := c.tupleLocalNamed(t); ok {
		n = len(vars)
	} else {
		n = len(unparen(t).(*syntax.TupleExpr).List)
	}
	at := pos(t)
	k := c.kindOf(h)
	switch {
	case !c.opt.Exact || !h.fresh || k.passed:
		return 0, errAt(at, "%s: a function run as machine code keys with tuples only a set or dict it makes (not one of its module, passed, or given to a helper that recurses)", h.name)
	case n < 2 || n > 8:
		return 0, errAt(at, "a tuple key of %d ints is not allowed in a function run as machine code (2 to 8)", n)
	case k.tuple == -1:
		return 0, errAt(at, "%s has ints as its keys; a function run as machine code keys a %s with tuples or with ints, not both", h.name, h.kind())
	case k.tuple > 0 && k.tuple != n:
		return 0, errAt(at, "%s has tuples of %d ints as its keys, not %d", h.name, k.tuple, n)
	case k.looped:
		return 0, errAt(at, "%s is looped over; a function run as machine code does not key it with tuples", h.name)
	}
	k.tuple = n
	w := uint64(64 / n)
	// Every element first, in order, as Starlark builds the tuple.
	vs, _, err := c.tupleOfWords(t)
	if err != nil {
		return 0, err
	}
	var key *fuse.Expr
	for i, v := range vs {
		part := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{v, constExpr(1<<w - 1)},
			Check: c.check(fuse.CheckFits, w, at, "a tuple key of %s in a function run as machine code holds ints below 2^%d", h.name, w)}
		if shift := w * uint64(n-1-i); shift > 0 {
			part = c.exactExpr(mk(fuse.OpShl, part, constExpr(shift)))
		}
		if key == nil {
			key = part
		} else {
			key = mk(fuse.OpOr, key, part)
		}
	}
	kv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: kv, X: key})
	return kv, nil
}

// tupleIn compiles (a, b) in d (or not in) for a set or dict d; it
// reports false where xe is not a tuple or ye names no set or dict.
func (c *compiler) tupleIn(xe, ye syntax.Expr, not bool, at syntax.Position) (*fuse.Expr, bool, error) {
	if _, ok := c.tupleLocalNamed(xe); !ok && !isTupleExpr(xe) {
		return nil, false, nil
	}
	t := xe
	h, _, err := c.hashNamed(ye)
	if h == nil || err != nil {
		return nil, err != nil, err
	}
	kv, err := c.tupleKey(h, t)
	if err != nil {
		return nil, true, err
	}
	p, _ := c.hashProbe(h, kv, at)
	if not {
		return mk(fuse.OpEq, varExpr(p), constExpr(0)), true, nil
	}
	return mk(fuse.OpNe, varExpr(p), constExpr(0)), true, nil
}
