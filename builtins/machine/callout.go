package machine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Calls that stay interpreted (docs/machine-code.md, "Calls the code hands
// to the interpreter"). Where a plain function's translation fails in the
// body of a helper it calls (compile.HelperError), the helper may stay
// interpreted instead: each call of it is a callout (compile.Options.CallOut),
// and the interpreter runs it while the code waits. A run of the code that
// fails is run again by the interpreter from its start, which calls the
// helper again; so a helper is called out only where that second call
// cannot show: it changes nothing but its own new values (calloutPure),
// and what it prints is replayed (builtins/native_print.go). And since the
// code writes the lists it changes back only when it succeeds, a helper
// that reads a module's list, dict or set is called out only by code that
// writes none (PlainCode.CalloutReads, checked once compiled).

// maxCallouts bounds the helpers one function leaves to the interpreter.
const maxCallouts = 8

// maxPureFuncs bounds the functions calloutPure reads for one helper (the
// helper and those it calls).
const maxPureFuncs = 64

// pureBuiltins are the builtins a helper called out may call: they change
// nothing but the values they make (print's lines are replayed), or fail.
var pureBuiltins = map[string]bool{
	"abs": true, "all": true, "any": true, "bool": true, "chr": true, "dict": true, "enumerate": true,
	"fail": true, "float": true, "hasattr": true, "hash": true, "int": true, "len": true, "list": true,
	"max": true, "min": true, "ord": true, "print": true, "range": true, "repr": true, "reversed": true,
	"set": true, "sorted": true, "str": true, "tuple": true, "type": true, "zip": true,
	"hex": true, "bin": true, "oct": true, "binomial": true,
}

// freshBuiltins are the builtins whose result is a value of their own (no
// value the caller holds), which a helper may change.
var freshBuiltins = map[string]bool{
	"dict": true, "list": true, "set": true, "sorted": true, "str": true, "repr": true, "tuple": true,
	"hex": true, "bin": true, "oct": true, "range": true, "int": true, "len": true, "chr": true, "enumerate": true, "zip": true,
}

// readMethods are the methods a helper may call on a value it did not make:
// those of strings, and those that only read a list, dict or set.
var readMethods = map[string]bool{
	"capitalize": true, "codepoint_ords": true, "codepoints": true, "count": true, "elem_ords": true, "elems": true,
	"endswith": true, "find": true, "format": true, "index": true, "isalnum": true, "isalpha": true, "isdigit": true,
	"islower": true, "isspace": true, "istitle": true, "isupper": true, "join": true, "lower": true, "lstrip": true,
	"partition": true, "removeprefix": true, "removesuffix": true, "replace": true, "rfind": true, "rindex": true,
	"rpartition": true, "rsplit": true, "rstrip": true, "split": true, "splitlines": true, "startswith": true,
	"strip": true, "title": true, "upper": true,
	"get": true, "items": true, "keys": true, "values": true,
	"union": true, "intersection": true, "difference": true, "symmetric_difference": true, "issubset": true, "issuperset": true,
}

// freshMethods are the methods among readMethods whose result is a value of
// their own (a string, or a new list or set).
var freshMethods = map[string]bool{
	"capitalize": true, "format": true, "join": true, "lower": true, "lstrip": true, "replace": true, "rstrip": true,
	"split": true, "rsplit": true, "splitlines": true, "strip": true, "title": true, "upper": true, "removeprefix": true,
	"removesuffix": true, "partition": true, "rpartition": true, "items": true, "keys": true, "values": true,
	"union": true, "intersection": true, "difference": true, "symmetric_difference": true, "elems": true, "codepoints": true,
}

// calloutRule decides which helpers a function compiled exactly leaves to
// the interpreter: it records, for each helper it takes, the module's
// lists, dicts and sets the helper and those it calls read by name.
type calloutRule struct {
	env   Env
	top   *starlark.Function
	fns   []*starlark.Function
	reads []starlark.Value
	// read, where not nil, is Loop.Read: a global a function reads
	// that it answers with a compile.Refused (one a loop assigns, which
	// its code holds in a register) keeps that function from being
	// left to the interpreter.
	read func(h *starlark.Function, name string, v starlark.Value) starlark.Value
}

// take reports whether the helper that he names may stay interpreted,
// and takes it; an error says why not (the translation's own error then
// stands).
func (r *calloutRule) take(he *compile.HelperError) error {
	fn := he.Fn
	switch {
	case fn == r.top:
		return errors.New("the function itself")
	case slices.Contains(r.fns, fn):
		return errors.New("called out already") // (an error of the call, not of the helper's body)
	case len(r.fns) == maxCallouts:
		return fmt.Errorf("more than %d helpers would stay interpreted", maxCallouts)
	case fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0:
		return errors.New("it takes *args, **kwargs or keyword-only parameters")
	}
	p := pureCheck{env: r.env, seen: map[*starlark.Function]bool{}, read: r.read}
	if err := p.fn(fn, true); err != nil {
		return err
	}
	r.fns = append(r.fns, fn)
	for _, v := range p.reads {
		if !slices.Contains(r.reads, v) {
			r.reads = append(r.reads, v)
		}
	}
	return nil
}

// stale says why the code may not call its helpers out where it writes the
// array parameters written says: a helper called out would read, in a
// list, dict or set of the module, what the code has not written back yet.
func (r *calloutRule) stale(written []bool) error {
	if len(r.reads) == 0 || !slices.Contains(written, true) {
		return nil
	}
	return fmt.Errorf("it writes a list, dict or set, and calls %s, which stays interpreted and reads a list, dict or set of its module", r.fns[0].Name())
}

// callOut is compile.Options.CallOut for the helpers taken.
func (r *calloutRule) callOut(fn *starlark.Function) bool { return slices.Contains(r.fns, fn) }

// pureCheck reads a helper and the functions it calls for what a helper
// called out may not do (calloutPure).
type pureCheck struct {
	env   Env
	seen  map[*starlark.Function]bool
	reads []starlark.Value // the module's lists, dicts and sets read
	read  func(h *starlark.Function, name string, v starlark.Value) starlark.Value
}

// fn checks the function fn and those it calls: it changes no value it did
// not make itself (no index or attribute assignment, no method but
// readMethods, no += on a name, unless the name only ever holds values fn
// made: fresh), it calls only functions that pass this check too and
// pureBuiltins, and it defines no function. params says whether its
// parameters hold ints or bools (the helper called out, from code);
// those of the functions it calls hold anything.
func (p *pureCheck) fn(fn *starlark.Function, params bool) error {
	if p.seen[fn] {
		return nil
	}
	if len(p.seen) == maxPureFuncs {
		return fmt.Errorf("it calls more than %d functions", maxPureFuncs)
	}
	p.seen[fn] = true
	if p.env.Sources == nil {
		return errors.New("its source text was not kept")
	}
	ss := SourceOf(p.env.Sources, fn, p.env.Builtin)
	if len(ss) != 1 {
		return fmt.Errorf("%s: %d kept texts hold a def of it at its place", fn.Name(), len(ss))
	}
	src := ss[0].Source
	// The names fn binds (parameters, assignments, loops, comprehensions,
	// lambdas' parameters), and those of them that hold only values fn
	// made.
	locals, fresh := map[string]bool{}, map[string]bool{}
	for _, prm := range src.Params {
		locals[prm.Name] = true
		fresh[prm.Name] = params
	}
	bind := func(lhs syntax.Expr, rhs syntax.Expr, made bool) {
		var walk func(e syntax.Expr, single bool)
		walk = func(e syntax.Expr, single bool) {
			switch e := e.(type) {
			case *syntax.Ident:
				if !locals[e.Name] {
					locals[e.Name] = true
					fresh[e.Name] = true
				}
				if !single || !made {
					fresh[e.Name] = false
				}
			case *syntax.ParenExpr:
				walk(e.X, single)
			case *syntax.TupleExpr:
				for _, x := range e.List {
					walk(x, false)
				}
			case *syntax.ListExpr:
				for _, x := range e.List {
					walk(x, false)
				}
			}
		}
		walk(lhs, true)
	}
	var assigns []*syntax.AssignStmt
	var err error
	fail := func(at syntax.Node, format string, args ...any) bool {
		if err == nil {
			start, _ := at.Span()
			err = fmt.Errorf("%s (%s:%d): %s", fn.Name(), start.Filename(), start.Line, fmt.Sprintf(format, args...))
		}
		return false
	}
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				assigns = append(assigns, n)
				bind(n.LHS, n.RHS, true)
			case *syntax.ForStmt:
				bind(n.Vars, nil, false)
			case *syntax.ForClause:
				bind(n.Vars, nil, false)
			case *syntax.LambdaExpr:
				for _, prm := range n.Params {
					if id, ok := prm.(*syntax.Ident); ok {
						bind(id, nil, false)
					} else {
						return fail(prm, "a lambda with defaults or *args")
					}
				}
			case *syntax.DefStmt:
				return fail(n, "it defines a function")
			}
			return true
		})
	}
	if err != nil {
		return err
	}
	// A name holds only values fn made where every assignment to it
	// gives one (to a fixed point: y = x, x = [] ...).
	for changed := true; changed; {
		changed = false
		for _, a := range assigns {
			id, ok := unparenIdent(a.LHS)
			if !ok || !fresh[id.Name] {
				continue
			}
			// (x op= y leaves x a value of fn's: a list extended, or a
			// new value.)
			if a.Op == syntax.EQ && !p.made(a.RHS, locals, fresh) {
				fresh[id.Name], changed = false, true
			}
		}
	}
	owned := func(x syntax.Expr) bool {
		id, ok := unparenIdent(x)
		return ok && locals[id.Name] && fresh[id.Name]
	}
	// target checks what an assignment or a loop writes: an element of a
	// value fn made, or a local.
	var target func(at syntax.Node, e syntax.Expr) bool
	target = func(at syntax.Node, e syntax.Expr) bool {
		switch e := e.(type) {
		case *syntax.IndexExpr:
			if !owned(e.X) {
				return fail(at, "it assigns an element of a value it did not make")
			}
		case *syntax.DotExpr:
			return fail(at, "it assigns a field")
		case *syntax.ParenExpr:
			return target(at, e.X)
		case *syntax.TupleExpr:
			for _, x := range e.List {
				if !target(at, x) {
					return false
				}
			}
		case *syntax.ListExpr:
			for _, x := range e.List {
				if !target(at, x) {
					return false
				}
			}
		}
		return true
	}
	called := map[syntax.Expr]bool{} // the callees of calls, checked as such
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if err != nil {
				return false
			}
			switch n := n.(type) {
			case *syntax.AssignStmt:
				if id, ok := n.LHS.(*syntax.Ident); ok && n.Op != syntax.EQ && !owned(id) {
					// x += y changes a list x in place.
					return fail(n, "%s %s may change a list it did not make", id.Name, n.Op)
				}
				return target(n, n.LHS)
			case *syntax.ForStmt:
				return target(n, n.Vars)
			case *syntax.ForClause:
				return target(n, n.Vars)
			case *syntax.CallExpr:
				called[unparen(n.Fn)] = true
				return p.call(n, fn, src.Free, locals, owned, fail)
			case *syntax.DotExpr:
				// A method taken as a value (key=G.append) may be called
				// by what it is given to.
				if !called[n] && !owned(n.X) && !readMethods[n.Name.Name] {
					return fail(n, "it takes .%s of a value it did not make", n.Name.Name)
				}
			case *syntax.Ident:
				if locals[n.Name] {
					break
				}
				if !p.global(n, fn, src.Free, fail) {
					return false
				}
				if called[n] {
					break
				}
				// A function or builtin taken as a value (key=f) may be
				// called by what it is given to.
				switch v, _ := p.resolve(n.Name, fn, src.Free); v := v.(type) {
				case *starlark.Function:
					if err := p.fn(v, false); err != nil {
						return fail(n, "it takes %v", err)
					}
				case *starlark.Builtin:
					if v.Receiver() != nil || !pureBuiltins[v.Name()] && !isWordBuiltin(v.Name()) {
						return fail(n, "it takes %s, a builtin that may change what it is given or the run's state", n.Name)
					}
				}
			}
			return true
		})
	}
	return err
}

// call checks a call in fn.
func (p *pureCheck) call(n *syntax.CallExpr, fn *starlark.Function, free func(string) (starlark.Value, bool),
	locals map[string]bool, owned func(syntax.Expr) bool, fail func(syntax.Node, string, ...any) bool) bool {
	for _, a := range n.Args {
		if u, ok := a.(*syntax.UnaryExpr); ok && (u.Op == syntax.STAR || u.Op == syntax.STARSTAR) {
			return fail(n, "a call with *args or **kwargs")
		}
	}
	switch f := unparen(n.Fn).(type) {
	case *syntax.DotExpr:
		if !owned(f.X) && !readMethods[f.Name.Name] {
			return fail(n, "its method call .%s may change a value it did not make", f.Name.Name)
		}
		return true
	case *syntax.Ident:
		if locals[f.Name] {
			return fail(n, "it calls %s, a local", f.Name)
		}
		v, ok := p.resolve(f.Name, fn, free)
		switch v := v.(type) {
		case *starlark.Function:
			if err := p.fn(v, false); err != nil {
				fail(n, "it calls %v", err)
				return false
			}
			return true
		case *starlark.Builtin:
			if v.Receiver() == nil && (pureBuiltins[v.Name()] || isWordBuiltin(v.Name())) {
				return true
			}
			return fail(n, "it calls %s, a builtin that may change what it is given or the run's state", f.Name)
		}
		if !ok {
			return fail(n, "it calls %s, which is not known when it is compiled", f.Name)
		}
	}
	return fail(n, "it calls %s, which is not a function of its module or a builtin that changes nothing", describeCall(n.Fn))
}

// global notes a module's list, dict or set that id reads, or fails
// where Loop.Read refuses the global.
func (p *pureCheck) global(id *syntax.Ident, fn *starlark.Function, free func(string) (starlark.Value, bool), fail func(syntax.Node, string, ...any) bool) bool {
	v, _ := p.resolve(id.Name, fn, free)
	if r, ok := v.(compile.Refused); ok {
		return fail(id, "%s %s", id.Name, r.Reason)
	}
	if mutable(v) && !slices.Contains(p.reads, v) {
		p.reads = append(p.reads, v)
	}
	return true
}

// mutable reports whether v is a list, dict or set, or a tuple that holds
// one.
func mutable(v starlark.Value) bool {
	switch v := v.(type) {
	case *starlark.List, *starlark.Dict, *starlark.Set:
		return true
	case starlark.Tuple:
		return slices.ContainsFunc(v, mutable)
	}
	return false
}

// isWordBuiltin reports whether name is one of bitsh's word builtins.
func isWordBuiltin(name string) bool {
	_, ok := bitops.Lookup(name)
	return ok
}

// resolve looks up a name fn does not bind: its module's, then a
// predeclared or universal one, then bitsh's builtins.
func (p *pureCheck) resolve(name string, fn *starlark.Function, free func(string) (starlark.Value, bool)) (starlark.Value, bool) {
	if v, ok := free(name); ok && v != nil {
		if p.read != nil {
			v = p.read(fn, name, v)
		}
		return v, true
	}
	if m := fn.Module(); m != nil {
		if v, ok := m.Predeclared()[name]; ok {
			return v, true
		}
	}
	if v, ok := starlark.Universe[name]; ok {
		return v, true
	}
	if p.env.Builtin != nil {
		if v, ok := p.env.Builtin(name); ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// made reports whether e's value is one the function makes (a new list,
// dict, string, number ...), never a value it was given or read.
func (p *pureCheck) made(e syntax.Expr, locals, fresh map[string]bool) bool {
	switch e := unparen(e).(type) {
	case *syntax.Literal, *syntax.ListExpr, *syntax.DictExpr, *syntax.Comprehension:
		return true
	case *syntax.Ident:
		if locals[e.Name] {
			return fresh[e.Name]
		}
		return e.Name == "None" || e.Name == "True" || e.Name == "False"
	case *syntax.UnaryExpr:
		return e.Op != syntax.STAR && e.Op != syntax.STARSTAR
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.AND, syntax.OR:
			return p.made(e.X, locals, fresh) && p.made(e.Y, locals, fresh)
		}
		return true // + * % | & ... make new values; comparisons bools
	case *syntax.CondExpr:
		return p.made(e.True, locals, fresh) && p.made(e.False, locals, fresh)
	case *syntax.TupleExpr:
		for _, x := range e.List {
			if !p.made(x, locals, fresh) {
				return false
			}
		}
		return true
	case *syntax.CallExpr:
		switch f := unparen(e.Fn).(type) {
		case *syntax.Ident:
			return !locals[f.Name] && (freshBuiltins[f.Name] || isWordBuiltin(f.Name))
		case *syntax.DotExpr:
			return freshMethods[f.Name.Name]
		}
	}
	return false
}

// unparenIdent returns e without parentheses where it is a name.
func unparenIdent(e syntax.Expr) (*syntax.Ident, bool) {
	id, ok := unparen(e).(*syntax.Ident)
	return id, ok
}

// unparen returns e without its parentheses.
func unparen(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// describeCall names what a call calls, for a message.
func describeCall(e syntax.Expr) string {
	switch e := unparen(e).(type) {
	case *syntax.Ident:
		return e.Name
	case *syntax.DotExpr:
		return "." + e.Name.Name
	}
	return "a value"
}
