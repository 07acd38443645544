package compile

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Signed loop variables (Options.Exact): for dr, dc in DIRS, DIRS a table
// holding a negative int (((1, 0), (-1, 0))), binds dr to a biased read of
// the table (tuples.go), so that nr = r + dr stays biased (signedArith). A
// local assigned such a sum must not be a wide local (wide.go): a pair is
// never negative, and the pair's leaf reads dr as a word, which fails for
// -1 on every call. signedNames finds the names that may hold a negative
// int that way, so that wideLocals leaves them, and the locals assigned
// from them, to the biased words.

// signedNames returns the variables of sc's function's for loops over a
// value holding a negative int (a free name bound to one, or a tuple or
// list written out), the names unpacked from them (a, b = d), and the
// locals assigned a value that reads one of these, until none is added.
func signedNames(sc *scope) map[string]uint64 {
	out := map[string]uint64{}
	add := func(lhs syntax.Expr) bool {
		grew := false
		names := map[string]bool{}
		markLocals(names, lhs)
		for name := range names {
			if _, ok := out[name]; !ok {
				out[name], grew = 1, true
			}
		}
		return grew
	}
	for changed := true; changed; {
		changed = false
		for _, s := range sc.src.Body {
			syntax.Walk(s, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.ForStmt:
					if holdsNegative(sc, n.X, 0) || readsAny(n.X, out) {
						changed = add(n.Vars) || changed
					}
				case *syntax.AssignStmt:
					if readsAny(n.RHS, out) {
						changed = add(n.LHS) || changed
					}
				case *syntax.LambdaExpr, *syntax.DefStmt:
					return false
				}
				return true
			})
		}
	}
	return out
}

// holdsNegative reports whether e, a free name or a tuple or list written
// out, holds a negative int, at any depth up to a few levels.
func holdsNegative(sc *scope, e syntax.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch e := unparen(e).(type) {
	case *syntax.TupleExpr:
		for _, x := range e.List {
			if holdsNegative(sc, x, depth+1) {
				return true
			}
		}
		return false
	case *syntax.ListExpr:
		for _, x := range e.List {
			if holdsNegative(sc, x, depth+1) {
				return true
			}
		}
		return false
	case *syntax.Ident:
		if sc.locals[e.Name] || sc.src.Free == nil {
			return false
		}
		if v, ok := sc.src.Free(e.Name); ok {
			return valueHoldsNegative(v, depth)
		}
		return false
	}
	if k, ok := bigConst(sc, e); ok {
		return k.Sign() < 0
	}
	return false
}

// valueHoldsNegative reports whether v is a negative int or a tuple or
// list holding one, at any depth up to a few levels.
func valueHoldsNegative(v starlark.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	switch v := v.(type) {
	case starlark.Int:
		return v.Sign() < 0
	case starlark.Tuple:
		for _, x := range v {
			if valueHoldsNegative(x, depth+1) {
				return true
			}
		}
	case *starlark.List:
		for i := 0; i < v.Len(); i++ {
			if valueHoldsNegative(v.Index(i), depth+1) {
				return true
			}
		}
	}
	return false
}

// readsSigned reports whether e reads a name that may hold a negative
// int: a signed loop variable or a local assigned from one (signedNames),
// or a local some assignment gives a negative constant (signedLocals).
func (w *wideInfo) readsSigned(e syntax.Expr) bool {
	return readsAny(e, w.sc.signed) || readsAny(e, w.sc.negBias)
}
