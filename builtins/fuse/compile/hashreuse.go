package compile

import "go.starlark.net/syntax"

// One probe for `if k not in s: s.add(k)`: where an if's condition is
// just `k not in s` (k and s names) and its body begins with s.add(k),
// the add inserts at the empty slot the condition's probe found, rather
// than probing again. Between the two nothing runs: the condition is the
// probe alone, and the add is the body's first statement, so the table,
// k and the slot are as the probe left them, and in the body the probe
// found no entry.

// probeReuse is a pending reuse: the add's call, the names, and, once
// the condition's probe ran (probed), its table, key and results.
type probeReuse struct {
	add        *syntax.CallExpr
	set, key   string
	h          *hashTable
	kv, p, i   int
	conditions int // the probes the condition made: the reuse takes one
}

// notInThenAdd returns the pending reuse of the if s (above), or nil.
func notInThenAdd(s *syntax.IfStmt) *probeReuse {
	b, ok := unparen(s.Cond).(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.NOT_IN || len(s.True) == 0 {
		return nil
	}
	k, ok1 := unparen(b.X).(*syntax.Ident)
	set, ok2 := unparen(b.Y).(*syntax.Ident)
	st, ok3 := s.True[0].(*syntax.ExprStmt)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	call, ok := st.X.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	dot, ok := call.Fn.(*syntax.DotExpr)
	if !ok || dot.Name.Name != "add" {
		return nil
	}
	recv, ok1 := unparen(dot.X).(*syntax.Ident)
	arg, ok2 := unparen(call.Args[0]).(*syntax.Ident)
	if !ok1 || !ok2 || recv.Name != set.Name || arg.Name != k.Name {
		return nil
	}
	return &probeReuse{add: call, set: set.Name, key: k.Name}
}

// probed records the probe of hashIn (key kv, entry p, slot i) for the
// pending reuse, where there is one.
func (c *compiler) probed(h *hashTable, kv, p, i int) {
	if r := c.reuse; r != nil {
		r.conditions++
		r.h, r.kv, r.p, r.i = h, kv, p, i
	}
}

// reusedAdd emits the add call e of h at the slot of the pending reuse,
// where e is its add and the condition made its one probe of h, and
// reports whether it did.
func (c *compiler) reusedAdd(h *hashTable, e *syntax.CallExpr) bool {
	r := c.reuse
	c.reuse = nil
	if r == nil || r.add != e || r.conditions != 1 || r.h != h {
		return false
	}
	at := e.Lparen
	if !c.hashWritable(h, at) {
		c.hashInsert(h, r.kv, r.p, r.i, at)
	}
	return true
}
