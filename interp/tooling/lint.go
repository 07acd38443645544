package tooling

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/bitops"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// lint checks what the resolver does not: calls of builtins with the
// wrong number of arguments or unknown keywords, members that a
// predeclared module (chess, math, ...) does not have, and functions
// passed to fuse that fuse cannot compile.
func (m *Module) lint() {
	syntax.Walk(m.File, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			m.lintCall(n)
		case *syntax.DotExpr:
			m.lintMember(n)
		}
		return true
	})
}

// predeclaredName returns the name an identifier refers to when it is a
// predeclared or universal name (not shadowed by the file), else "".
func predeclaredName(e syntax.Expr) string {
	id, ok := e.(*syntax.Ident)
	if !ok {
		return ""
	}
	b, ok := id.Binding.(*resolve.Binding)
	if !ok || b.Scope != resolve.Predeclared && b.Scope != resolve.Universal {
		return ""
	}
	return id.Name
}

// lintMember reports X.name where X is a predeclared module without name.
func (m *Module) lintMember(d *syntax.DotExpr) {
	mod := predeclaredName(d.X)
	if mod == "" {
		return
	}
	v, ok := m.predeclared[mod]
	if !ok {
		return
	}
	ha, ok := v.(starlark.HasAttrs)
	if !ok {
		return
	}
	names := m.c.memberNames(mod, ha)
	if _, found := slices.BinarySearch(names, d.Name.Name); found {
		return
	}
	msg := fmt.Sprintf("%s has no member %s", mod, d.Name.Name)
	if near := nearest(d.Name.Name, names); near != "" {
		msg += fmt.Sprintf(" (did you mean %s.%s?)", mod, near)
	}
	m.add(d.Name.NamePos, Error, msg)
}

// nearest returns the name of names that starts like name, or "".
func nearest(name string, names []string) string {
	best, bestLen := "", 2
	for _, n := range names {
		k := 0
		for k < len(n) && k < len(name) && n[k] == name[k] {
			k++
		}
		if k > bestLen || k == bestLen && best == "" {
			best, bestLen = n, k
		}
	}
	return best
}

// lintCall checks a call of a predeclared function against its signature,
// and the function passed to fuse.
func (m *Module) lintCall(call *syntax.CallExpr) {
	name := predeclaredName(call.Fn)
	if d, ok := call.Fn.(*syntax.DotExpr); ok {
		if mod := predeclaredName(d.X); mod != "" {
			name = mod + "." + d.Name.Name
		}
	}
	if name == "" {
		return
	}
	// Starlark's own builtins have several forms (range(stop),
	// range(start, stop)): only bitsh's are checked.
	b, isBitsh := builtins.Lookup(name)
	checked := isBitsh && b.Fn != nil || strings.Contains(name, ".")
	if !checked {
		return
	}
	if sig, ok := m.c.signature(name); ok {
		if msg := sig.checkCall(call); msg != "" {
			start, _ := call.Span()
			m.add(start, Error, msg)
		}
	}
	if name == "fuse" && len(call.Args) > 0 {
		m.lintFuse(call.Args[0])
	}
}

// checkCall returns what is wrong with the arguments of call, or "".
func (s Signature) checkCall(call *syntax.CallExpr) string {
	if s.Variadic {
		return ""
	}
	positional := 0
	seen := map[string]bool{}
	for _, a := range call.Args {
		switch a := a.(type) {
		case *syntax.UnaryExpr: // *args or **kwargs: the count is unknown
			if a.Op == syntax.STAR || a.Op == syntax.STARSTAR {
				return ""
			}
			positional++
		case *syntax.BinaryExpr:
			if a.Op != syntax.EQ {
				positional++
				continue
			}
			kw := a.X.(*syntax.Ident).Name
			i := s.index(kw)
			if i < 0 && !s.AnyKeyword {
				return fmt.Sprintf("%s: unexpected keyword argument %s (%s)", s.Name, kw, s.Label())
			}
			if i >= 0 && i < positional {
				return fmt.Sprintf("%s: got multiple values for parameter %s", s.Name, kw)
			}
			seen[kw] = true
		default:
			positional++
		}
	}
	if positional > len(s.Params) {
		return fmt.Sprintf("%s: got %d arguments, want at most %d (%s)", s.Name, positional, len(s.Params), s.Label())
	}
	for i, p := range s.Params {
		if p.Default == "" && i >= positional && !seen[p.Name] {
			return fmt.Sprintf("%s: missing argument for %s (%s)", s.Name, p.Name, s.Label())
		}
	}
	return ""
}

// lintFuse compiles the def or lambda passed to fuse with fuse's own
// compiler and reports its error where the error is.
func (m *Module) lintFuse(arg syntax.Expr) {
	var fn syntax.Node
	switch a := arg.(type) {
	case *syntax.LambdaExpr:
		fn = a
	case *syntax.Ident:
		if b, ok := a.Binding.(*resolve.Binding); ok {
			fn = m.defs[b]
		}
	}
	if fn == nil {
		return
	}
	values := m.globalValues()
	defined := m.definedNames()
	free := func(name string) (starlark.Value, bool) {
		if v, ok := values[name]; ok {
			return v, true
		}
		if defined[name] {
			return starlark.MakeInt(1), true // a value known only when the script runs
		}
		if b, ok := builtins.Lookup(name); ok && b.Value != nil {
			return b.Value, true
		}
		return nil, false
	}
	callable := func(name string) bool { return !defined[name] }
	defs := func(name string) (*syntax.DefStmt, bool) {
		for b, d := range m.defs {
			if d, ok := d.(*syntax.DefStmt); ok && b.Scope == resolve.Global && d.Name.Name == name {
				return d, true
			}
		}
		return nil, false
	}
	pos, err := builtins.CheckFuse(fn, free, callable, defs)
	if err == nil {
		return
	}
	if pos.Line == 0 {
		pos, _ = fn.Span()
	}
	m.add(pos, Error, err.Error())
}

// globalValues returns the values of the globals that the file assigns
// once, at top level, from a literal: what fuse would read for them.
func (m *Module) globalValues() map[string]starlark.Value {
	count := map[string]int{}
	values := map[string]starlark.Value{}
	for _, stmt := range m.File.Stmts {
		a, ok := stmt.(*syntax.AssignStmt)
		if !ok {
			continue
		}
		id, ok := a.LHS.(*syntax.Ident)
		if !ok {
			continue
		}
		count[id.Name]++
		if v := literalValue(a.RHS); v != nil && a.Op == syntax.EQ {
			values[id.Name] = v
		}
	}
	for name, n := range count {
		if n > 1 {
			delete(values, name)
		}
	}
	return values
}

// literalValue returns the value of a literal expression whose type fuse
// judges, or nil.
func literalValue(e syntax.Expr) starlark.Value {
	switch e := e.(type) {
	case *syntax.Literal:
		switch v := e.Value.(type) {
		case int64:
			return starlark.MakeInt64(v)
		case string:
			return starlark.String(v)
		case *big.Int:
			return starlark.MakeBigInt(v)
		}
	case *syntax.ListExpr:
		// Its elements where they are literals fuse reads (a table, rows
		// of one: len(T[i]) needs them), else an empty list.
		if elems, ok := literalValues(e.List); ok {
			return starlark.NewList(elems)
		}
		return starlark.NewList(nil)
	case *syntax.DictExpr:
		return starlark.NewDict(0)
	case *syntax.TupleExpr:
		if elems, ok := literalValues(e.List); ok {
			return starlark.Tuple(elems)
		}
		return starlark.Tuple{}
	case *syntax.UnaryExpr:
		if e.Op == syntax.MINUS {
			if v, ok := literalValue(e.X).(starlark.Int); ok {
				return starlark.MakeInt(0).Sub(v)
			}
		}
	}
	return nil
}

// literalValues returns the values of list, each an int literal or a
// list or tuple of those, or false where one is anything else.
func literalValues(list []syntax.Expr) ([]starlark.Value, bool) {
	out := make([]starlark.Value, len(list))
	for i, x := range list {
		for {
			p, ok := x.(*syntax.ParenExpr)
			if !ok {
				break
			}
			x = p.X
		}
		switch x := x.(type) {
		case *syntax.ListExpr:
			elems, ok := literalValues(x.List)
			if !ok {
				return nil, false
			}
			out[i] = starlark.NewList(elems)
		case *syntax.TupleExpr:
			elems, ok := literalValues(x.List)
			if !ok {
				return nil, false
			}
			out[i] = starlark.Tuple(elems)
		default:
			v, ok := literalValue(x).(starlark.Int)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
	}
	return out, true
}

// definedNames returns every name the file binds (globals, locals,
// parameters, loads).
func (m *Module) definedNames() map[string]bool {
	out := map[string]bool{}
	syntax.Walk(m.File, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			if b, ok := id.Binding.(*resolve.Binding); ok && b.Scope != resolve.Predeclared && b.Scope != resolve.Universal {
				out[id.Name] = true
			}
		}
		return true
	})
	return out
}

// A Signature is a function's parameters as its doc or def declares them.
type Signature struct {
	Name   string
	Params []Param
	// Variadic is set when the parameters cannot be checked (a "..."
	// signature, or *args).
	Variadic bool
	// AnyKeyword is set when the function takes **kwargs.
	AnyKeyword bool
	Text       string // the signature as written: "rotl(x, k, width=64)"
	Doc        string // the help text
}

// A Param is one named parameter; Default is its default's text ("" for a
// required parameter).
type Param struct {
	Name, Default string
}

// Label returns the signature as written.
func (s Signature) Label() string { return s.Text }

func (s Signature) index(name string) int {
	for i, p := range s.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// BuiltinSignature returns the signature of a builtin or a module member
// ("popcount", "chess.ray"): a word builtin's from its declaration in
// bitops, another's from the first line of its help text.
func BuiltinSignature(name string) (Signature, bool) {
	doc, ok := Doc(name)
	if !ok {
		return Signature{}, false
	}
	first, _, _ := strings.Cut(doc, "\n")
	first = strings.TrimSpace(first)
	if d, ok := bitops.Lookup(name); ok { // a word builtin: its declaration
		sig := Signature{Name: name, Text: first, Doc: doc}
		for _, p := range d.Params {
			q := Param{Name: p.Name}
			if p.Optional {
				q.Default = p.DefaultText()
			}
			sig.Params = append(sig.Params, q)
		}
		return sig, true
	}
	short := name[strings.LastIndexByte(name, '.')+1:]
	text := first
	if rest, ok := strings.CutPrefix(first, name); ok && strings.HasPrefix(rest, "(") {
		text = short + rest
	} else if !strings.HasPrefix(first, short+"(") {
		return Signature{}, false
	}
	sig, ok := parseSignature(text)
	if !ok {
		return Signature{}, false
	}
	sig.Name, sig.Doc = name, doc
	return sig, true
}

// parseSignature reads "name(a, b=1, *args, **kw)" up to its closing
// parenthesis.
func parseSignature(text string) (Signature, bool) {
	open := strings.IndexByte(text, '(')
	if open < 0 {
		return Signature{}, false
	}
	depth, end := 0, -1
	var quote byte
	var parts []string
	start := open + 1
	for i := open; i < len(text) && end < 0; i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 {
				end = i
				parts = append(parts, text[start:i])
			}
		case c == ',' && depth == 1:
			parts = append(parts, text[start:i])
			start = i + 1
		}
	}
	if end < 0 {
		return Signature{}, false
	}
	sig := Signature{Name: text[:open], Text: text[:end+1]}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case p == "...":
			sig.Variadic = true
		case p == "*": // keyword-only parameters follow
		case strings.HasPrefix(p, "**"):
			sig.AnyKeyword = true
		case strings.HasPrefix(p, "*"):
			sig.Variadic = true
		default:
			name, def, _ := strings.Cut(p, "=")
			sig.Params = append(sig.Params, Param{Name: strings.TrimSpace(name), Default: strings.TrimSpace(def)})
		}
	}
	return sig, true
}
