package compile

import (
	"fmt"
	"math/big"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Lists of tuples built by append. A local whose every assignment is a
// list of k-tuples written out (q = [(0, 0)], pairs = []) and whose every
// append appends one (q.append((nx, ny))) is a list of tuples of k ints,
// held as k lists built by append that share one length: unpacked by
// index or pop (x, y = q[head], x, y = q.pop(), x, y = q.pop(0)), looped
// over (for a, b in pairs), counted (len(q)) and tested (while q).

// bTupleList is the binding of a name to a list of tuples: id indexes
// compiler.tupleLists.
const bTupleList = bHash + 1

// tupleList is a list of k-tuples: its k parts, lists built by append of
// one length (the variable count - 1 of each).
type tupleList struct {
	name  string
	parts []binding
}

// tupleListNames returns the names of the scope's body that hold lists
// of tuples, with the tuples' length.
func (c *compiler) tupleListNames() map[string]int {
	return c.tupleNames().lists
}

// tupleNamesOf are the names of a scope that hold lists of tuples and
// tuples (tuplelocals.go), with the tuples' length.
type tupleNamesOf struct {
	lists, locals map[string]int
}

// tupleNames finds the scope's lists of tuples and tuple locals: a list
// whose every assignment is a list of k-tuples written out and whose
// every append appends one (or a tuple local of k); a local whose every
// assignment is a k-tuple written out, or a read of such a list (q[i],
// q.pop()), and whose every for loop runs over such a list.
func (c *compiler) tupleNames() tupleNamesOf {
	if names, ok := c.tupleListsOf[c.scope]; ok {
		return names
	}
	lists := map[string]int{}
	bad := map[string]bool{}
	note := func(k map[string]int, name string, n int) {
		if n < 2 || k[name] != 0 && k[name] != n {
			bad[name] = true
		}
		k[name] = n
	}
	deferred := map[string][]string{} // list: the names it appends
	// locals: the k of the tuples written out assigned to each name;
	// reads: the lists each name is read from (q[i], q.pop(), for p in q).
	locals := map[string]int{}
	notLocal := map[string]bool{}
	reads := map[string][]string{}
	listRead := func(e syntax.Expr) (string, bool) {
		switch r := unparen(e).(type) {
		case *syntax.IndexExpr:
			if id, ok := unparen(r.X).(*syntax.Ident); ok {
				return id.Name, true
			}
		case *syntax.CallExpr:
			if dot, ok := r.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "pop" {
				if id, ok := unparen(dot.X).(*syntax.Ident); ok {
					return id.Name, true
				}
			}
		}
		return "", false
	}
	for _, st := range c.scope.src.Body {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				if dot, ok := n.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "append" {
					if id, ok := dot.X.(*syntax.Ident); ok {
						if len(n.Args) != 1 {
							bad[id.Name] = true
						} else if t, ok := unparen(n.Args[0]).(*syntax.TupleExpr); ok {
							note(lists, id.Name, len(t.List))
						} else if a, ok := unparen(n.Args[0]).(*syntax.Ident); ok {
							deferred[id.Name] = append(deferred[id.Name], a.Name)
						} else {
							bad[id.Name] = true
						}
					}
				}
			case *syntax.AssignStmt:
				if id, ok := n.LHS.(*syntax.Ident); ok {
					if n.Op != syntax.EQ {
						bad[id.Name], notLocal[id.Name] = true, true
						break
					}
					if t, ok := unparen(n.RHS).(*syntax.TupleExpr); ok {
						note(locals, id.Name, len(t.List))
					} else if q, ok := listRead(n.RHS); ok {
						reads[id.Name] = append(reads[id.Name], q)
					} else {
						notLocal[id.Name] = true
					}
					if comp, ok := unparen(n.RHS).(*syntax.Comprehension); ok && !comp.Curly {
						if t, ok := unparen(comp.Body).(*syntax.TupleExpr); ok {
							note(lists, id.Name, len(t.List)) // [(i, j) for ...]
							break
						}
					}
					l, ok := unparen(n.RHS).(*syntax.ListExpr)
					if !ok {
						bad[id.Name] = true
						break
					}
					for _, e := range l.List {
						if t, ok := unparen(e).(*syntax.TupleExpr); ok {
							note(lists, id.Name, len(t.List))
						} else if a, ok := unparen(e).(*syntax.Ident); ok {
							deferred[id.Name] = append(deferred[id.Name], a.Name)
						} else {
							bad[id.Name] = true
						}
					}
				} else {
					names := map[string]bool{}
					markLocals(names, n.LHS)
					for name := range names {
						notLocal[name] = true
					}
				}
			case *syntax.ForStmt:
				if id, ok := unparen(n.Vars).(*syntax.Ident); ok {
					if q, ok := unparen(n.X).(*syntax.Ident); ok {
						reads[id.Name] = append(reads[id.Name], q.Name)
					} else {
						notLocal[id.Name] = true
					}
				} else {
					names := map[string]bool{}
					markLocals(names, n.Vars)
					for name := range names {
						notLocal[name] = true
					}
				}
			case *syntax.Comprehension:
				for _, cl := range n.Clauses {
					if f, ok := cl.(*syntax.ForClause); ok {
						names := map[string]bool{}
						markLocals(names, f.Vars)
						for name := range names {
							notLocal[name] = true
						}
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			return true
		})
	}
	for _, p := range c.scope.src.Params {
		bad[p.Name], notLocal[p.Name] = true, true
	}
	for name := range bad {
		delete(lists, name)
	}
	// The tuple locals and the lists that append them, to a fixed
	// point: a local read from lists of tuples of one k holds k-tuples,
	// a list that appends locals of one k holds them.
	for name := range notLocal {
		delete(locals, name)
	}
	for changed := true; changed; {
		changed = false
		for name, qs := range reads {
			if notLocal[name] {
				continue
			}
			for _, q := range qs {
				n, ok := lists[q]
				if !ok || bad[q] {
					continue // not known yet
				}
				if locals[name] != 0 && locals[name] != n {
					notLocal[name] = true
					delete(locals, name)
					break
				}
				if locals[name] == 0 {
					locals[name], changed = n, true
				}
			}
		}
		for q, names := range deferred {
			if bad[q] {
				continue
			}
			for _, a := range names {
				n, ok := locals[a]
				if !ok {
					continue
				}
				if lists[q] != 0 && lists[q] != n {
					bad[q] = true
					break
				}
				if lists[q] == 0 {
					lists[q], changed = n, true
				}
			}
		}
	}
	// What stays consistent: every list a local is read from holds its
	// tuples, every name a list appends is a local of its tuples.
	for stable := false; !stable; {
		stable = true
		for name, qs := range reads {
			if _, ok := locals[name]; !ok {
				continue
			}
			for _, q := range qs {
				if n, ok := lists[q]; !ok || bad[q] || n != locals[name] {
					delete(locals, name)
					stable = false
					break
				}
			}
		}
		for q, names := range deferred {
			if _, ok := lists[q]; !ok || bad[q] {
				continue
			}
			for _, a := range names {
				if n, ok := locals[a]; !ok || n != lists[q] {
					bad[q] = true
					stable = false
					break
				}
			}
		}
		for name := range bad {
			delete(lists, name)
		}
	}
	for name, n := range lists {
		if n == 0 {
			delete(lists, name) // never given a tuple: q = [] alone
		}
	}
	if c.tupleListsOf == nil {
		c.tupleListsOf = map[*scope]tupleNamesOf{}
	}
	names := tupleNamesOf{lists: lists, locals: locals}
	c.tupleListsOf[c.scope] = names
	return names
}

// tupleListNamed returns the list of tuples e names, if it names one.
func (c *compiler) tupleListNamed(e syntax.Expr) (*tupleList, *syntax.Ident, bool) {
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return nil, nil, false
	}
	b, ok := c.scope.names[id.Name]
	if !ok || b.kind != bTupleList {
		return nil, nil, false
	}
	return c.tupleLists[b.id], id, true
}

// tupleListAssign compiles name = [(a, b), ...] (or []) for a name that
// holds a list of tuples; it reports false for any other name.
func (c *compiler) tupleListAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	k, ok := c.tupleListNames()[id.Name]
	l, isList := unparen(rhs).(*syntax.ListExpr)
	comp, isComp := unparen(rhs).(*syntax.Comprehension)
	if !ok || !isList && !isComp || !c.opt.Exact {
		return false, nil
	}
	if isComp {
		// A fresh list, then each tuple appended; a comprehension that
		// reads the name is not one of these (its elements would see
		// the new list).
		reads := false
		syntax.Walk(comp, func(n syntax.Node) bool {
			if r, ok := n.(*syntax.Ident); ok && r.Name == id.Name {
				reads = true
			}
			return !reads
		})
		if reads {
			return true, errAt(comp.Lbrack, "a list comprehension assigned to %s reads %s in a fused function (use another name)", id.Name, id.Name)
		}
		l = &syntax.ListExpr{Lbrack: comp.Lbrack, Rbrack: comp.Rbrack}
	}
	listCap, _ := c.listCap()
	if len(l.List) > listCap {
		return true, errAt(pos(rhs), "a list built by append holds at most %d elements in a fused function", listCap)
	}
	b, bound := c.scope.names[id.Name]
	var tl *tupleList
	switch {
	case bound && b.kind != bTupleList:
		return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	case bound:
		tl = c.tupleLists[b.id]
		for _, p := range tl.parts {
			if c.iterating[arrayOf{c.proc, p.id}] {
				return true, errAt(id.NamePos, "%s is being iterated over; a fused function does not rebind it there", id.Name)
			}
		}
	default:
		tl = &tupleList{name: id.Name}
		count := c.newVar() + 1
		c.varNames[[2]int{c.unit, count - 1}] = id.Name
		for i := 0; i < k; i++ {
			c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name + " (a tuple's element)", Len: listCap})
			tl.parts = append(tl.parts, binding{kind: bScratch, id: len(c.proc.Scratch) - 1, count: count})
		}
		if total := c.scratchWords(); total > MaxScratchWords {
			return true, errAt(id.NamePos, "the scratch arrays of a fused function hold at most %d words in all, not %d (with %s)", MaxScratchWords, total, id.Name)
		}
		c.tupleLists = append(c.tupleLists, tl)
		c.scope.names[id.Name] = binding{kind: bTupleList, id: len(c.tupleLists) - 1}
	}
	// The values first, in order, then the fresh lists.
	var vals [][]*fuse.Expr
	for _, e := range l.List {
		row, ok, err := c.tupleOfWords(e)
		if err != nil {
			return true, err
		}
		if !ok || len(row) != k {
			return true, errAt(pos(e), "%s holds tuples of %d ints; a fused function assigns it a list of them", id.Name, k)
		}
		vals = append(vals, row)
	}
	for i, p := range tl.parts {
		c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: p.id})
		for j, row := range vals {
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: p.id, X: constExpr(uint64(j)), Y: row[i], Check: -1})
		}
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: tl.parts[0].count - 1, X: constExpr(uint64(len(l.List)))})
	if isComp {
		return true, c.comprehensionOf(comp, func() error { return c.tupleListPush(tl, id, comp.Body, comp.Lbrack) })
	}
	return true, nil
}

// tupleWords compiles the elements of t, in order, each into a variable
// of its own (its word: a negative int fails the run).
func (c *compiler) tupleWords(t *syntax.TupleExpr) ([]*fuse.Expr, error) {
	row := make([]*fuse.Expr, len(t.List))
	for i, e := range t.List {
		x, err := c.word(e)
		if err != nil {
			return nil, err
		}
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: c.biasedTo(x, 0)})
		row[i] = varExpr(v)
	}
	return row, nil
}

// tupleListAppend compiles name.append((a, b)) of a list of tuples.
func (c *compiler) tupleListAppend(tl *tupleList, id *syntax.Ident, call *syntax.CallExpr) error {
	if len(call.Args) != 1 {
		return errAt(call.Lparen, "%s.append takes one argument", id.Name)
	}
	for _, p := range tl.parts {
		if c.iterating[arrayOf{c.proc, p.id}] {
			return errAt(call.Lparen, "%s.append while a loop iterates over %s (an error in Starlark)", id.Name, id.Name)
		}
	}
	return c.tupleListPush(tl, id, call.Args[0], call.Lparen)
}

// tupleListPush emits the append of the tuple x (written out, or a tuple
// local) to the list of tuples tl.
func (c *compiler) tupleListPush(tl *tupleList, id *syntax.Ident, x syntax.Expr, at syntax.Position) error {
	row, ok, err := c.tupleOfWords(x)
	if err != nil {
		return err
	}
	if !ok || len(row) != len(tl.parts) {
		return errAt(at, "%s holds tuples of %d ints; a fused function appends such a tuple", id.Name, len(tl.parts))
	}
	n := varExpr(tl.parts[0].count - 1)
	for i, p := range tl.parts {
		chk := c.check(fuse.CheckIndex, 0, at, "%s.append: a list built by append holds at most %d elements in a fused function", id.Name, c.proc.Scratch[p.id].Len)
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: p.id, X: n, Y: row[i], Check: chk})
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: tl.parts[0].count - 1, X: c.mk(fuse.OpAdd, n, constExpr(1))})
	return nil
}

// tupleListRead compiles the tuple rhs gives, q[i], q.pop() or q.pop(i)
// of a list of tuples, unpacked into n values; it reports false where rhs
// is none of them.
func (c *compiler) tupleListRead(rhs syntax.Expr, n int) ([]*fuse.Expr, bool, error) {
	var x syntax.Expr
	var at syntax.Position
	pop := false
	var args []syntax.Expr
	switch r := unparen(rhs).(type) {
	case *syntax.IndexExpr:
		x, at, args = r.X, r.Lbrack, []syntax.Expr{r.Y}
	case *syntax.CallExpr:
		dot, ok := r.Fn.(*syntax.DotExpr)
		if !ok || dot.Name.Name != "pop" || len(r.Args) > 1 {
			return nil, false, nil
		}
		x, at, args, pop = dot.X, r.Lparen, r.Args, true
	default:
		return nil, false, nil
	}
	tl, id, ok := c.tupleListNamed(x)
	if !ok {
		return nil, false, nil
	}
	if n != len(tl.parts) {
		return nil, true, errAt(at, "%s holds tuples of %d ints, not %d", id.Name, len(tl.parts), n)
	}
	if pop {
		for _, p := range tl.parts {
			if c.iterating[arrayOf{c.proc, p.id}] {
				return nil, true, errAt(at, "%s.pop while a loop iterates over %s (an error in Starlark)", id.Name, id.Name)
			}
		}
	}
	count := varExpr(tl.parts[0].count - 1)
	capacity := uint64(c.proc.Scratch[tl.parts[0].id].Len)
	// i: the index read, or the capacity (out of range) where it is not
	// below the length; a negative constant -k counts from the end.
	i := c.newVar()
	if len(args) == 0 {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
			mk(fuse.OpNe, count, constExpr(0)), c.exactExpr(mk(fuse.OpSub, count, constExpr(1))), constExpr(capacity)}}})
	} else {
		ix, k, err := c.listIndexArg(args[0])
		if err != nil {
			return nil, true, err
		}
		if ix == nil {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
				mk(fuse.OpGe, count, constExpr(k)), c.exactExpr(mk(fuse.OpSub, count, constExpr(k))), constExpr(capacity)}}})
		} else {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: ix})
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
				mk(fuse.OpLt, varExpr(i), count), varExpr(i), constExpr(capacity)}}})
		}
	}
	msg := "index out of range"
	if pop {
		msg = "pop: index out of range"
		if len(args) == 0 {
			msg = "pop: empty list"
		}
	}
	vals := make([]*fuse.Expr, n)
	for j, p := range tl.parts {
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(p.id),
			Args: []*fuse.Expr{varExpr(i)}, Check: c.check(fuse.CheckIndex, 0, at, "%s: %s", id.Name, msg)}})
		vals[j] = varExpr(v)
	}
	if pop {
		if len(args) != 0 {
			// The tuples after i move down one.
			for _, p := range tl.parts {
				j := c.newVar()
				next := c.exactExpr(mk(fuse.OpAdd, varExpr(j), constExpr(1)))
				c.emit(fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: j, X: varExpr(i),
					Y: c.exactExpr(mk(fuse.OpSub, count, constExpr(1))), Z: constExpr(1), Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero"),
					Body: []fuse.Stmt{{Kind: fuse.SStore, Arr: p.id, X: varExpr(j), Check: c.check(fuse.CheckIndex, 0, at, "index out of range"),
						Y: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(p.id), Args: []*fuse.Expr{next}, Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}}}})
			}
		}
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: tl.parts[0].count - 1, X: c.exactExpr(mk(fuse.OpSub, count, constExpr(1)))})
	}
	return vals, true, nil
}

// forTupleList compiles for a, b in q over a list of tuples; it reports
// false where s is no such loop.
func (c *compiler) forTupleList(s *syntax.ForStmt) (bool, error) {
	tl, id, ok := c.tupleListNamed(s.X)
	if !ok {
		return false, nil
	}
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: varExpr(tl.parts[0].count - 1), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, pos(s.X), "range: step argument must not be zero")}
	var head []fuse.Stmt
	if one, ok := unparen(s.Vars).(*syntax.Ident); ok {
		// for p in q: p a tuple local.
		tv, ok, err := c.tupleLocalVars(one)
		if err != nil {
			return true, err
		}
		if !ok || len(tv) != len(tl.parts) {
			return true, errAt(pos(s.Vars), "%s holds tuples of %d ints; a for loop over it unpacks them into %d names", id.Name, len(tl.parts), len(tl.parts))
		}
		for j, v := range tv {
			head = append(head, fuse.Stmt{Kind: fuse.SAssign, Var: v, X: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(tl.parts[j].id),
				Args: []*fuse.Expr{varExpr(i)}, Check: c.check(fuse.CheckIndex, 0, pos(s.X), "index out of range")}})
		}
	}
	vars, ok := exprList(unparen(s.Vars))
	if head == nil && (!ok || len(vars) != len(tl.parts)) {
		return true, errAt(pos(s.Vars), "%s holds tuples of %d ints; a for loop over it unpacks them into %d names", id.Name, len(tl.parts), len(tl.parts))
	}
	for j, v := range vars {
		name, ok := unparen(v).(*syntax.Ident)
		if !ok {
			return true, errAt(pos(v), "a for loop over %s binds names", id.Name)
		}
		x, err := c.bindVar(name)
		if err != nil {
			return true, err
		}
		head = append(head, fuse.Stmt{Kind: fuse.SAssign, Var: x, X: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(tl.parts[j].id),
			Args: []*fuse.Expr{varExpr(i)}, Check: c.check(fuse.CheckIndex, 0, pos(s.X), "index out of range")}})
	}
	was := make([]bool, len(tl.parts))
	for j, p := range tl.parts {
		was[j] = c.iterating[arrayOf{c.proc, p.id}]
		c.iterating[arrayOf{c.proc, p.id}] = true
	}
	body, err := c.loopBody(st.Label, s.Body)
	for j, p := range tl.parts {
		c.iterating[arrayOf{c.proc, p.id}] = was[j]
	}
	if err != nil {
		return true, err
	}
	st.Body = append(head, body...)
	c.emit(st)
	return true, nil
}

// forLiteralTuples compiles for a, b in ((1, 0), (x, y - 1)), a loop over
// tuples of k values written out: where they are int constants (negative
// ones too), a table of them, looped over as a module's tuple of tuples
// is (forTable); else k scratch arrays of their words. It reports false
// where s is no such loop.
func (c *compiler) forLiteralTuples(s *syntax.ForStmt) (bool, error) {
	rows, ok := exprList(unparen(s.X))
	if !ok || len(rows) == 0 || !c.opt.Exact {
		return false, nil
	}
	vars, ok := exprList(unparen(s.Vars))
	if !ok {
		return false, nil
	}
	k := len(vars)
	constant := true
	for _, r := range rows {
		t, ok := unparen(r).(*syntax.TupleExpr)
		if !ok || len(t.List) != k {
			return false, nil
		}
		for _, e := range t.List {
			if _, ok := intLiteral(e); !ok {
				constant = false
			}
		}
	}
	if len(rows) > MaxScratch {
		return true, errAt(pos(s.X), "a loop over more than %d values", MaxScratch)
	}
	at := pos(s.X)
	if constant {
		tuples := make([]starlark.Value, len(rows))
		for i, r := range rows {
			t := unparen(r).(*syntax.TupleExpr)
			row := make(starlark.Tuple, k)
			for j, e := range t.List {
				row[j], _ = intLiteral(e)
			}
			tuples[i] = row
		}
		name := fmt.Sprintf(" the tuples at %d:%d", at.Line, at.Col)
		t, isTable, err := c.table(name, starlark.Tuple(tuples))
		if err != nil {
			return true, errAt(at, "%v", err)
		}
		if isTable {
			c.scope.tables[name] = t
			return c.forTable(&syntax.ForStmt{For: s.For, Vars: s.Vars, X: &syntax.Ident{NamePos: at, Name: name}, Body: s.Body})
		}
	}
	// The values, in order, into k arrays of len(rows) words.
	parts := make([]int, k)
	for j := range parts {
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: "the values of a loop", Len: len(rows)})
		parts[j] = len(c.proc.Scratch) - 1
	}
	var vals [][]*fuse.Expr
	for _, r := range rows {
		row, err := c.tupleWords(unparen(r).(*syntax.TupleExpr))
		if err != nil {
			return true, err
		}
		vals = append(vals, row)
	}
	for j, a := range parts {
		c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: a})
		for i, row := range vals {
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: a, X: constExpr(uint64(i)), Y: row[j], Check: -1})
		}
	}
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: constExpr(uint64(len(rows))), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero")}
	head, err := c.nested(func() error {
		for j, v := range vars {
			name, ok := unparen(v).(*syntax.Ident)
			if !ok {
				return errAt(pos(v), "a for loop over tuples binds names in a fused function")
			}
			x := &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(parts[j]), Args: []*fuse.Expr{varExpr(i)}, Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}
			if err := c.assignVar(name, x); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	body, err := c.loopBody(st.Label, s.Body)
	if err != nil {
		return true, err
	}
	st.Body = append(head, body...)
	c.emit(st)
	return true, nil
}

// intLiteral returns the int e writes, an int literal or its negation.
func intLiteral(e syntax.Expr) (starlark.Value, bool) {
	e = unparen(e)
	neg := false
	if u, ok := e.(*syntax.UnaryExpr); ok && u.Op == syntax.MINUS {
		e, neg = unparen(u.X), true
	}
	lit, ok := e.(*syntax.Literal)
	if !ok || lit.Token != syntax.INT {
		return nil, false
	}
	var x starlark.Int
	switch v := lit.Value.(type) {
	case int64:
		x = starlark.MakeInt64(v)
	case *big.Int:
		x = starlark.MakeBigInt(v)
	default:
		return nil, false
	}
	if neg {
		x = starlark.MakeInt(0).Sub(x)
	}
	return x, true
}
