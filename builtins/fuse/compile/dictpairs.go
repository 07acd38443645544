package compile

import "go.starlark.net/syntax"

// dict(pairs) (Options.Exact): name = dict(x), with Starlark's dict and
// one positional argument, is translated as name = {} followed by
// for k, v in x: name[k] = v, which gives the same entries in the same
// order (a key met again keeps its place and takes the later value) and
// fails where dict would (an element that is not a pair: the interpreter
// then runs the call and gives dict's own error). The loop's names are
// written with a character no Starlark name holds, so they meet none of
// the function's.

// withDictPairs returns src with each name = dict(x) of its body written
// out as above (src itself where it has none, or where dict is not
// Starlark's: a parameter, a local, a global of that name).
func withDictPairs(src *Source, exact bool) *Source {
	if !exact || src.Builtin != nil && !src.Builtin("dict") {
		return src
	}
	for _, p := range src.Params {
		if p.Name == "dict" {
			return src
		}
	}
	if assignedNames(src.Body)["dict"] {
		return src
	}
	found := false
	body := rewriteDictPairs(src.Body, &found)
	if !found {
		return src
	}
	out := *src
	out.Body = body
	return &out
}

// rewriteDictPairs returns ss with name = dict(x) written out, copying
// the statements that hold one (the syntax tree is shared: it is never
// changed), and sets found where it wrote one.
func rewriteDictPairs(ss []syntax.Stmt, found *bool) []syntax.Stmt {
	var out []syntax.Stmt
	changed := false
	for _, s := range ss {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			if pair := dictPairs(s); pair != nil {
				out = append(out, pair...)
				changed = true
				continue
			}
		case *syntax.IfStmt:
			t, f := rewriteDictPairs(s.True, found), rewriteDictPairs(s.False, found)
			if !sameStmts(t, s.True) || !sameStmts(f, s.False) {
				c := *s
				c.True, c.False = t, f
				out = append(out, &c)
				changed = true
				continue
			}
		case *syntax.ForStmt:
			if b := rewriteDictPairs(s.Body, found); !sameStmts(b, s.Body) {
				c := *s
				c.Body = b
				out = append(out, &c)
				changed = true
				continue
			}
		case *syntax.WhileStmt:
			if b := rewriteDictPairs(s.Body, found); !sameStmts(b, s.Body) {
				c := *s
				c.Body = b
				out = append(out, &c)
				changed = true
				continue
			}
		}
		out = append(out, s)
	}
	if !changed {
		return ss
	}
	*found = true
	return out
}

// sameStmts reports whether a and b are the same slice.
func sameStmts(a, b []syntax.Stmt) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// dictPairs returns name = {} and for k, v in x: name[k] = v where s is
// name = dict(x), else nil.
func dictPairs(s *syntax.AssignStmt) []syntax.Stmt {
	id, ok := s.LHS.(*syntax.Ident)
	if !ok || s.Op != syntax.EQ {
		return nil
	}
	call, ok := unparen(s.RHS).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	if fn, ok := call.Fn.(*syntax.Ident); !ok || fn.Name != "dict" {
		return nil
	}
	x := call.Args[0]
	if b, ok := x.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
		return nil // dict(k=v)
	}
	if u, ok := x.(*syntax.UnaryExpr); ok && (u.Op == syntax.STAR || u.Op == syntax.STARSTAR) {
		return nil
	}
	at := call.Lparen
	name := func(n string) *syntax.Ident { return &syntax.Ident{NamePos: at, Name: n} }
	k, v := name("dict·k"), name("dict·v")
	return []syntax.Stmt{
		&syntax.AssignStmt{OpPos: s.OpPos, Op: syntax.EQ, LHS: id, RHS: &syntax.DictExpr{Lbrace: at, Rbrace: call.Rparen}},
		&syntax.ForStmt{For: at, Vars: &syntax.TupleExpr{List: []syntax.Expr{k, v}}, X: x, Body: []syntax.Stmt{
			&syntax.AssignStmt{OpPos: at, Op: syntax.EQ, LHS: &syntax.IndexExpr{X: name(id.Name), Lbrack: at, Y: name(k.Name), Rbrack: at}, RHS: name(v.Name)},
		}},
	}
}
