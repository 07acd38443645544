package compile

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Tables of tuples, and tables of negative ints.
//
// A free list or tuple of words, or of rows of words, is a table (table).
// Two more shapes are read:
//
//   - a table whose rows hold tuples of k words, the same k for all
//     (PLACEMENTS[cell] lists (piece, mask) pairs): each row is kept
//     flat, its tuples one after the other (tableShape.stride k), so that
//     for piece, mask in T[i] is a counted loop over the row in steps of k
//     (forTable). A table of rows that are themselves k-tuples (DIRS =
//     ((1, 0), (0, 1))) needs nothing more: for dr, df in DIRS reads row
//     i's two words;
//   - with Options.Exact, a table holding negative ints, -k the least: its
//     words are the ints x + k (tableShape.bias), as a biased scratch
//     array's are (scratchAssign), and its reads are biased reads
//     (biasedRead), which compare, add and subtract as ints and fail the
//     run where a negative int would be read as a word. A table whose ints
//     span more than 2^64 values is refused.

// tableShape is what the compiler knows of a table beside its words.
type tableShape struct {
	bias   uint64 // its words are its ints plus bias (Options.Exact)
	stride int    // its rows hold tuples of stride words each (0: words)
}

// shapeOf returns table t's shape.
func (c *compiler) shapeOf(t int) tableShape { return c.shapes[t] }

// tableRead is the int of a read of table t (OpLoad, OpLoad2): the read
// itself, or the read less the table's bias, recorded as biased.
func (c *compiler) tableRead(t int, raw *fuse.Expr) *fuse.Expr {
	return c.biasedRead(raw, c.shapeOf(t).bias)
}

// tableReader reads the ints of a table: with exact, Starlark's ints,
// negative ones as the two's complement word, with the least and the
// greatest; without, as WordOf reads them.
type tableReader struct {
	exact bool
	neg   uint64 // the largest magnitude of a negative int read
	top   uint64 // the largest non-negative int read
	any   bool   // an int was read
}

// word reads x: its word, whether it is an int at all, and an error where
// it is an int outside the words (and, exact, below -2^63). The error
// names x by name(), called only then: a table of many words is read
// without formatting a name for each.
func (r *tableReader) word(name func() string, x starlark.Value) (uint64, bool, error) {
	if !r.exact {
		w, ok := WordOf(x)
		if !ok {
			if _, isInt := x.(starlark.Int); isInt {
				return 0, true, fmt.Errorf("%s = %s does not fit in a word", name(), shortInt(x))
			}
			return 0, false, nil
		}
		return w, true, nil
	}
	i, isInt := x.(starlark.Int)
	if !isInt {
		return 0, false, nil
	}
	if u, ok := i.Uint64(); ok {
		r.top, r.any = max(r.top, u), true
		return u, true, nil
	}
	if s, ok := i.Int64(); ok && s < 0 {
		r.neg, r.any = max(r.neg, uint64(-(s+1))+1), true
		return uint64(s), true, nil
	}
	return 0, true, fmt.Errorf("%s = %s does not fit in a word", name(), shortInt(x))
}

// elem names the element i of the value named base: "T[3]".
func elem(base string, i int) func() string {
	return func() string { return fmt.Sprintf("%s[%d]", base, i) }
}

// bias returns the bias the ints read need, or an error where they span
// more than the words.
func (r *tableReader) bias(name string) (uint64, error) {
	if r.neg == 0 {
		return 0, nil
	}
	if r.top > math.MaxUint64-r.neg {
		return 0, fmt.Errorf("%s holds ints from -%d to %d; a table's ints span at most 2^64 values", name, r.neg, r.top)
	}
	return r.neg, nil
}

// table reads v as a table: a list, tuple or word array of words, or a
// list or tuple of those, or of lists or tuples of k-tuples of words.
func (c *compiler) table(name string, v starlark.Value) (int, bool, error) {
	items, ok := ListOrTuple(v)
	if !ok {
		if ws, ok := c.opt.Words(v); ok {
			return c.addTable(fuse.Table{Name: name, Flat: true, Rows: [][]uint64{append([]uint64(nil), ws...)}})
		}
		return -1, false, nil
	}
	r := &tableReader{exact: c.opt.Exact}
	nested := false
	for i := 0; i < items.Len(); i++ {
		if i%copyPoll == copyPoll-1 {
			if err := c.stopCopy(); err != nil {
				return -1, true, err
			}
		}
		_, isInt, err := r.word(elem(name, i), items.Index(i))
		if err != nil {
			return -1, true, err
		}
		if !isInt {
			nested = true
			break
		}
	}
	if err := c.reserve(items); err != nil {
		return -1, true, err
	}
	t := fuse.Table{Name: name}
	var sh tableShape
	if !nested {
		row := make([]uint64, items.Len())
		for i := range row {
			if i%copyPoll == copyPoll-1 {
				if err := c.stopCopy(); err != nil {
					return -1, true, err
				}
			}
			row[i], _, _ = r.word(nil, items.Index(i)) // read above: no error
		}
		t.Flat, t.Rows = true, [][]uint64{row}
	} else {
		// Rows: of words, or of k-tuples (stride k); an empty row is
		// either.
		r = &tableReader{exact: c.opt.Exact}
		t.Rows = make([][]uint64, 0, items.Len())
		tuples, wordsAt := -1, -1 // the first row of each kind
		for i := 0; i < items.Len(); i++ {
			row, stride, err := c.tableRow(r, fmt.Sprintf("%s[%d]", name, i), items.Index(i))
			if err != nil {
				return -1, true, err
			}
			switch {
			case stride > 0 && sh.stride == 0:
				sh.stride, tuples = stride, i
				// reserve counted a word per tuple.
				if c.opt.Reserve != nil && stride > 1 {
					if err := c.opt.Reserve(8 * int64(stride-1) * int64(c.tupleCount(items))); err != nil {
						return -1, true, err
					}
				}
			case stride > 0 && stride != sh.stride:
				return -1, true, fmt.Errorf("%s[%d] holds tuples of %d values and %s[%d] of %d; a table's tuples hold one number of values", name, tuples, sh.stride, name, i, stride)
			case stride == 0 && len(row) > 0 && wordsAt < 0:
				wordsAt = i
			}
			if sh.stride > 0 && wordsAt >= 0 {
				return -1, true, fmt.Errorf("%s[%d] holds tuples and %s[%d] words; a table's rows hold one kind of value", name, tuples, name, wordsAt)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	bias, err := r.bias(name)
	if err != nil {
		return -1, true, err
	}
	if bias != 0 {
		sh.bias = bias
		for _, row := range t.Rows {
			for j := range row {
				row[j] += bias // two's complement: x + bias for negative x too
			}
		}
	}
	t2, ok, err := c.addTable(t)
	if err == nil && sh != (tableShape{}) {
		if c.shapes == nil {
			c.shapes = map[int]tableShape{}
		}
		c.shapes[t2] = sh
	}
	return t2, ok, err
}

// tupleCount returns the elements of the rows of items, at most
// maxTableWords (past which addTable refuses the table anyway).
func (c *compiler) tupleCount(items starlark.Indexable) int {
	n := 0
	for i := 0; i < items.Len() && n <= maxTableWords; i++ {
		if r, ok := ListOrTuple(items.Index(i)); ok {
			n += r.Len()
		}
	}
	return n
}

// tableRow reads a row of a table: a word array, a list or tuple of words,
// or a list or tuple of tuples (or lists) of stride words each, kept one
// after the other.
func (c *compiler) tableRow(r *tableReader, name string, v starlark.Value) (row []uint64, stride int, err error) {
	if ws, ok := c.opt.Words(v); ok {
		for _, w := range ws {
			r.top = max(r.top, w)
		}
		return append([]uint64(nil), ws...), 0, nil
	}
	items, ok := ListOrTuple(v)
	if !ok {
		return nil, 0, fmt.Errorf("%s is a %s; a table holds words, or rows of words", name, v.Type())
	}
	row = make([]uint64, 0, items.Len())
	for j := 0; j < items.Len(); j++ {
		if j%copyPoll == copyPoll-1 {
			if err := c.stopCopy(); err != nil {
				return nil, 0, err
			}
		}
		x := items.Index(j)
		w, isInt, err := r.word(elem(name, j), x)
		if err != nil {
			return nil, 0, err
		}
		if isInt {
			if stride > 0 {
				return nil, 0, fmt.Errorf("%s is an int and %s[0] a tuple; a row holds words, or tuples of words", elem(name, j)(), name)
			}
			row = append(row, w)
			continue
		}
		tuple, ok := ListOrTuple(x)
		if !ok {
			return nil, 0, fmt.Errorf("%s is a %s; a table holds words", elem(name, j)(), x.Type())
		}
		if j > 0 && stride == 0 {
			return nil, 0, fmt.Errorf("%s is a %s and %s[0] an int; a row holds words, or tuples of words", elem(name, j)(), x.Type(), name)
		}
		if tuple.Len() == 0 {
			return nil, 0, fmt.Errorf("%s is an empty %s; a table's tuples hold words", elem(name, j)(), x.Type())
		}
		if j > 0 && tuple.Len() != stride {
			return nil, 0, fmt.Errorf("%s holds %d values and %s[0] %d; a table's tuples hold one number of values", elem(name, j)(), tuple.Len(), name, stride)
		}
		stride = tuple.Len()
		for m := 0; m < stride; m++ {
			y := tuple.Index(m)
			w, isInt, err := r.word(func() string { return fmt.Sprintf("%s[%d][%d]", name, j, m) }, y)
			if err != nil {
				return nil, 0, err
			}
			if !isInt {
				return nil, 0, fmt.Errorf("%s[%d] is a %s; a table's tuples hold words", elem(name, j)(), m, y.Type())
			}
			row = append(row, w)
		}
	}
	return row, stride, nil
}

// forTable compiles a for loop over a table's elements: for x in T (a
// table of words), for a, b in T (a table of rows of two words each), for
// x in T[i] or row (a row of words) and for a, b in T[i] or row (a row of
// pairs): a counted loop over the elements, each name assigned its word
// (biased where the table is) at the start of each iteration. It reports
// false where s.X is no table or row.
func (c *compiler) forTable(s *syntax.ForStmt) (bool, error) {
	var names []*syntax.Ident
	unpack := true
	switch v := unparen(s.Vars).(type) {
	case *syntax.Ident:
		names, unpack = []*syntax.Ident{v}, false
	case *syntax.TupleExpr, *syntax.ListExpr:
		l, _ := exprList(v)
		for _, x := range l {
			id, ok := x.(*syntax.Ident)
			if !ok {
				return false, nil
			}
			names = append(names, id)
		}
	default:
		return false, nil
	}
	t, row, rowIx, name, err := c.iterTable(s.X)
	if err != nil || t < 0 {
		return t >= 0, err
	}
	tb, sh := &c.f.Tables[t], c.shapeOf(t)
	if row == nil && tb.Flat && !unpack && c.opt.Exact && c.tableLists[t] != nil {
		// A loop over a module's list of ints: an array of the code's
		// (loopedTable), which the list may also be written through.
		return false, nil
	}
	at := pos(s.X)
	if len(names) == 0 {
		return true, errAt(at, "a loop over %s unpacks at least one name", name)
	}
	// step: the words of each element in its row (a tuple's in a strided
	// row; 1 otherwise: a word, or a row of the table, which is one step).
	step := 1
	switch {
	case row == nil && tb.Flat && unpack:
		return true, errAt(at, "the elements of %s are words; a loop over them takes one name", name)
	case row == nil && tb.Flat:
	case row == nil:
		// The rows are the elements: each must be a tuple of the names'
		// number of words.
		if !unpack {
			return true, errAt(at, "the elements of %s are rows; unpack them (for a, b in %s) or index them", name, name)
		}
		for i, r := range tb.Rows {
			if len(r) != len(names) {
				return true, errAt(at, "%s[%d] holds %d values; the loop unpacks %d", name, i, len(r), len(names))
			}
		}
	case sh.stride > 0:
		if !unpack {
			return true, errAt(at, "the elements of %s are tuples of %d values; unpack them (for a, b in %s)", name, sh.stride, name)
		}
		if sh.stride != len(names) {
			return true, errAt(at, "the elements of %s are tuples of %d values; the loop unpacks %d", name, sh.stride, len(names))
		}
		step = sh.stride
	case unpack:
		return true, errAt(at, "the elements of %s are words; a loop over them takes one name", name)
	}
	// The loop: over the elements' first words, in steps of step.
	var n *fuse.Expr
	switch {
	case row == nil && tb.Flat:
		n = constExpr(uint64(len(tb.Rows[0])))
	case row == nil:
		n = constExpr(uint64(len(tb.Rows)))
	default:
		rv := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: rv, X: row})
		row = varExpr(rv)
		chk := -1
		if rowIx {
			chk = c.check(fuse.CheckIndex, 0, at, "index out of range of the table %s", tb.Name)
		}
		lv := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: lv, X: &fuse.Expr{Op: fuse.OpRowLen, Imm: uint64(t), Args: []*fuse.Expr{row}, Check: chk}})
		n = varExpr(lv)
	}
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: n, Z: constExpr(uint64(step)),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero")}
	elem := func(m int) *fuse.Expr {
		chk := c.check(fuse.CheckIndex, 0, at, "index out of range of the table %s", tb.Name)
		switch {
		case row == nil && tb.Flat:
			return c.tableRead(t, &fuse.Expr{Op: fuse.OpLoad, Imm: uint64(t), Args: []*fuse.Expr{varExpr(i)}, Check: chk})
		case row == nil:
			return c.tableRead(t, &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(t), Args: []*fuse.Expr{varExpr(i), constExpr(uint64(m))}, Check: chk})
		}
		j := varExpr(i)
		if m > 0 {
			// i + m is below the row's length: exact by construction.
			j = &fuse.Expr{Op: fuse.OpAdd, Args: []*fuse.Expr{j, constExpr(uint64(m))}, Check: -1}
			c.madeExact[j] = true
		}
		return c.tableRead(t, &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(t), Args: []*fuse.Expr{row, j}, Check: chk})
	}
	head, err := c.nested(func() error {
		for m, id := range names {
			if err := c.assignVar(id, elem(m)); err != nil {
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

// iterTable returns the table a for loop's x iterates over, with the row
// (nil: the table itself) and whether that row is an index to check (T[i],
// not a row a name holds), and a name for messages; t < 0 where x is no
// table or row.
func (c *compiler) iterTable(x syntax.Expr) (t int, row *fuse.Expr, rowIx bool, name string, err error) {
	switch x := unparen(x).(type) {
	case *syntax.Ident:
		if b, ok := c.scope.names[x.Name]; ok {
			if b.kind != bRow {
				return -1, nil, false, "", nil
			}
			return b.table, varExpr(b.id), false, x.Name, nil
		}
		t, err := c.lookupTable(x)
		return t, nil, false, x.Name, err
	case *syntax.IndexExpr:
		id, ok := unparen(x.X).(*syntax.Ident)
		if !ok {
			return -1, nil, false, "", nil
		}
		t, err := c.lookupTable(id)
		if err != nil || t < 0 {
			return -1, nil, false, "", err
		}
		if c.f.Tables[t].Flat {
			return -1, nil, false, "", errAt(x.Lbrack, "%s[i] is a word of the table %s; a for loop runs over a table or a row", id.Name, id.Name)
		}
		i, err := c.word(x.Y)
		if err != nil {
			return -1, nil, false, "", err
		}
		return t, i, true, id.Name + "[i]", nil
	}
	return -1, nil, false, "", nil
}

// tuplesOf is the number of elements of a row of table t whose length in
// words is n: n itself, or n over the stride of a table of tuples.
func (c *compiler) tuplesOf(t int, n *fuse.Expr) *fuse.Expr {
	k := c.shapeOf(t).stride
	if k <= 1 {
		return n
	}
	return c.mk(fuse.OpDiv, n, constExpr(uint64(k)))
}

// overTable reports whether s may be a for loop over a table that
// forTable compiles: one that unpacks its elements into names (for a, b in
// X), other than enumerate's, or one over a free name or a row of one (for
// d in T, for x in T[i]); locals are the function's local names.
func overTable(s *syntax.ForStmt, locals map[string]bool) bool {
	if _, ok := unparen(s.Vars).(*syntax.Ident); !ok {
		call, ok := unparen(s.X).(*syntax.CallExpr)
		if !ok {
			return true
		}
		name, ok := callee(call)
		return !ok || name != "enumerate"
	}
	x := unparen(s.X)
	if ix, ok := x.(*syntax.IndexExpr); ok {
		x = unparen(ix.X)
	}
	id, ok := x.(*syntax.Ident)
	return ok && !locals[id.Name]
}
