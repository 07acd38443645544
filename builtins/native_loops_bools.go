package builtins

import "go.starlark.net/syntax"

// A global holding a bool that a loop of top-level code assigns (found =
// False before it, found = True in it) is a parameter of the lifted
// function, as a bool global it reads is, and its result is 1 if found
// else 0, which run turns back into the bool. It is lifted only where
// every assignment of the name in the loop gives a bool written so (True,
// False, a comparison, a membership test, not x): an int assigned there
// would come back as a bool.

// assignsOnlyBools reports whether every assignment of name in the loop
// statement s gives it a bool (boolSyntax), and no for loop or tuple
// assignment binds it.
func assignsOnlyBools(s syntax.Stmt, name string) bool {
	ok := true
	syntax.Walk(s, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			names := map[string]bool{}
			if id, isID := n.LHS.(*syntax.Ident); isID {
				if id.Name == name && (n.Op != syntax.EQ || !boolSyntax(n.RHS)) {
					ok = false
				}
				break
			}
			collectNames(names, n.LHS)
			if names[name] {
				ok = false
			}
		case *syntax.ForStmt:
			names := map[string]bool{}
			collectNames(names, n.Vars)
			if names[name] {
				ok = false
			}
		case *syntax.Comprehension:
			for _, cl := range n.Clauses {
				if f, isFor := cl.(*syntax.ForClause); isFor {
					names := map[string]bool{}
					collectNames(names, f.Vars)
					if names[name] {
						ok = false
					}
				}
			}
		}
		return ok
	})
	return ok
}

// collectNames adds the names an assignment's target binds.
func collectNames(names map[string]bool, e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.Ident:
		names[e.Name] = true
	case *syntax.TupleExpr:
		for _, x := range e.List {
			collectNames(names, x)
		}
	case *syntax.ListExpr:
		for _, x := range e.List {
			collectNames(names, x)
		}
	case *syntax.ParenExpr:
		collectNames(names, e.X)
	}
}

// boolSyntax reports whether e is a bool as written: True, False, a
// comparison, a membership test or not x.
func boolSyntax(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return boolSyntax(e.X)
	case *syntax.Ident:
		return e.Name == "True" || e.Name == "False"
	case *syntax.UnaryExpr:
		return e.Op == syntax.NOT
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.IN, syntax.NOT_IN:
			return true
		}
	}
	return false
}

// boolResult is the lifted function's result for a bool global name: 1
// if name else 0.
func boolResult(name string) syntax.Expr {
	return &syntax.CondExpr{Cond: &syntax.Ident{Name: name},
		True:  &syntax.Literal{Token: syntax.INT, Raw: "1", Value: int64(1)},
		False: &syntax.Literal{Token: syntax.INT, Raw: "0", Value: int64(0)}}
}
