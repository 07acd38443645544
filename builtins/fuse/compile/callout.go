package compile

import (
	"errors"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Calls that stay interpreted (docs/machine-code.md, "Calls the code hands
// to the interpreter"). With Options.Exact, a helper that Options.CallOut
// names is not translated: each of its calls becomes a callout
// (fuse.Callout.Callee), its arguments operands (ints or bools the code
// computes), and the interpreter runs the helper while the code waits.
// Which helpers are called so is the caller's choice (package machine):
// the compiler only says, through a HelperError, in which helper's body a
// translation failed.

// A HelperError is an error of the translation met in the body of the
// helper Fn (the innermost helper where helpers call helpers): calling Fn
// out (Options.CallOut) would leave its body to the interpreter.
type HelperError struct {
	Fn  *starlark.Function
	Err error
}

func (e *HelperError) Error() string { return e.Err.Error() }
func (e *HelperError) Unwrap() error { return e.Err }

// helperError marks err, met translating the body of the helper fn, as
// fn's (HelperError), unless a helper fn calls has marked it already or
// fn is no Starlark function.
func helperError(fn helperOf, err error) error {
	var he *HelperError
	if err == nil || fn.id == nil || errors.As(err, &he) {
		return err
	}
	return &HelperError{Fn: fn.id, Err: err}
}

// calledOut reports whether the call e of the helper fn is a callout: fn
// is one Options.CallOut names, and no argument is an array, a table or a
// set or dict of the function's (which only a translated helper takes:
// that translation's error then stands).
func (c *compiler) calledOut(e *syntax.CallExpr, fn helperOf) bool {
	if fn.id == nil || !c.opt.Exact || c.opt.CheckOnly || c.opt.CallOut == nil || !c.opt.CallOut(fn.id) {
		return false
	}
	for _, a := range e.Args {
		if id, ok := unparen(a).(*syntax.Ident); ok {
			if bd, ok := c.scope.names[id.Name]; ok && bd.kind != bVar {
				return false
			}
			if _, local := c.scope.names[id.Name]; !local {
				if t, _ := c.lookupTable(id); t >= 0 {
					return false
				}
			}
		}
	}
	return true
}

// callOut compiles a call of the helper fn, which stays interpreted, as
// operands and a callout, then, where the call's value is used, the
// callout's result: a bool where the helper returns one (returnsBool),
// else an int.
func (c *compiler) callOut(e *syntax.CallExpr, fn helperOf) (*fuse.Expr, error) {
	_, x, err := c.callOutKeep(e, fn, false)
	return x, err
}

// keptCall compiles e, where it is a call of a helper that stays
// interpreted, as a callout whose result the runner keeps for a print
// (fuse.Callout.Keep), and returns its index.
func (c *compiler) keptCall(e syntax.Expr) (k int, ok bool, err error) {
	call, isCall := unparen(e).(*syntax.CallExpr)
	if !isCall {
		return 0, false, nil
	}
	name, isName := callee(call)
	if !isName {
		return 0, false, nil
	}
	if _, local := c.scope.names[name]; local || c.scope.locals[name] {
		return 0, false, nil
	}
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			return 0, false, nil
		}
	}
	if b, ok := c.printedBuiltin(name); ok {
		k, err = c.callOutCallable(call, b, name, len(call.Args), true)
		return k, err == nil, err
	}
	v, found := c.scope.src.Free(name)
	f, isFn := v.(*starlark.Function)
	if !found || !isFn {
		return 0, false, nil
	}
	fn := helperOf{id: f, name: f.Name()}
	if !c.calledOut(call, fn) {
		return 0, false, nil
	}
	k, _, err = c.callOutKeep(call, fn, true)
	return k, err == nil, err
}

// printedBuiltins are the builtins whose call a print may hand to the
// runner with ints or bools (a string of them: print(hex(x)), "%s" %
// str(n)), and which change nothing.
var printedBuiltins = map[string]bool{"str": true, "repr": true, "hex": true, "bin": true, "oct": true, "chr": true}

// A Builtin is the Callee of a callout (fuse.Callout) that calls the
// builtin of that name, which the runner finds among its interpreter's.
type Builtin string

// printedBuiltin returns the builtin name, where it is one of
// printedBuiltins and not rebound by the function or its module.
func (c *compiler) printedBuiltin(name string) (Builtin, bool) {
	if !printedBuiltins[name] || !c.isBuiltin(name) || !c.opt.Exact || c.opt.CheckOnly {
		return "", false
	}
	return Builtin(name), true
}

// callOutKeep is callOut; with keep, the call's result, whatever it is,
// is kept by the runner for a print (and no expression reads it).
func (c *compiler) callOutKeep(e *syntax.CallExpr, fn helperOf, keep bool) (int, *fuse.Expr, error) {
	f := fn.id
	if len(e.Args) != f.NumParams() {
		return 0, nil, errAt(pos(e.Fn), "%s takes %d arguments, not %d", fn.name, f.NumParams(), len(e.Args))
	}
	co := fuse.Callout{Callee: f, Name: fn.name, Operands: len(e.Args), Keep: keep}
	if !c.discarded[e] && !keep {
		h, err := c.helperReturns(fn)
		if err != nil {
			return 0, nil, errAt(pos(e.Fn), "%s: %v", fn.name, err)
		}
		switch {
		case h.none:
			return 0, nil, errAt(pos(e.Fn), "%s returns None, which is not a word: call it as a statement", fn.name)
		case h.boolean:
			co.Result = fuse.ResultBool
		default:
			co.Result = fuse.ResultWord
		}
	}
	k, err := c.callout(e, co)
	if err != nil || co.Result == fuse.ResultAny {
		return k, constExpr(0), err
	}
	// The result at once into a variable: the next callout overwrites it.
	v := c.newVar()
	var imm uint64
	if co.Result == fuse.ResultBool {
		imm = 1
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: &fuse.Expr{Op: fuse.OpResult, Imm: imm, Check: -1}})
	return k, varExpr(v), nil
}

// callOutCallable compiles a call e of the builtin b, named name, as a
// callout whose result the runner keeps for a print (keep) and returns its
// index.
func (c *compiler) callOutCallable(e *syntax.CallExpr, b Builtin, name string, args int, keep bool) (int, error) {
	return c.callout(e, fuse.Callout{Callee: b, Name: name, Operands: args, Keep: keep})
}

// callout compiles the arguments of e, ints or bools, as the operands of
// co, then co, and returns its index.
func (c *compiler) callout(e *syntax.CallExpr, co fuse.Callout) (int, error) {
	if len(e.Args) > fuse.MaxCalloutOperands {
		return 0, errAt(pos(e.Fn), "a call of %s, which stays interpreted, with more than %d arguments is not run as machine code", co.Name, fuse.MaxCalloutOperands)
	}
	vals := make([]*fuse.Expr, len(e.Args))
	for i, a := range e.Args {
		mark := len(*c.out)
		x, err := c.word(a)
		if err != nil {
			return 0, err
		}
		c.beforeAll(vals[:i], mark)
		vals[i] = x
		co.Parts = append(co.Parts, fuse.CalloutPart{Operand: i, Verb: 's'})
	}
	return c.emitCallout(co, vals), nil
}

// emitCallout emits the callout co with the operands vals and returns its
// number: the values first, into variables where they call a Proc (whose
// own callouts would set the operands of theirs), then the operands, then
// the callout.
func (c *compiler) emitCallout(co fuse.Callout, vals []*fuse.Expr) int {
	for i, x := range vals {
		if hasCall(x) {
			v := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: x})
			vals[i] = varExpr(v)
		}
	}
	k := len(c.f.Callouts)
	co.Operands = len(vals)
	c.f.Callouts = append(c.f.Callouts, co)
	for i, x := range vals {
		c.emit(fuse.Stmt{Kind: fuse.SOperand, Var: i, Arr: k, X: x})
	}
	c.emit(fuse.Stmt{Kind: fuse.SCallout, Arr: k})
	return k
}

// isFail reports whether call, a statement, is a call of the builtin fail
// that the function compiles as the end of its run (failStmt).
func (c *compiler) isFail(call *syntax.CallExpr) bool {
	id, ok := call.Fn.(*syntax.Ident)
	return ok && id.Name == "fail" && c.opt.Exact && !c.opt.CheckOnly && c.isBuiltin("fail")
}

// failStmt compiles fail(...), with Options.Exact, as a failure of the
// run, which the interpreter then runs again from its start: it reaches
// the same fail, evaluates its arguments (strings, say, which the code
// need not compute) and fails with its own message and traceback.
func (c *compiler) failStmt(call *syntax.CallExpr) error {
	c.emit(fuse.Stmt{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, call.Lparen, "a call of fail")})
	return nil
}
