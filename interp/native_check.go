package interp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A NativeVerdict says whether a plain function of a file would run as
// machine code (docs/machine-code.md), as Interp.CheckNative found it
// without running the file.
type NativeVerdict struct {
	Name string
	Pos  syntax.Position // where its def is
	// Why is "" where the function runs as machine code; else the
	// reason a run's report (WithNativeReport) gives after "not
	// compiled: ", or, where Depends, what the answer depends on.
	Why     string
	Depends bool
}

// String formats the verdict as bitsh check -native prints it:
// "file:line:col: f: machine code", "file:line:col: f: interpreted:
// why" or "file:line:col: f: depends on ...".
func (v NativeVerdict) String() string {
	switch {
	case v.Why == "":
		return fmt.Sprintf("%s: %s: machine code", v.Pos, v.Name)
	case v.Depends:
		return fmt.Sprintf("%s: %s: depends on %s", v.Pos, v.Name, v.Why)
	}
	return fmt.Sprintf("%s: %s: interpreted: %s", v.Pos, v.Name, v.Why)
}

// CheckNative says, for each plain def at the top level of the file
// filename (src its text), and each def nested in one, whether a run
// would run it as machine code, compiling each as a run's first offer of
// it compiles it (builtins.CheckNative), without running the file: only
// its defs, its loads (which run the modules they load, as a run does)
// and its assignments of constants (ints, strings, and lists, tuples and
// dicts of them) run. The arguments of a first call are guessed from how
// the def uses its parameters (one indexed, iterated over or passed to
// len is a list; one whose add or get it calls is a set or dict; the
// rest are ints). A function that reads a global the file computes
// otherwise depends on its value; one refused for its shape (*args, a
// variable of an enclosing function, a default value) is refused without
// running its def. A nested def that reads no variable of the functions
// enclosing it is compiled in a module of its own (hoist). The verdicts come in the order of the
// defs. CheckNative keeps src as the interpreter's text of filename: use
// an Interp that runs nothing else of that name.
func (in *Interp) CheckNative(ctx context.Context, filename string, src []byte) ([]NativeVerdict, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	f, err := parse(&dialect, filename, src)
	if err != nil {
		return nil, err
	}
	guardRepeats(f)
	constants := map[string]bool{} // name -> whether an int
	var defs []*syntax.DefStmt
	var stmts []syntax.Stmt
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *syntax.DefStmt:
			defs = append(defs, s)
			if constantDefaults(s, constants) {
				stmts = append(stmts, s)
				continue
			} // (else refused for its default values, which the run computes)
		case *syntax.LoadStmt:
			stmts = append(stmts, s)
			continue
		case *syntax.AssignStmt:
			if id, ok := s.LHS.(*syntax.Ident); ok && s.Op == syntax.EQ {
				if ok, isInt := constant(s.RHS, constants); ok {
					constants[id.Name] = isInt
					stmts = append(stmts, s)
					continue
				}
			}
		}
		// Kept, so that the names it binds are the file's globals, but
		// never run.
		start, _ := s.Span()
		stmts = append(stmts, &syntax.IfStmt{If: start, Cond: &syntax.Ident{NamePos: start, Name: "False"}, True: []syntax.Stmt{s}})
	}
	f.Stmts = stmts
	in.src.keep(filename, src)
	r := in.newRun(ctx)
	defer r.close()
	r.stack = []string{in.clean(filename)}
	thread := r.thread(filename, 0)
	defer in.runs.Enter(thread)()
	prog, err := starlark.FileProgram(f, in.predeclared.Has)
	if err != nil {
		return nil, err
	}
	g, err := prog.Init(thread, in.predeclared)
	if err != nil {
		return nil, r.wrap(err)
	}
	var out []NativeVerdict
	check := func(d *syntax.DefStmt, fn *starlark.Function, computed []string) {
		v := NativeVerdict{Name: fn.Name(), Pos: fn.Position()}
		args, why := guessArgs(d)
		if why != "" {
			v.Why, v.Depends = "its arguments: "+why, true
		} else if why := builtins.CheckNative(thread, fn, args); why != "" {
			v.Why = why
			if len(computed) > 0 {
				v.Why, v.Depends = "the values of globals the script computes: "+strings.Join(computed, ", "), true
			}
		}
		out = append(out, v)
	}
	for _, d := range defs {
		if v, ok := refusedShape(d); ok {
			out = append(out, v)
		} else if fn, ok := g[d.Name.Name].(*starlark.Function); ok && fn.Position() == d.Def {
			check(d, fn, readsComputed(d, g)) // (not rebound by a later def of the name)
		}
		for _, n := range nestedDefs(d) {
			if v, ok := refusedShape(n); ok {
				out = append(out, v)
				continue
			}
			computed := readsComputed(n, g) // (before hoist resolves n again)
			fn, err := in.hoist(thread, n, g)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", n.Def, n.Name.Name, err)
			}
			check(n, fn, computed)
		}
	}
	slices.SortStableFunc(out, func(a, b NativeVerdict) int {
		if a.Pos.Line != b.Pos.Line {
			return int(a.Pos.Line) - int(b.Pos.Line)
		}
		return int(a.Pos.Col) - int(b.Pos.Col)
	})
	return out, nil
}

// nestedDefs returns the defs inside the def d, at any depth, in order.
func nestedDefs(d *syntax.DefStmt) []*syntax.DefStmt {
	var out []*syntax.DefStmt
	syntax.Walk(d, func(n syntax.Node) bool {
		if n, ok := n.(*syntax.DefStmt); ok && n != d {
			out = append(out, n)
		}
		return true
	})
	return out
}

// refusedShape returns the verdict of the def d where the run refuses it
// for its shape (machine.Compile's first check, in its order): *args,
// **kwargs or keyword-only parameters, a variable of a function that
// encloses it it reads, or a parameter's default value; false where it
// has none of them.
func refusedShape(d *syntax.DefStmt) (NativeVerdict, bool) {
	f, ok := d.Function.(*resolve.Function)
	if !ok {
		return NativeVerdict{}, false
	}
	v := NativeVerdict{Name: d.Name.Name, Pos: d.Def}
	switch {
	case f.HasVarargs || f.HasKwargs || f.NumKwonlyParams > 0:
		v.Why = "it takes *args, **kwargs or keyword-only parameters"
	case len(f.FreeVars) > 0:
		v.Why = fmt.Sprintf("it reads %s, a variable of the function that defines it", f.FreeVars[0].First.Name)
	default:
		for _, p := range d.Params {
			if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
				if id, ok := b.X.(*syntax.Ident); ok {
					v.Why = fmt.Sprintf("its parameter %s has a default value", id.Name)
					return v, true
				}
			}
		}
		return NativeVerdict{}, false
	}
	return v, true
}

// constantDefaults reports whether every default value of d's parameters
// is a constant (constant), which running the def may compute.
func constantDefaults(d *syntax.DefStmt, names map[string]bool) bool {
	for _, p := range d.Params {
		if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if ok, _ := constant(b.Y, names); !ok {
				return false
			}
		}
	}
	return true
}

// hoist makes the function of the nested def d, which reads no variable
// of the functions enclosing it, without running them: a module of d
// alone, whose predeclared names are the checked module's globals g (and
// its names unassigned, left so) and the interpreter's. The checked
// module's program is already compiled: resolving d again changes
// nothing of it.
func (in *Interp) hoist(thread *starlark.Thread, d *syntax.DefStmt, g starlark.StringDict) (*starlark.Function, error) {
	predeclared := starlark.StringDict{}
	for k, v := range in.predeclared {
		predeclared[k] = v
	}
	for k, v := range g {
		predeclared[k] = v
	}
	f := &syntax.File{Path: d.Def.Filename(), Stmts: []syntax.Stmt{d}, Options: &dialect}
	declared := func(name string) bool { return predeclared.Has(name) || name != d.Name.Name }
	hp, err := starlark.FileProgram(f, declared)
	if err != nil {
		return nil, err
	}
	hg, err := hp.Init(thread, predeclared)
	if err != nil {
		return nil, err
	}
	fn, ok := hg[d.Name.Name].(*starlark.Function)
	if !ok {
		return nil, errors.New("not a function")
	}
	return fn, nil
}

// constant reports whether e is a constant the check may evaluate, and
// whether it is an int: an int or string literal, a name of an earlier
// constant, a negation, a list, tuple or dict of constants, or an
// arithmetic or bitwise operator of two ints (no repeated list or string,
// which could be long; Starlark bounds a shift's count).
func constant(e syntax.Expr, names map[string]bool) (ok, isInt bool) {
	switch e := e.(type) {
	case *syntax.Literal:
		return e.Token == syntax.INT || e.Token == syntax.STRING, e.Token == syntax.INT
	case *syntax.Ident:
		isInt, ok := names[e.Name]
		return ok, isInt
	case *syntax.ParenExpr:
		return constant(e.X, names)
	case *syntax.UnaryExpr:
		ok, isInt := constant(e.X, names)
		return ok && isInt && (e.Op == syntax.MINUS || e.Op == syntax.TILDE), true
	case *syntax.ListExpr:
		return all(e.List, names), false
	case *syntax.TupleExpr:
		return all(e.List, names), false
	case *syntax.DictExpr:
		for _, x := range e.List {
			kv, isKV := x.(*syntax.DictEntry)
			if !isKV {
				return false, false
			}
			if ok, _ := constant(kv.Key, names); !ok {
				return false, false
			}
			if ok, _ := constant(kv.Value, names); !ok {
				return false, false
			}
		}
		return true, false
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASHSLASH, syntax.PERCENT,
			syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX, syntax.LTLT, syntax.GTGT:
			xok, xint := constant(e.X, names)
			yok, yint := constant(e.Y, names)
			return xok && yok && xint && yint, true
		}
	}
	return false, false
}

// all reports whether every expression of es is constant.
func all(es []syntax.Expr, names map[string]bool) bool {
	for _, e := range es {
		if ok, _ := constant(e, names); !ok {
			return false
		}
	}
	return true
}

// readsComputed returns the globals of its module that the def d reads
// and that the check left unassigned (not in g: the run computes them),
// sorted.
func readsComputed(d *syntax.DefStmt, g starlark.StringDict) []string {
	seen := map[string]bool{}
	syntax.Walk(d, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && !g.Has(id.Name) {
			if b, ok := id.Binding.(*resolve.Binding); ok && b.Scope == resolve.Global {
				seen[id.Name] = true
			}
		}
		return true
	})
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// guessArgs returns the arguments a first call of d most likely passes,
// going by how d's body uses each parameter: a list of ints where it
// indexes it, iterates over it, calls its append or pop or passes it to
// len, an empty set where it calls its add or discard, an empty dict
// where it calls its get, keys, values, items or setdefault, else an int.
// Where a parameter is a list of lists, what the code takes depends on
// what the run passes: guessArgs says so instead.
func guessArgs(d *syntax.DefStmt) (starlark.Tuple, string) {
	kinds := map[string]string{}
	var params []string
	var idents []*syntax.Ident
	for _, p := range d.Params {
		if id, ok := p.(*syntax.Ident); ok {
			params = append(params, id.Name)
			idents = append(idents, id)
			kinds[id.Name] = "int"
		}
	}
	if len(params) != len(d.Params) {
		return nil, "" // the compiler says why
	}
	param := func(e syntax.Expr) string {
		if id, ok := e.(*syntax.Ident); ok {
			if b, ok := id.Binding.(*resolve.Binding); ok && (b.Scope == resolve.Local || b.Scope == resolve.Cell) {
				if slices.Contains(idents, b.First) {
					return id.Name
				}
			}
		}
		return ""
	}
	mark := func(name, kind string) {
		if name == "" {
			return
		}
		rank := map[string]int{"int": 0, "list": 1, "list of lists": 2, "set": 3, "dict": 3}
		if rank[kind] > rank[kinds[name]] {
			kinds[name] = kind
		}
	}
	syntax.Walk(d, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DefStmt:
			return n == d
		case *syntax.IndexExpr:
			if ix, ok := n.X.(*syntax.IndexExpr); ok {
				mark(param(ix.X), "list of lists")
			}
			mark(param(n.X), "list")
		case *syntax.SliceExpr:
			mark(param(n.X), "list")
		case *syntax.ForStmt:
			mark(param(n.X), "list")
		case *syntax.ForClause:
			mark(param(n.X), "list")
		case *syntax.CallExpr:
			if id, ok := n.Fn.(*syntax.Ident); ok && id.Name == "len" && len(n.Args) == 1 {
				mark(param(n.Args[0]), "list")
			}
		case *syntax.DotExpr:
			switch n.Name.Name {
			case "append", "pop", "insert", "extend", "index", "count", "remove", "reverse", "sort":
				mark(param(n.X), "list")
			case "add", "discard":
				mark(param(n.X), "set")
			case "get", "keys", "values", "items", "setdefault":
				mark(param(n.X), "dict")
			}
		}
		return true
	})
	args := make(starlark.Tuple, len(params))
	for i, p := range params {
		switch kinds[p] {
		case "int":
			args[i] = starlark.MakeInt(0)
		case "list":
			args[i] = starlark.NewList([]starlark.Value{starlark.MakeInt(0), starlark.MakeInt(0), starlark.MakeInt(0), starlark.MakeInt(0)})
		case "set":
			args[i] = starlark.NewSet(0)
		case "dict":
			args[i] = starlark.NewDict(0)
		default:
			return nil, fmt.Sprintf("%s is a %s, and what its code takes depends on what it holds", p, kinds[p])
		}
	}
	return args, ""
}
