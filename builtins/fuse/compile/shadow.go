package compile

import "go.starlark.net/syntax"

// Starlark's True, False and None are names of its universe, not
// keywords: a script may bind them as module globals, locals or
// parameters, and a name so bound is the script's value from then on
// (docs/machine-code.md, "Names a script rebinds"). The compiler reads
// them as the constants only where isLiteralName says the function sees
// the universe's.

// literalNames are the universe's constants that the compiler knows by
// their names.
var literalNames = map[string]bool{"True": true, "False": true, "None": true}

// isLiteralName reports whether name (True, False, None) is the
// universe's constant in the function being compiled: neither a local nor
// a parameter of it, nor a global or predeclared name of its module.
func (c *compiler) isLiteralName(name string) bool {
	return c.scope.isLiteralName(name)
}

// isLiteralName reports whether name is the universe's constant in sc's
// function: bound neither by the function nor by its module.
func (sc *scope) isLiteralName(name string) bool {
	if _, local := sc.names[name]; local || sc.locals[name] {
		return false
	}
	if sc.src != nil && sc.src.Free != nil {
		if _, global := sc.src.Free(name); global {
			return false
		}
	}
	return true
}

// shadowedLiteral returns the first of True, False and None that the
// function src binds (a parameter or a local assigned anywhere in its
// body), "" when it binds none.
func shadowedLiteral(src *Source) string {
	for _, p := range src.Params {
		if literalNames[p.Name] {
			return p.Name
		}
	}
	found := ""
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if found != "" {
				return false
			}
			var lhs []syntax.Expr
			switch n := n.(type) {
			case *syntax.AssignStmt:
				lhs = append(lhs, n.LHS)
			case *syntax.ForStmt:
				lhs = append(lhs, n.Vars)
			case *syntax.Comprehension:
				for _, cl := range n.Clauses {
					if f, ok := cl.(*syntax.ForClause); ok {
						lhs = append(lhs, f.Vars)
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			for _, x := range lhs {
				syntax.Walk(x, func(m syntax.Node) bool {
					if id, ok := m.(*syntax.Ident); ok && literalNames[id.Name] && found == "" {
						found = id.Name
					}
					return true
				})
			}
			return true
		})
	}
	return found
}

// checkLiterals refuses a function that sees a True, False or None of the
// script's own: one it binds (a parameter, a local), or one of its module
// that it reads. The compiler's passes know these names by their text, as
// the constants; refusing the function leaves it to the interpreter, whose
// answer it is.
func (c *compiler) checkLiterals(src *Source) error {
	for _, p := range src.Params {
		if literalNames[p.Name] {
			return errAt(p.NamePos, "%s is a parameter here, not Starlark's %s: a function that rebinds it runs in the interpreter", p.Name, p.Name)
		}
	}
	if name := shadowedLiteral(src); name != "" {
		return errAt(literalUse(src, name), "%s is a local here, not Starlark's %s: a function that rebinds it runs in the interpreter", name, name)
	}
	if src.Free == nil {
		return nil
	}
	for name := range literalNames {
		if _, global := src.Free(name); !global {
			continue
		}
		if at := literalUse(src, name); at.IsValid() {
			return errAt(at, "%s is a global of this module, not Starlark's %s: a function that reads it runs in the interpreter", name, name)
		}
	}
	return nil
}

// literalUse returns where src's body first names name, or the zero
// Position when it does not.
func literalUse(src *Source, name string) syntax.Position {
	var at syntax.Position
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if id, ok := n.(*syntax.Ident); ok && id.Name == name && !at.IsValid() {
				at = id.NamePos
			}
			return !at.IsValid()
		})
	}
	return at
}
