package compile

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Module state: the lists of a module that a function run as machine code
// (Options.Exact) writes, by index (state[1] += 1) or by append
// (found.append(x)). A list the function only reads is a table (its words
// copied into the code); one it writes is an implicit array parameter
// instead, as a list passed as an argument is: the caller fills it before
// each run and writes back what changed after it (Options.Globals). So is
// a list it reads that a table cannot be: one holding a negative int (a
// sentinel -1), one it loops over.

// A Global is a module-level list that a function compiled with
// Options.Exact takes as an array, given to the compiler in
// Options.Globals after it reported the list (GlobalArray). Its free name Name, wherever it
// resolves to List (in the function and in its helpers), stands for one
// array parameter of the Func, after the parameters' lists
// (fuse.Func.Arrays): Globals[i] is array parameter NumLists + i, where
// NumLists counts the parameters that are lists. A Proc takes those of
// the Globals that it or a helper it calls names, after its own array
// parameters, so that helpers and recursive calls work on the same words.
type Global struct {
	Name string
	List *starlark.List
	// Len and Bias are the array's, as Options.Lists and ListBias give a
	// list parameter's: the list's length, and its least int negated (0
	// for words).
	Len  int
	Bias uint64
	// Hash, where not nil, is a module's set or dict (a *starlark.Set or
	// *starlark.Dict; List is nil then) that the function reads or
	// writes: HashArrays(dict) array parameters, a table as hashes.go
	// lays it out, filled before each run and read back after it (Len and
	// Bias are 0).
	Hash starlark.Value
	// Log says that the function only appends to the list (name.append(x)),
	// and never reads it: the array is an append log of 1 + LogCap words,
	// word 0 the count of values appended by the run (0 when it starts),
	// words 1 to count the values, in order. An append past LogCap fails
	// the run.
	Log bool
}

// LogCap is the most values a run appends to a module's list it only
// appends to (a Global's Log), and LogLen the length of the log's array.
const (
	LogCap = 1 << 10
	LogLen = 1 + LogCap
)

// A GlobalArray is the error of a function compiled with Options.Exact
// that needs as an array a module-level list that Options.Globals does
// not list: it writes it (List[i] = x, an update such as List[i] += x;
// List.append(x) where Append is set), or reads it where a table cannot
// be read (Read set): Source.Free refused it as a table (Refused.Value),
// which an array may hold where its ints are all in [-2^63, 2^64) (a
// sentinel -1), or it loops over it (for x in List). The caller may
// compile the function again with the list in Options.Globals.
type GlobalArray struct {
	Err    *Error // the message where the caller does not compile again
	Name   string
	List   *starlark.List
	Hash   starlark.Value // a module's set or dict instead (List nil)
	Append bool
	// Read says that the function was found reading the list (a sentinel,
	// a loop), not writing it.
	Read bool
}

// bLog is the binding of a Global that is a Log (Global.Log): the unit's
// array id, to which the name may only append.
const bLog = bRow + 1

// globalArrayOf returns the GlobalArray of a write to the free name id
// (append: by name.append) where it is a module-level list and the
// compilation is exact, else err.
func (c *compiler) globalArrayOf(id *syntax.Ident, append bool, err error) error {
	if !c.opt.Exact {
		return err
	}
	name, l, ok := c.freeList(c.scope, id)
	if !ok {
		return err
	}
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Pos: id.NamePos, Msg: err.Error()}
	}
	return &GlobalArray{Err: e, Name: name, List: l, Append: append}
}

func (g *GlobalArray) Error() string { return g.Err.Error() }

// Unwrap returns the Error at the position where the list was found.
func (g *GlobalArray) Unwrap() error { return g.Err }

// freeList returns the module-level list a name of the scope reads, and
// the free name it has where it was read: the name itself, where it is
// free, or, for a helper's parameter bound to a table read from such a
// list, the name the table was read by.
func (c *compiler) freeList(sc *scope, id *syntax.Ident) (string, *starlark.List, bool) {
	if t, ok := sc.tables[id.Name]; ok {
		l, ok := c.tableLists[t]
		return c.f.Tables[t].Name, l, ok
	}
	if _, ok := sc.names[id.Name]; ok || sc.locals[id.Name] || sc.src.Free == nil {
		return "", nil, false
	}
	v, ok := sc.src.Free(id.Name)
	if r, refused := v.(Refused); ok && refused {
		v = r.Value
	}
	l, ok := v.(*starlark.List)
	return id.Name, l, ok
}

// bindGlobals binds, in sc, the free names of sc's body that name a list
// of Options.Globals to its array in the unit being compiled: the unit's
// array parameter garr[i] for Globals[i]. A Log's name may only be
// appended to.
func (c *compiler) bindGlobals(sc *scope, garr []int) error {
	if !c.opt.Exact || sc.src.Free == nil {
		return nil
	}
	want := map[string]bool{}
	for _, g := range c.opt.Globals {
		if _, bound := sc.names[g.Name]; !bound && !sc.locals[g.Name] {
			want[g.Name] = true
		}
	}
	uses := map[string][]*syntax.Ident{} // the uses of each name but appends
	appends := map[*syntax.Ident]bool{}
	var writes []*syntax.Ident // the free names written, in order
	written := func(x syntax.Expr) {
		if id, ok := unparen(x).(*syntax.Ident); ok && !want[id.Name] && !sc.locals[id.Name] {
			if _, bound := sc.names[id.Name]; !bound {
				writes = append(writes, id)
			}
		}
	}
	for _, s := range sc.src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				if ix, ok := unparen(n.LHS).(*syntax.IndexExpr); ok {
					written(ix.X)
				}
			case *syntax.CallExpr:
				if dot, ok := n.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "append" {
					if id, ok := dot.X.(*syntax.Ident); ok {
						appends[id] = true
						written(id)
					}
				}
			case *syntax.Ident:
				if want[n.Name] {
					if _, seen := uses[n.Name]; !seen {
						uses[n.Name] = nil
					}
					if !appends[n] {
						uses[n.Name] = append(uses[n.Name], n)
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			return true
		})
	}
	// A module's list written here, which Globals do not hold yet, is
	// reported before any read of it finds it a table (or refuses it:
	// a list with a sentinel -1).
	for _, id := range writes {
		if name, l, ok := c.freeList(sc, id); ok {
			return &GlobalArray{Err: &Error{Pos: id.NamePos, Msg: fmt.Sprintf("%s is a module's list the function writes", id.Name)},
				Name: name, List: l, Append: appends[id]}
		}
	}
	for name, ids := range uses {
		v, ok := sc.src.Free(name)
		if !ok {
			continue
		}
		for i, g := range c.opt.Globals {
			if g.Name != name || v != g.value() {
				continue
			}
			if garr[i] < 0 {
				// (reachedGlobals gave up: too many helpers)
				return errAt(ids[0].NamePos, "%s is a module's list that a helper of too many helpers names", name)
			}
			if g.Hash != nil {
				sc.names[name] = binding{kind: bHash, id: c.globalHash(g, garr[i])}
				continue
			}
			kind := bScratch
			if g.Log {
				if len(ids) > 0 {
					return errAt(ids[0].NamePos, "%s", logOnly(name))
				}
				kind = bLog
			}
			sc.names[name] = binding{kind: kind, id: garr[i]}
		}
	}
	return nil
}

// globalParams adds to the unit u the array parameters of the Globals
// listed (their indexes) and returns where each of the Globals is among
// u's arrays (-1: not listed).
func (c *compiler) globalParams(u *fuse.Proc, listed []int) ([]int, error) {
	garr := make([]int, len(c.opt.Globals))
	for i := range garr {
		garr[i] = -1
	}
	// The lists' arrays first, then the sets' and dicts': a function's
	// arrays are its parameters' lists, the module's lists, then its
	// tables (the bindings count on it).
	var lists, hashes []int
	for _, i := range listed {
		if c.opt.Globals[i].Hash != nil {
			hashes = append(hashes, i)
		} else {
			lists = append(lists, i)
		}
	}
	for _, i := range lists {
		g := c.opt.Globals[i]
		s := fuse.Scratch{Name: g.Name, Len: g.Len, Init: g.Bias, Bias: g.Bias}
		if g.Log {
			s = fuse.Scratch{Name: g.Name + " (appended)", Len: LogLen}
		}
		if s.Len > MaxScratch {
			return nil, fmt.Errorf("%s is a list of %d elements; a list a function run as machine code writes has at most %d", g.Name, s.Len, MaxScratch)
		}
		u.Scratch = append(u.Scratch, s)
		garr[i] = u.Arrays
		u.Arrays++
	}
	for _, i := range hashes {
		g := c.opt.Globals[i]
		garr[i] = u.Arrays
		for _, s := range HashScratch(g.Name, IsDict(g.Hash)) {
			u.Scratch = append(u.Scratch, s)
			u.Arrays++
		}
	}
	return garr, nil
}

// reachedGlobals returns the indexes of the Globals that the helper key,
// whose source is src, or a helper it calls (and so on) names: those a
// Proc of it takes. Where it reaches too many helpers, it returns them
// all.
func (c *compiler) reachedGlobals(key any, src *Source) []int {
	if len(c.opt.Globals) == 0 {
		return nil
	}
	if gs, ok := c.usesGlobals[key]; ok {
		return gs
	}
	used := make([]bool, len(c.opt.Globals))
	seen := map[any]bool{key: true}
	queue := []*Source{src}
	all := false
	for len(queue) > 0 && !all {
		s := queue[0]
		queue = queue[1:]
		c.namedGlobals(s, used)
		c.callsOf(s, func(h helperOf, _ bool) {
			if seen[h.key()] {
				return
			}
			seen[h.key()] = true
			hs, err := h.source()
			if err != nil || len(seen) > 256 {
				all = true // (its compilation fails, or takes them all)
				return
			}
			queue = append(queue, hs)
		})
	}
	var gs []int
	for i, u := range used {
		if u || all {
			gs = append(gs, i)
		}
	}
	c.usesGlobals[key] = gs
	return gs
}

// namedGlobals marks in used the Globals whose names src's body holds,
// where src.Free resolves them to their lists.
func (c *compiler) namedGlobals(src *Source, used []bool) {
	if src.Free == nil {
		return
	}
	names := map[string]bool{}
	for _, g := range c.opt.Globals {
		names[g.Name] = false
	}
	for _, st := range src.Body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if id, ok := n.(*syntax.Ident); ok {
				if _, ok := names[id.Name]; ok {
					names[id.Name] = true
				}
			}
			return true
		})
	}
	for name, named := range names {
		if !named {
			continue
		}
		v, ok := src.Free(name)
		if !ok {
			continue
		}
		for i, g := range c.opt.Globals {
			if g.Name == name && v == g.value() {
				used[i] = true
			}
		}
	}
}

// globalArgs returns the array arguments that pass the unit's Globals
// listed (their indexes) to the Proc called by e, or an error where a
// loop over one of them is running: the Proc may write it (an error in
// Starlark).
func (c *compiler) globalArgs(e *syntax.CallExpr, listed []int) ([]*fuse.Expr, error) {
	var xs []*fuse.Expr
	// In the order globalParams gives the Proc's arrays: lists first.
	var hashes []int
	for _, i := range listed {
		g, a := c.opt.Globals[i], c.garr[i]
		if a < 0 {
			return nil, errAt(pos(e.Fn), "%s is a module's list that a helper of too many helpers names", g.Name)
		}
		if g.Hash != nil {
			hashes = append(hashes, i)
			continue
		}
		if c.iterating[arrayOf{c.proc, a}] {
			return nil, errAt(pos(e.Fn), "a loop over %s is running; a function run as machine code does not call a helper that recurses there", g.Name)
		}
		xs = append(xs, &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a), Check: -1})
	}
	for _, i := range hashes {
		g, a := c.opt.Globals[i], c.garr[i]
		if h, ok := c.globalHashes[arrayOf{c.proc, a}]; ok && c.hashes[h].iter > 0 {
			return nil, errAt(pos(e.Fn), "a loop over %s is running; a function run as machine code does not call a helper that recurses there", g.Name)
		}
		for k := range HashArrays(IsDict(g.Hash)) {
			xs = append(xs, &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a + k), Check: -1})
		}
	}
	return xs, nil
}

// loopedTable is the error of a for loop over the table id: a GlobalArray
// where the table is a module's list and the compilation exact (an array
// may be looped over), else err.
func (c *compiler) loopedTable(id *syntax.Ident, err error) error {
	if !c.opt.Exact {
		return err
	}
	name, l, ok := c.freeList(c.scope, id)
	if !ok {
		return err
	}
	return &GlobalArray{Err: err.(*Error), Name: name, List: l, Read: true}
}

// logAppend compiles name.append(x) for a Global that is a Log: the count
// in word 0, the value after the values appended before.
func (c *compiler) logAppend(id *syntax.Ident, b binding, call *syntax.CallExpr) error {
	if len(call.Args) != 1 {
		return errAt(call.Lparen, "%s.append takes one argument", id.Name)
	}
	if kv, ok := call.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return errAt(pos(kv), "%s.append: keyword arguments are not allowed", id.Name)
	}
	x, err := c.word(call.Args[0])
	if err != nil {
		return err
	}
	xv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: xv, X: x})
	n := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{constExpr(0)},
		Check: c.check(fuse.CheckIndex, 0, call.Lparen, "index out of range")}})
	next := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: next, X: c.mk(fuse.OpAdd, varExpr(n), constExpr(1))})
	chk := c.check(fuse.CheckIndex, 0, call.Lparen, "%s.append: a run as machine code appends at most %d values to a module's list", id.Name, LogCap)
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: varExpr(next), Y: varExpr(xv), Check: chk})
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: constExpr(0), Y: varExpr(next), Check: -1})
	return nil
}

// logOnly is the message of a use of a Log's name other than an append.
func logOnly(name string) string {
	return fmt.Sprintf("%s is a module's list the function appends to; a function run as machine code may only append to it (%s.append(x)), not read it", name, name)
}

// refusedList is the error of a read of the free name id, which Free
// refused (r): a GlobalArray where the value refused is a list and the
// compilation exact (an array may hold it), else r's reason.
func (c *compiler) refusedList(id *syntax.Ident, r Refused) error {
	err := errAt(id.NamePos, "%s %s", id.Name, r.Reason)
	if l, ok := r.Value.(*starlark.List); ok && c.opt.Exact {
		return &GlobalArray{Err: err.(*Error), Name: id.Name, List: l, Read: true}
	}
	return err
}
