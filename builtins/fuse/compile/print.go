package compile

import (
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// A print statement with Options.Exact (docs/scripting.md, "Printing
// from machine code") becomes a callout (fuse.Callout): the code hands
// the line to the binding, which prints it as the interpreter would, and
// the run goes on. Its arguments are ints and bools the code computes,
// strings known when it is compiled (literals, a module's strings), and
// "format" % values with a literal format of %d, %i, %s, %r, %o, %x, %X
// and %% only; sep and end are such strings, flush a constant.

// maxCalloutText bounds the constant text of one printed line.
const maxCalloutText = 1 << 12

// isPrint reports whether call is a call of the builtin print that the
// function compiles as a callout.
func (c *compiler) isPrint(call *syntax.CallExpr) bool {
	id, ok := call.Fn.(*syntax.Ident)
	return ok && id.Name == "print" && c.opt.Exact && !c.opt.CheckOnly && c.isBuiltin("print")
}

// printStmt compiles print(...) as operands and a callout.
func (c *compiler) printStmt(call *syntax.CallExpr) error {
	sep, end := " ", "\n"
	var args []syntax.Expr
	for _, a := range call.Args {
		kw, ok := a.(*syntax.BinaryExpr)
		if !ok || kw.Op != syntax.EQ {
			if u, ok := a.(*syntax.UnaryExpr); ok && (u.Op == syntax.STAR || u.Op == syntax.STARSTAR) {
				return errAt(u.OpPos, "print of *args or **kwargs is not run as machine code")
			}
			args = append(args, a)
			continue
		}
		name := kw.X.(*syntax.Ident).Name
		switch name {
		case "sep", "end":
			s, ok := c.constString(kw.Y)
			if !ok {
				if id, isIdent := kw.Y.(*syntax.Ident); isIdent && id.Name == "None" {
					continue
				}
				return errAt(kw.OpPos, "print's %s must be a string known when the function is compiled", name)
			}
			if name == "sep" {
				sep = s
			} else {
				end = s
			}
		case "flush":
			if id, ok := kw.Y.(*syntax.Ident); !ok || id.Name != "True" && id.Name != "False" || !c.isConstName(id.Name) {
				return errAt(kw.OpPos, "print's flush must be True or False")
			}
		default:
			return errAt(kw.OpPos, "print takes no keyword %s", name)
		}
	}
	co := fuse.Callout{}
	var vals []*fuse.Expr
	text := func(s string) {
		if n := len(co.Parts); n > 0 && co.Parts[n-1].Operand < 0 && co.Parts[n-1].Kept == 0 {
			co.Parts[n-1].Text += s
			return
		}
		co.Parts = append(co.Parts, fuse.CalloutPart{Text: s, Operand: -1})
	}
	value := func(e syntax.Expr, verb byte) error {
		mark := len(*c.out)
		x, err := c.expr(e)
		if err != nil {
			return err
		}
		// The values before it are Starlark's first: ahead of what it
		// emitted (a helper inlined, a call that stays interpreted).
		c.beforeAll(vals, mark)
		if len(vals) == fuse.MaxCalloutOperands {
			return errAt(pos(e), "a print of more than %d values is not run as machine code", fuse.MaxCalloutOperands)
		}
		co.Parts = append(co.Parts, fuse.CalloutPart{Operand: len(vals), Verb: verb})
		vals = append(vals, x)
		return nil
	}
	// keep makes e, where it is a call of a helper that stays
	// interpreted, a part its result written with verb ('s', 'r') fills
	// (callout.go); its callout comes before the print's.
	var keepErr error
	keep := func(e syntax.Expr, verb byte) bool {
		mark := len(*c.out)
		k, ok, err := c.keptCall(e)
		c.beforeAll(vals, mark) // (as in value)
		if err != nil && keepErr == nil {
			keepErr = err
		}
		if ok {
			co.Parts = append(co.Parts, fuse.CalloutPart{Operand: -1, Kept: k + 1, Verb: verb})
		}
		return ok || err != nil
	}
	for i, a := range args {
		if i > 0 {
			text(sep)
		}
		if s, ok := c.constString(a); ok {
			text(s)
			continue
		}
		if keep(a, 's') {
			continue
		}
		if b, ok := unparen(a).(*syntax.BinaryExpr); ok && b.Op == syntax.PERCENT {
			if format, ok := c.constString(b.X); ok {
				if err := c.printFormat(b, format, text, value, keep); err != nil {
					return err
				}
				continue
			}
		}
		if err := value(a, 's'); err != nil {
			return err
		}
	}
	if keepErr != nil {
		return keepErr
	}
	co.End = end
	size := len(end)
	for _, p := range co.Parts {
		size += len(p.Text)
	}
	if size > maxCalloutText {
		return errAt(call.Lparen, "a print of more than %d bytes of constant text is not run as machine code", maxCalloutText)
	}
	c.emitCallout(co, vals)
	return nil
}

// printFormat compiles format % y, a printed argument: format's text and
// conversions, y's values (a tuple written out, or one value).
func (c *compiler) printFormat(b *syntax.BinaryExpr, format string, text func(string), value func(syntax.Expr, byte) error, keep func(syntax.Expr, byte) bool) error {
	var ys []syntax.Expr
	switch y := unparen(b.Y).(type) {
	case *syntax.TupleExpr:
		ys = y.List
	default:
		ys = []syntax.Expr{b.Y}
	}
	n := 0
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '%' {
			j := i
			for j < len(format) && format[j] != '%' {
				j++
			}
			text(format[i:j])
			i = j - 1
			continue
		}
		if i+1 == len(format) {
			return errAt(b.OpPos, "an incomplete format is not run as machine code")
		}
		i++
		verb, orig := format[i], format[i]
		switch verb {
		case '%':
			text("%")
			continue
		case 's', 'r':
			verb = 's'
		case 'i':
			verb = 'd'
		case 'd', 'o', 'x', 'X':
		default:
			return errAt(b.OpPos, "the conversion %%%c is not run as machine code (%%d, %%s, %%o, %%x only)", verb)
		}
		if n == len(ys) {
			return errAt(b.OpPos, "the format has more conversions than values")
		}
		s, isConst := c.constString(ys[n])
		switch {
		case isConst && orig == 'r':
			text(starlark.String(s).String()) // (quoted)
		case isConst && verb == 's':
			text(s)
		case verb == 's' && keep(ys[n], orig):
			// (a value a helper in the interpreter gives: callout.go)
		default:
			if err := value(ys[n], verb); err != nil {
				return err
			}
		}
		n++
	}
	if n != len(ys) {
		return errAt(b.OpPos, "the format has fewer conversions than values")
	}
	return nil
}

// constString returns the string e is when the function is compiled: a
// string literal, or a name of the module bound to a string.
func (c *compiler) constString(e syntax.Expr) (string, bool) {
	switch e := unparen(e).(type) {
	case *syntax.Literal:
		if s, ok := e.Value.(string); ok && e.Token == syntax.STRING {
			return s, true
		}
	case *syntax.Ident:
		if _, local := c.scope.names[e.Name]; local || c.scope.locals[e.Name] {
			return "", false
		}
		if v, ok := c.scope.src.Free(e.Name); ok {
			if s, ok := v.(starlark.String); ok {
				return string(s), true
			}
		}
	}
	return "", false
}

// isConstName reports whether name (True, False) is not rebound by the
// function.
func (c *compiler) isConstName(name string) bool {
	_, local := c.scope.names[name]
	return !local && !c.scope.locals[name]
}

// hasCall reports whether x calls a Proc.
func hasCall(x *fuse.Expr) bool {
	if x.Op == fuse.OpCall {
		return true
	}
	for _, a := range x.Args {
		if hasCall(a) {
			return true
		}
	}
	return false
}

// isEmit reports whether call is a call of the builtin emit that the
// function compiles as a callout.
func (c *compiler) isEmit(call *syntax.CallExpr) bool {
	id, ok := call.Fn.(*syntax.Ident)
	return ok && id.Name == "emit" && c.opt.Exact && !c.opt.CheckOnly && c.isBuiltin("emit")
}

// emitStmt compiles emit(key, value, op="sum") of a key and an op known
// when the function is compiled as an operand and a callout.
func (c *compiler) emitStmt(call *syntax.CallExpr) error {
	var key, op, value syntax.Expr
	names := []string{"key", "value", "op"}
	slots := []*syntax.Expr{&key, &value, &op}
	n := 0
	for _, a := range call.Args {
		if kw, ok := a.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
			name := kw.X.(*syntax.Ident).Name
			i := slices.Index(names, name)
			if i < 0 || *slots[i] != nil {
				return errAt(kw.OpPos, "emit's keyword %s is not run as machine code", name)
			}
			*slots[i] = kw.Y
			continue
		}
		if n == len(slots) || *slots[n] != nil {
			return errAt(pos(a), "emit takes key, value and op")
		}
		*slots[n] = a
		n++
	}
	if key == nil || value == nil {
		return errAt(call.Lparen, "emit takes a key and a value")
	}
	co := fuse.Callout{Op: "sum", Operands: 1, Parts: []fuse.CalloutPart{{Operand: 0, Verb: 's'}}}
	var ok bool
	if co.Emit, ok = c.constString(key); !ok {
		return errAt(pos(key), "emit's key must be a string known when the function is compiled")
	}
	if op != nil {
		if co.Op, ok = c.constString(op); !ok {
			return errAt(pos(op), "emit's op must be a string known when the function is compiled")
		}
	}
	x, err := c.expr(value)
	if err != nil {
		return err
	}
	if hasCall(x) {
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
		x = varExpr(v)
	}
	k := len(c.f.Callouts)
	c.f.Callouts = append(c.f.Callouts, co)
	c.emit(fuse.Stmt{Kind: fuse.SOperand, Var: 0, Arr: k, X: x})
	c.emit(fuse.Stmt{Kind: fuse.SCallout, Arr: k})
	return nil
}
