package machine

import (
	"sort"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Sources gives the source texts bitsh ran under a file name (newest last),
// so that the compiler can find a function's def or lambda by its
// position. The interpreter keeps them (interp/sources.go) and hands them
// over in Env.Sources.
type Sources interface {
	Texts(filename string) []string
}

// ParsedSources are Sources that also keep each text parsed in bitsh's
// dialect (nil where a text does not parse), in the order of Texts, so
// that the compiler does not parse a text again for every function.
type ParsedSources interface {
	Sources
	Files(filename string) []*syntax.File
}

// A Source is a def or lambda found in a kept text: what the compiler
// translates, and its text.
type Source struct {
	compile.Source
	Text string
}

// SourceOf returns the defs or lambdas in the kept texts that can be fn's,
// newest first: those at fn's position (a def's keyword, a lambda's), with
// fn's name and parameters, and, where several texts were kept under the
// file's name (REPL inputs, an embedder's snippets), naming every global of
// fn's module. Positions are go.starlark.net's: lines, and columns in
// runes (dialect.Offset turns one into a byte offset). Names fn does not
// bind resolve as fn resolves them, then to bitsh's builtins (builtin).
func SourceOf(srcs Sources, fn *starlark.Function, builtin func(name string) (starlark.Value, bool)) []Source {
	if srcs == nil {
		return nil
	}
	p := fn.Position()
	var out []Source
	texts := srcs.Texts(p.Filename())
	var files []*syntax.File
	if ps, ok := srcs.(ParsedSources); ok {
		files = ps.Files(p.Filename())
	}
	for i := len(texts) - 1; i >= 0; i-- {
		var file *syntax.File
		if i < len(files) {
			file = files[i]
		} else {
			file, _ = dialect.FileOptions().Parse(p.Filename(), texts[i], 0)
		}
		if file == nil {
			continue
		}
		params, body, end, node := findFunc(file, p, fn.Name())
		if node == nil || !sourceFits(fn, file, params, len(texts) > 1) {
			continue
		}
		start, stop := node.Span()
		out = append(out, Source{Source: compile.Source{Name: fn.Name(), Params: params, Body: body, End: end,
			Free: freeOf(fn, builtin), Builtin: builtinOf(fn)}, Text: sliceText(texts[i], start, stop)})
	}
	return out
}

// freeOf resolves the names fn does not bind: its free variables, its
// module's globals and predeclared names, then bitsh's builtins.
func freeOf(fn *starlark.Function, builtin func(name string) (starlark.Value, bool)) func(string) (starlark.Value, bool) {
	return func(name string) (starlark.Value, bool) {
		for j := 0; j < fn.NumFreeVars(); j++ {
			if b, v := fn.FreeVar(j); b.Name == name {
				return v, true
			}
		}
		if v, ok := moduleName(fn, name); ok {
			return v, true
		}
		if builtin != nil {
			if v, ok := builtin(name); ok && v != nil {
				return v, true
			}
		}
		return nil, false
	}
}

// builtinOf reports whether name, called in fn, is bitsh's builtin (and not
// a script's own function of the same name).
func builtinOf(fn *starlark.Function) func(string) bool {
	return func(name string) bool {
		for j := 0; j < fn.NumFreeVars(); j++ {
			if b, _ := fn.FreeVar(j); b.Name == name {
				return false
			}
		}
		if v, ok := moduleName(fn, name); ok {
			bi, isB := v.(*starlark.Builtin)
			return isB && bi.Name() == name
		}
		return true
	}
}

// moduleName looks name up in fn's module: its globals, then the names
// predeclared for it, leaving out a predeclared builtin of that very name
// (bitsh's own, which the fuse compiler knows by its name). A lambda of a
// REPL input that is an expression (an interactive session evaluates
// those with starlark.EvalExprOptions) has the session's globals as its
// module's predeclared names, not as its globals.
func moduleName(fn *starlark.Function, name string) (starlark.Value, bool) {
	if v, ok := fn.Globals()[name]; ok {
		return v, true
	}
	if m := fn.Module(); m != nil {
		if v, ok := m.Predeclared()[name]; ok {
			if b, isB := v.(*starlark.Builtin); isB && b.Name() == name {
				return nil, false
			}
			return v, true
		}
	}
	return nil, false
}

// sourceFits reports whether a def or lambda found in file can be fn's: the
// same parameters, and, where several texts were kept under the file's
// name (REPL inputs, an embedder's snippets), every global of fn's module
// named in the file. With one text, the def of fn's name and parameters
// at fn's place is fn's, and the names are not compared: that walks the
// whole file and reads every global, which, for each of the thousands of
// defs of a long file offered to run as code, made offering them
// quadratic in the file.
func sourceFits(fn *starlark.Function, file *syntax.File, params []*syntax.Ident, several bool) bool {
	if len(params) != fn.NumParams() {
		return false
	}
	for i, id := range params {
		if name, _ := fn.Param(i); name != id.Name {
			return false
		}
	}
	if !several {
		return true
	}
	idents := map[string]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			idents[id.Name] = true
		}
		return true
	})
	for name := range fn.Globals() {
		// Names that are not identifiers (the interpreter's own, such as
		// the guard it puts on [x] * n) are never in a text.
		if !idents[name] && !strings.Contains(name, ".") {
			return false
		}
	}
	return true
}

// findFunc finds the def or lambda that starts at p. It walks only the
// top-level statement that holds p (found by a binary search: a file's
// statements are in order), so that a file of many thousands of defs does
// not cost a walk of the whole file for each.
func findFunc(file *syntax.File, p syntax.Position, name string) (params []*syntax.Ident, body []syntax.Stmt, end syntax.Position, node syntax.Node) {
	before := func(a, b syntax.Position) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	i := sort.Search(len(file.Stmts), func(i int) bool {
		start, _ := file.Stmts[i].Span()
		return before(p, start)
	})
	if i == 0 {
		return
	}
	syntax.Walk(file.Stmts[i-1], func(n syntax.Node) bool {
		if node != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.DefStmt:
			if n.Def.Line == p.Line && n.Def.Col == p.Col && n.Name.Name == name {
				node, body = n, n.Body
				params = IdentParams(n.Params)
				_, end = n.Span()
			}
		case *syntax.LambdaExpr:
			if n.Lambda.Line == p.Line && n.Lambda.Col == p.Col && name == "lambda" {
				node = n
				params = IdentParams(n.Params)
				body = LambdaBody(n)
				_, end = n.Span()
			}
		}
		return true
	})
	return
}

// LambdaBody is a lambda's body as a def's: a return of its expression.
func LambdaBody(lam *syntax.LambdaExpr) []syntax.Stmt {
	start, _ := lam.Body.Span()
	return []syntax.Stmt{&syntax.ReturnStmt{Return: start, Result: lam.Body}}
}

// IdentParams returns a def's parameters as identifiers ("?" for one that
// is not: a default or a *args, refused before it is compiled).
func IdentParams(ps []syntax.Expr) []*syntax.Ident {
	var out []*syntax.Ident
	for _, p := range ps {
		if id, ok := p.(*syntax.Ident); ok {
			out = append(out, id)
		} else {
			out = append(out, &syntax.Ident{Name: "?"})
		}
	}
	return out
}

// sliceText returns the text between two positions of src (columns in
// runes, as go.starlark.net counts them).
func sliceText(src string, start, end syntax.Position) string {
	b := []byte(src)
	from, to := dialect.Offset(b, start), dialect.Offset(b, end)
	return strings.TrimRight(src[from:max(from, to)], "\n")
}
