package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// This file compiles what natural code does with a list of ints built by
// append (growAssign): xs.pop(), xs.pop(i), xs.insert(i, x), x in xs,
// sum, min, max, any and all of a list or of a list comprehension, a
// loop over reversed(xs), and name = [expr for v in ... if cond], each as
// a loop over the list's words with Starlark's answer or a failure (an
// empty list popped, an empty sequence's min) that sends the call back to
// the interpreter.

// listNamed returns the binding of e where e names a list the unit builds
// by append (a scratch array with a length variable).
func (c *compiler) listNamed(e syntax.Expr) (binding, *syntax.Ident, bool) {
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return binding{}, nil, false
	}
	b, ok := c.scope.names[id.Name]
	if !ok || b.kind != bScratch || b.count == 0 {
		return binding{}, nil, false
	}
	return b, id, true
}

// listIndexArg compiles the index argument of pop or insert: a word i,
// or a negative constant -k, which counts from the end (n - k).
func (c *compiler) listIndexArg(e syntax.Expr) (x *fuse.Expr, fromEnd uint64, err error) {
	x, err = c.word(e)
	if err != nil {
		return nil, 0, err
	}
	if k, ok := negConstant(x); ok {
		return nil, k, nil
	}
	return x, 0, nil
}

// scratchNamed returns the binding of e where e names a scratch array of
// the unit (a list it builds by append, one of a fixed length, or one
// passed), and its length.
func (c *compiler) scratchNamed(e syntax.Expr) (binding, *syntax.Ident, *fuse.Expr, bool) {
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return binding{}, nil, nil, false
	}
	b, ok := c.scope.names[id.Name]
	if !ok || b.kind != bScratch {
		return binding{}, nil, nil, false
	}
	if b.count != 0 {
		return b, id, varExpr(b.count - 1), true
	}
	return b, id, constExpr(uint64(c.proc.Scratch[b.id].Len)), true
}

// listMethod compiles xs.pop(), xs.pop(i) and xs.insert(i, x) of a list
// built by append; it reports false where dot names no such list.
func (c *compiler) listMethod(e *syntax.CallExpr, dot *syntax.DotExpr) (*fuse.Expr, bool, error) {
	if !c.opt.Exact {
		return nil, false, nil
	}
	if tl, id, ok := c.tupleListNamed(dot.X); ok && dot.Name.Name == "pop" {
		// q.pop() as a statement: the tuple dropped.
		if !c.discarded[e] {
			return nil, true, errAt(pos(e.Fn), "%s.pop() gives a tuple; a fused function unpacks it (a, b = %s.pop())", id.Name, id.Name)
		}
		_, _, err := c.tupleListRead(e, len(tl.parts))
		return constExpr(0), true, err
	}
	b, id, ok := c.listNamed(dot.X)
	if !ok {
		return nil, false, nil
	}
	name := dot.Name.Name
	if name != "pop" && name != "insert" && name != "remove" && name != "extend" && name != "clear" {
		return nil, false, nil
	}
	for _, a := range e.Args {
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			return nil, true, errAt(pos(kv), "%s.%s: keyword arguments are not allowed", id.Name, name)
		}
	}
	if c.iterating[arrayOf{c.proc, b.id}] {
		return nil, true, errAt(e.Lparen, "%s.%s while a loop iterates over %s (an error in Starlark)", id.Name, name, id.Name)
	}
	arr := c.proc.Scratch[b.id]
	n := varExpr(b.count - 1)
	switch {
	case name == "pop" && len(e.Args) <= 1:
		// i: the index popped, or arr.Len (out of range) where it is
		// not below n.
		i := c.newVar()
		switch {
		case len(e.Args) == 0:
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
				mk(fuse.OpNe, n, constExpr(0)), c.exactExpr(mk(fuse.OpSub, n, constExpr(1))), constExpr(uint64(arr.Len))}}})
		default:
			x, k, err := c.listIndexArg(e.Args[0])
			if err != nil {
				return nil, true, err
			}
			if x == nil {
				c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
					mk(fuse.OpGe, n, constExpr(k)), c.exactExpr(mk(fuse.OpSub, n, constExpr(k))), constExpr(uint64(arr.Len))}}})
			} else {
				c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: x})
				c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
					mk(fuse.OpLt, varExpr(i), n), varExpr(i), constExpr(uint64(arr.Len))}}})
			}
		}
		msg := "pop: index out of range"
		if len(e.Args) == 0 {
			msg = "pop: empty list"
		}
		raw := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: raw, X: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id),
			Args: []*fuse.Expr{varExpr(i)}, Check: c.check(fuse.CheckIndex, 0, e.Lparen, "%s.%s", id.Name, msg)}})
		if len(e.Args) != 0 {
			c.removeAt(id, b, varExpr(i), e.Lparen)
		} else {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: c.exactExpr(mk(fuse.OpSub, n, constExpr(1)))})
		}
		// The word read, as the array's int (its bias taken off).
		return c.biasedRead(varExpr(raw), arr.Bias), true, nil
	case name == "clear" && len(e.Args) == 0 || name == "remove" && len(e.Args) == 1 || name == "extend" && len(e.Args) == 1:
		if !c.discarded[e] {
			return nil, true, errAt(pos(e.Fn), "%s.%s returns None, which is not a word: call it as a statement", id.Name, name)
		}
		switch name {
		case "clear":
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: constExpr(0)})
		case "remove":
			// xs.pop(xs.index(v)), with remove's error where v is missing.
			i, _, err := c.listSearch(&syntax.CallExpr{Fn: &syntax.DotExpr{X: id, Name: &syntax.Ident{NamePos: dot.NamePos, Name: "remove"}},
				Lparen: e.Lparen, Args: e.Args, Rparen: e.Rparen}, &syntax.DotExpr{X: id, Name: &syntax.Ident{NamePos: dot.NamePos, Name: "index"}})
			if err != nil {
				return nil, true, err
			}
			iv := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: iv, X: i})
			c.removeAt(id, b, varExpr(iv), e.Lparen)
		case "extend":
			src := e.Args[0]
			if r, ok := unparen(src).(*syntax.Ident); ok && r.Name == id.Name {
				// xs.extend(xs): the elements it held, xs[:].
				src = &syntax.SliceExpr{X: r, Lbrack: e.Lparen, Rbrack: e.Rparen}
			}
			ok, err := c.eachElement(src, func(x *fuse.Expr) error { return c.appendWord(id, b, x, e.Lparen) })
			if err != nil {
				return nil, true, err
			}
			if !ok {
				return nil, true, errAt(pos(e.Args[0]), "%s.extend of %s is not allowed in a function run as machine code (a list, a list comprehension, a slice)", id.Name, describe(e.Args[0]))
			}
		}
		return constExpr(0), true, nil
	case name == "insert" && len(e.Args) == 2:
		x, k, err := c.listIndexArg(e.Args[0])
		if err != nil {
			return nil, true, err
		}
		v, err := c.word(e.Args[1])
		if err != nil {
			return nil, true, err
		}
		// Starlark's index: -k counts from the end, and the index is
		// clamped to [0, n].
		i := c.newVar()
		if x == nil {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
				mk(fuse.OpGe, n, constExpr(k)), c.exactExpr(mk(fuse.OpSub, n, constExpr(k))), constExpr(0)}}})
		} else {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: x})
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: i, X: mk(fuse.OpMin, varExpr(i), n)})
		}
		val := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: val, X: c.biasedTo(v, arr.Bias)})
		// Room for one more: the store at n fails past the capacity.
		full := c.check(fuse.CheckIndex, 0, e.Lparen, "%s.insert: a list built by append holds at most %d elements in a fused function", id.Name, arr.Len)
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: n, Y: constExpr(0), Check: full})
		// The elements from i up move up one, the last first: for t in
		// range(n - i), xs[n - t] = xs[n - t - 1].
		t := c.newVar()
		to := c.exactExpr(mk(fuse.OpSub, n, varExpr(t)))
		from := c.exactExpr(mk(fuse.OpSub, c.exactExpr(mk(fuse.OpSub, n, varExpr(t))), constExpr(1)))
		c.emit(fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: t, X: constExpr(0),
			Y: c.exactExpr(mk(fuse.OpSub, n, varExpr(i))), Z: constExpr(1), Check: c.check(fuse.CheckNonZero, 0, e.Lparen, "range: step argument must not be zero"),
			Body: []fuse.Stmt{{Kind: fuse.SStore, Arr: b.id, X: to, Check: c.check(fuse.CheckIndex, 0, e.Lparen, "index out of range"),
				Y: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{from}, Check: c.check(fuse.CheckIndex, 0, e.Lparen, "index out of range")}}}})
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: varExpr(i), Y: varExpr(val), Check: c.check(fuse.CheckIndex, 0, e.Lparen, "index out of range")})
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: c.exactExpr(mk(fuse.OpAdd, n, constExpr(1)))})
		if !c.discarded[e] {
			return nil, true, errAt(pos(e.Fn), "%s.insert returns None, which is not a word: call it as a statement", id.Name)
		}
		return constExpr(0), true, nil
	}
	return nil, false, nil
}

// eachElement compiles a loop over the elements of x, a list the unit
// builds by append or a list comprehension ([e for v in ... if cond]),
// calling each with the element's word inside the loop's body; it reports
// false where x is neither. A comprehension's names are its own: a local
// of the same name keeps its value.
func (c *compiler) eachElement(x syntax.Expr, each func(elem *fuse.Expr) error) (bool, error) {
	switch x := unparen(x).(type) {
	case *syntax.CallExpr:
		// d.values(), d.keys() of a set or dict: the loop forHash runs.
		dot, ok := x.Fn.(*syntax.DotExpr)
		if !ok || len(x.Args) != 0 || dot.Name.Name != "values" && dot.Name.Name != "keys" {
			return false, nil
		}
		if h, _, err := c.hashNamed(dot.X); h == nil || err != nil || !h.dict {
			return err != nil, err
		}
		v := &syntax.Ident{NamePos: x.Lparen, Name: " element"}
		comp := &syntax.Comprehension{Lbrack: x.Lparen, Body: v, Rbrack: x.Rparen,
			Clauses: []syntax.Node{&syntax.ForClause{For: x.Lparen, Vars: v, In: x.Lparen, X: x}}}
		return true, c.comprehension(comp, each)
	case *syntax.Ident:
		if _, _, _, ok := c.scratchNamed(x); !ok {
			if h, _, err := c.hashNamed(x); h == nil || err != nil {
				return err != nil, err
			}
		}
		v := &syntax.Ident{NamePos: x.NamePos, Name: " element"}
		comp := &syntax.Comprehension{Lbrack: x.NamePos, Body: v, Rbrack: x.NamePos,
			Clauses: []syntax.Node{&syntax.ForClause{For: x.NamePos, Vars: v, In: x.NamePos, X: x}}}
		return true, c.comprehension(comp, each)
	case *syntax.Comprehension:
		if x.Curly {
			return false, nil
		}
		return true, c.comprehension(x, each)
	case *syntax.SliceExpr:
		return c.eachOfSlice(x, each) // slices.go
	case *syntax.ListExpr, *syntax.TupleExpr:
		// Every value first, in order, as Starlark builds the list.
		elems, _ := exprList(x)
		vals := make([]*fuse.Expr, len(elems))
		for i, el := range elems {
			v, err := c.word(el)
			if err != nil {
				return true, err
			}
			if _, neg := negConstant(v); v.Op != fuse.OpConst && !neg {
				t := c.newVar()
				if k := c.biased[v]; k != 0 {
					c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: v.Args[0]})
					v = c.biasedRead(varExpr(t), k)
				} else {
					c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: v})
					v = varExpr(t)
				}
			}
			vals[i] = v
		}
		for _, v := range vals {
			if err := each(v); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	return false, nil
}

// comprehension compiles the loops and conditions of comp, with each
// called on its body's word in the innermost.
func (c *compiler) comprehension(comp *syntax.Comprehension, each func(elem *fuse.Expr) error) error {
	return c.comprehensionOf(comp, func() error {
		x, err := c.word(comp.Body)
		if err != nil {
			return err
		}
		return each(x)
	})
}

// comprehensionOf is comprehension with the innermost body compiled by
// inner (a tuple's words: tupleListAssign).
func (c *compiler) comprehensionOf(comp *syntax.Comprehension, inner func() error) error {
	// The names the clauses bind are the comprehension's own: each
	// clause's loop binds a fresh one (unhide), the function's is back
	// after the comprehension. The first clause's iterable reads the
	// function's names; a later clause may not read one of its own names
	// before a clause binds it (an error in Starlark).
	saved := map[string]*binding{}
	var order []string
	for i, cl := range comp.Clauses {
		var reads syntax.Node
		switch cl := cl.(type) {
		case *syntax.ForClause:
			reads = cl.X
		case *syntax.IfClause:
			reads = cl.Cond
		}
		if i > 0 {
			var early *syntax.Ident
			syntax.Walk(reads, func(n syntax.Node) bool {
				if id, ok := n.(*syntax.Ident); ok && early == nil {
					if _, own := saved[id.Name]; !own && compBinds(comp.Clauses[i:], id.Name) {
						early = id
					}
				}
				return early == nil
			})
			if early != nil {
				return errAt(early.NamePos, "%s is read before the comprehension assigns it", early.Name)
			}
		}
		if f, ok := cl.(*syntax.ForClause); ok {
			names := map[string]bool{}
			markLocals(names, f.Vars)
			for name := range names {
				if _, done := saved[name]; done {
					continue
				}
				order = append(order, name)
				if b, ok := c.scope.names[name]; ok {
					saved[name] = &b
				} else {
					saved[name] = nil
				}
			}
		}
	}
	if c.hidden == nil {
		c.hidden = map[hiddenName]bool{}
	}
	was := map[string]bool{}
	for _, name := range order {
		was[name] = c.hidden[hiddenName{c.scope, name}]
		c.hidden[hiddenName{c.scope, name}] = true
	}
	defer func() {
		for _, name := range order {
			if b := saved[name]; b != nil {
				c.scope.names[name] = *b
			} else {
				delete(c.scope.names, name)
			}
			if was[name] {
				c.hidden[hiddenName{c.scope, name}] = true
			} else {
				delete(c.hidden, hiddenName{c.scope, name})
			}
		}
	}()
	hook := &syntax.ExprStmt{X: comp.Body}
	if c.hooks == nil {
		c.hooks = map[syntax.Stmt]func() error{}
	}
	c.hooks[hook] = inner
	body := []syntax.Stmt{hook}
	for i := len(comp.Clauses) - 1; i >= 0; i-- {
		switch cl := comp.Clauses[i].(type) {
		case *syntax.ForClause:
			body = []syntax.Stmt{&syntax.ForStmt{For: cl.For, Vars: cl.Vars, X: cl.X, Body: body}}
		case *syntax.IfClause:
			body = []syntax.Stmt{&syntax.IfStmt{If: cl.If, Cond: cl.Cond, True: body}}
		}
	}
	return c.stmts(body)
}

// reduction compiles sum, min, max, any and all of one list built by
// append or list comprehension (sum also with a start word); it reports
// false where the call is none of them.
func (c *compiler) reduction(name string, e *syntax.CallExpr) (*fuse.Expr, bool, error) {
	if len(e.Args) == 0 || len(e.Args) > 2 || len(e.Args) == 2 && name != "sum" || !c.opt.Exact {
		return nil, false, nil
	}
	for _, a := range e.Args {
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			return nil, false, nil
		}
	}
	arg := unparen(e.Args[0])
	switch a := arg.(type) {
	case *syntax.Comprehension, *syntax.ListExpr, *syntax.TupleExpr, *syntax.CallExpr:
	case *syntax.SliceExpr:
		if _, _, _, ok := c.scratchNamed(a.X); !ok || a.Step != nil {
			return nil, false, nil
		}
	default:
		if _, _, _, ok := c.scratchNamed(arg); !ok {
			if h, _, _ := c.hashNamed(arg); h == nil {
				return nil, false, nil
			}
		}
	}
	acc := c.newVar()
	var each func(x *fuse.Expr) error
	switch name {
	case "sum":
		start := constExpr(0)
		if len(e.Args) == 2 {
			var err error
			if start, err = c.word(e.Args[1]); err != nil {
				return nil, true, err
			}
		}
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: acc, X: start})
		each = func(x *fuse.Expr) error {
			s, err := c.arith(syntax.PLUS, e.Lparen, varExpr(acc), x)
			if err != nil {
				return err
			}
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: acc, X: s})
			return nil
		}
	case "min", "max":
		seen := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: seen, X: constExpr(0)})
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: acc, X: constExpr(0)})
		op := fuse.OpMin
		if name == "max" {
			op = fuse.OpMax
		}
		each = func(x *fuse.Expr) error {
			t := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: x})
			c.emit(fuse.Stmt{Kind: fuse.SIf, X: varExpr(seen),
				Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: acc, X: c.mk(op, varExpr(acc), varExpr(t))}},
				Else: []fuse.Stmt{{Kind: fuse.SAssign, Var: acc, X: varExpr(t)}, {Kind: fuse.SAssign, Var: seen, X: constExpr(1)}}})
			return nil
		}
		defer func() {
			c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(seen), constExpr(0)), Body: []fuse.Stmt{
				{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, e.Lparen, "%s: argument is an empty sequence", name)}}})
		}()
	case "any", "all":
		// Every element is computed (a list comprehension is built
		// whole before any or all reads it); the result is a bool.
		all := name == "all"
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: acc, X: boolConst(all)})
		each = func(x *fuse.Expr) error {
			cond := x
			if all {
				cond = mk(fuse.OpLNot, x)
			}
			c.emit(fuse.Stmt{Kind: fuse.SIf, X: cond, Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: acc, X: boolConst(!all)}}})
			return nil
		}
	default:
		return nil, false, nil
	}
	ok, err := c.eachElement(arg, each)
	if !ok && err == nil {
		err = errAt(pos(arg), "%s of %s is not allowed in a function run as machine code (a list, a list comprehension, a set or a dict)", name, describe(arg))
	}
	if err != nil {
		return nil, true, err
	}
	return varExpr(acc), true, nil
}

// boolConst is True or False as Options.Exact's bools are (ident).
func boolConst(v bool) *fuse.Expr {
	k := constExpr(0)
	if v {
		k = constExpr(1)
	}
	return &fuse.Expr{Op: fuse.OpBool, Args: []*fuse.Expr{k}, Check: -1}
}

// listIn compiles x in a (or not in) where a is a list the unit builds by
// append, or a list or tuple of words written out; it reports false where
// a is neither.
func (c *compiler) listIn(x *fuse.Expr, ye syntax.Expr, not bool, at syntax.Position) (*fuse.Expr, bool, error) {
	if !c.opt.Exact {
		return nil, false, nil
	}
	var elems []syntax.Expr
	switch y := unparen(ye).(type) {
	case *syntax.TupleExpr:
		elems = y.List
	case *syntax.ListExpr:
		elems = y.List
	case *syntax.Ident:
		if _, _, _, ok := c.scratchNamed(y); !ok {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	// x once, before the elements; a biased read keeps its bias.
	xv := c.newVar()
	k := c.biased[x]
	if k != 0 {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: xv, X: x.Args[0]})
	} else {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: xv, X: x})
	}
	found := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: found, X: boolConst(false)})
	test := func(elem *fuse.Expr) error {
		eq, err := c.arith(syntax.EQL, at, c.biasedRead(varExpr(xv), k), elem)
		if err != nil {
			return err
		}
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: eq, Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: found, X: boolConst(true)}}})
		return nil
	}
	if elems != nil {
		// Every element first, in order, as Starlark builds the tuple.
		vals := make([]*fuse.Expr, len(elems))
		for i, el := range elems {
			v, err := c.word(el)
			if err != nil {
				return nil, true, err
			}
			if _, neg := negConstant(v); v.Op != fuse.OpConst && !neg {
				t := c.newVar()
				if kv := c.biased[v]; kv != 0 {
					c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: v.Args[0]})
					v = c.biasedRead(varExpr(t), kv)
				} else {
					c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: v})
					v = varExpr(t)
				}
			}
			vals[i] = v
		}
		for _, v := range vals {
			if err := test(v); err != nil {
				return nil, true, err
			}
		}
	} else if _, err := c.eachElement(ye, test); err != nil {
		return nil, true, err
	}
	if not {
		return mk(fuse.OpLNot, varExpr(found)), true, nil
	}
	return varExpr(found), true, nil
}

// forReversed compiles for v in reversed(a) over a scratch array a; it reports false where s is no such loop.
func (c *compiler) forReversed(s *syntax.ForStmt) (bool, error) {
	call, ok := unparen(s.X).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || !c.opt.Exact {
		return false, nil
	}
	if name, ok := callee(call); !ok || name != "reversed" || !c.isBuiltin(name) {
		return false, nil
	}
	b, aid, length, ok := c.scratchNamed(call.Args[0])
	if !ok {
		return false, nil
	}
	id, ok := s.Vars.(*syntax.Ident)
	if !ok {
		return true, errAt(pos(s.Vars), "a for loop over reversed(%s) takes one name in a fused function", aid.Name)
	}
	// The body may not change the list (reversed's copy is not made).
	n := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: length})
	return c.forReversedInPlace(s, b, id, n)
}

// forReversedInPlace is forReversed reading the list's words directly:
// the body may not change the list.
func (c *compiler) forReversedInPlace(s *syntax.ForStmt, b binding, id *syntax.Ident, n int) (bool, error) {
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: varExpr(n), Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, pos(s.X), "range: step argument must not be zero")}
	v, err := c.bindVar(id)
	if err != nil {
		return true, err
	}
	at := c.exactExpr(mk(fuse.OpSub, c.exactExpr(mk(fuse.OpSub, varExpr(n), varExpr(i))), constExpr(1)))
	elem := c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{at},
		Check: c.check(fuse.CheckIndex, 0, pos(s.X), "index out of range")})
	return true, c.loopOver(st, []fuse.Stmt{{Kind: fuse.SAssign, Var: v, X: elem}}, s.Body, b.id)
}

// compAssign compiles name = [e for v in ... if cond], where the unit
// builds name by append (appendedNames counts the comprehension as
// appends): a fresh list, then an append of each element (buildList; a
// comprehension that reads name, xs = [v * 2 for v in xs], fills a list
// of its own first).
func (c *compiler) compAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	comp, ok := unparen(rhs).(*syntax.Comprehension)
	if !ok || comp.Curly || !c.scope.appended[id.Name] || !c.opt.Exact {
		return false, nil
	}
	return true, c.buildList(id, comp, comp.Lbrack, func(fill func(*fuse.Expr) error) error {
		return c.comprehension(comp, fill)
	})
}

// appendWord emits the append of the word x to the list b built by
// append (appendTo's store).
func (c *compiler) appendWord(id *syntax.Ident, b binding, x *fuse.Expr, at syntax.Position) error {
	x = c.biasedTo(x, c.proc.Scratch[b.id].Bias)
	n := varExpr(b.count - 1)
	chk := c.check(fuse.CheckIndex, 0, at, "%s.append: a list built by append holds at most %d elements in a fused function", id.Name, c.proc.Scratch[b.id].Len)
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: n, Y: x, Check: chk})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: c.mk(fuse.OpAdd, varExpr(b.count-1), constExpr(1))})
	return nil
}

// condExpr compiles e as the condition of an if or a while, or the
// operand of not: a list or a scratch array of the unit, or a set or dict,
// is true where it is not empty (Starlark's truth of a list); anything
// else is compiled as an expression.
func (c *compiler) condExpr(e syntax.Expr) (*fuse.Expr, error) {
	if !c.opt.Exact {
		return c.expr(e)
	}
	if bin, ok := unparen(e).(*syntax.BinaryExpr); ok && (bin.Op == syntax.AND || bin.Op == syntax.OR) && c.truthName(bin) {
		// xs and s < 1000 as a condition: the truth of each operand.
		first, err := c.condExpr(bin.X)
		if err != nil {
			return nil, err
		}
		op := fuse.OpAndThen
		if bin.Op == syntax.OR {
			op = fuse.OpOrElse
		}
		return c.lazyOf(op, first, c.condExpr, bin.Y)
	}
	id, ok := unparen(e).(*syntax.Ident)
	if !ok {
		return c.expr(e)
	}
	if b, ok := c.scope.names[id.Name]; ok && b.kind == bScratch {
		if b.count != 0 {
			return mk(fuse.OpNe, varExpr(b.count-1), constExpr(0)), nil
		}
		return boolConst(c.proc.Scratch[b.id].Len != 0), nil
	}
	if h, _, err := c.hashNamed(id); h != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return mk(fuse.OpNe, c.hashLen(h), constExpr(0)), nil
	}
	if tl, _, ok := c.tupleListNamed(id); ok {
		return mk(fuse.OpNe, varExpr(tl.parts[0].count-1), constExpr(0)), nil
	}
	return c.expr(e)
}

// truthName reports whether an operand of the and/or chain e names a
// scratch array or a set or dict: condExpr takes its truth.
func (c *compiler) truthName(e syntax.Expr) bool {
	switch e := unparen(e).(type) {
	case *syntax.BinaryExpr:
		return (e.Op == syntax.AND || e.Op == syntax.OR) && (c.truthName(e.X) || c.truthName(e.Y))
	case *syntax.Ident:
		if b, ok := c.scope.names[e.Name]; ok && (b.kind == bScratch || b.kind == bHash || b.kind == bTupleList) {
			return true
		}
	}
	return false
}

// hiddenName is a name of a scope that a comprehension binds (compiler.hidden).
type hiddenName struct {
	scope *scope
	name  string
}

// unhide drops the scope's binding of name where a comprehension binds
// name and has not bound it yet: the binding to come is the
// comprehension's own.
func (c *compiler) unhide(name string) {
	k := hiddenName{c.scope, name}
	if c.hidden[k] {
		delete(c.hidden, k)
		delete(c.scope.names, name)
	}
}

// compBinds reports whether a for clause among clauses binds name.
func compBinds(clauses []syntax.Node, name string) bool {
	for _, cl := range clauses {
		if f, ok := cl.(*syntax.ForClause); ok {
			names := map[string]bool{}
			markLocals(names, f.Vars)
			if names[name] {
				return true
			}
		}
	}
	return false
}

// removeAt emits the removal of element i (below the length) of the list
// b built by append: the elements after it move down one.
func (c *compiler) removeAt(id *syntax.Ident, b binding, i *fuse.Expr, at syntax.Position) {
	n := varExpr(b.count - 1)
	j := c.newVar()
	next := c.exactExpr(mk(fuse.OpAdd, varExpr(j), constExpr(1)))
	c.emit(fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: j, X: i,
		Y: c.exactExpr(mk(fuse.OpSub, n, constExpr(1))), Z: constExpr(1), Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero"),
		Body: []fuse.Stmt{{Kind: fuse.SStore, Arr: b.id, X: varExpr(j), Check: c.check(fuse.CheckIndex, 0, at, "index out of range"),
			Y: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{next}, Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}}}})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: c.exactExpr(mk(fuse.OpSub, n, constExpr(1)))})
}

// comprehensionLen compiles len([e for ...]): every element computed, as
// Starlark builds the list, and counted.
func (c *compiler) comprehensionLen(comp *syntax.Comprehension) (*fuse.Expr, error) {
	n := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: constExpr(0)})
	err := c.comprehension(comp, func(x *fuse.Expr) error {
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.newVar(), X: x})
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: n, X: c.exactExpr(mk(fuse.OpAdd, varExpr(n), constExpr(1)))})
		return nil
	})
	return varExpr(n), err
}
