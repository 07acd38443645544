package tooling

import (
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Positions in this file are as go.starlark.net counts them: line and
// column from 1, the column in code points.

// at returns what the cursor at line, col is on: the identifier (nil for
// none), and when that identifier is the member of a predeclared module
// (chess.ray), its dotted name; or the load statement whose module string
// the cursor is on.
func (m *Module) at(line, col int) (id *syntax.Ident, dotted string, load *syntax.LoadStmt) {
	if m.File == nil {
		return nil, "", nil
	}
	in := func(p syntax.Position, n int) bool {
		return int(p.Line) == line && int(p.Col) <= col && col <= int(p.Col)+n
	}
	syntax.Walk(m.File, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LoadStmt:
			if in(n.Module.TokenPos, len([]rune(n.Module.Raw))) {
				load = n
			}
		case *syntax.DotExpr:
			if in(n.Name.NamePos, len([]rune(n.Name.Name))) {
				if mod := predeclaredName(n.X); mod != "" {
					dotted = mod + "." + n.Name.Name
					id = n.Name
				}
				return false
			}
		case *syntax.Ident:
			if in(n.NamePos, len([]rune(n.Name))) {
				id = n
			}
		}
		return true
	})
	return id, dotted, load
}

// Hover returns the help text of what the cursor is on: a builtin, a
// module or its member, a def of the file or one it loads (its signature
// and docstring).
func (m *Module) Hover(line, col int) (string, bool) {
	id, dotted, load := m.at(line, col)
	switch {
	case load != nil:
		if strings.HasPrefix(load.ModuleName(), interp.StdlibPrefix) {
			return Doc(load.ModuleName())
		}
		return "", false
	case dotted != "":
		return Doc(dotted)
	case id == nil:
		return "", false
	}
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil {
		return "", false
	}
	switch b.Scope {
	case resolve.Predeclared, resolve.Universal:
		return Doc(id.Name)
	}
	if lm, def := m.follow(b); def != nil {
		return lm.defDoc(def), true
	}
	return "", false
}

// follow returns the def a binding names, following a load into the
// loaded module (and its own loads), with the module that holds it.
func (m *Module) follow(b *resolve.Binding) (*Module, *syntax.DefStmt) {
	for range 16 { // loads of loads; a cycle stops here
		b = m.origin(b)
		if def, ok := m.defs[b].(*syntax.DefStmt); ok {
			return m, def
		}
		ln, ok := m.loads[b]
		if !ok {
			return nil, nil
		}
		lm := m.LoadedModule(ln.module)
		if lm == nil {
			return nil, nil
		}
		gb := lm.global(ln.name)
		if gb == nil {
			return nil, nil
		}
		m, b = lm, gb
	}
	return nil, nil
}

// origin returns the binding of the file's block that b, the binding of
// a use, stands for: inside a def or lambda the resolver gives a loaded
// name (or a local def of an enclosing function) a free binding of its
// own, with the same first occurrence, while defs and loads are keyed by
// the original.
func (m *Module) origin(b *resolve.Binding) *resolve.Binding {
	if b.Scope != resolve.Free {
		return b
	}
	for lb := range m.loads {
		if lb.First == b.First {
			return lb
		}
	}
	for db := range m.defs {
		if db.First == b.First {
			return db
		}
	}
	return b
}

// global returns the binding of a global (or a loaded name) of the module.
func (m *Module) global(name string) *resolve.Binding {
	if m.File == nil {
		return nil
	}
	rm, ok := m.File.Module.(*resolve.Module)
	if !ok {
		return nil
	}
	for _, b := range rm.Globals {
		if b.First.Name == name {
			return b
		}
	}
	for b := range m.loads {
		if b.First.Name == name {
			return b
		}
	}
	return nil
}

// defDoc is what help prints for a def: its signature, then its docstring.
func (m *Module) defDoc(def *syntax.DefStmt) string {
	doc, ok := dialect.Docstring(def.Body)
	if !ok {
		doc = "(no docstring)"
	}
	return m.defSignature(def).Text + "\n" + doc
}

// defSignature returns a def's parameters as written.
func (m *Module) defSignature(def *syntax.DefStmt) Signature {
	params := dialect.DefParams(def, m.Src)
	sig := Signature{Name: def.Name.Name, Text: dialect.Signature(def.Name.Name, params)}
	for _, p := range params {
		switch {
		case p.StarStar:
			sig.AnyKeyword = true
		case p.Star:
			sig.Variadic = sig.Variadic || p.Name != ""
		default:
			sig.Params = append(sig.Params, Param{Name: p.Name, Default: p.Default})
		}
	}
	return sig
}

// A Location is a position in a module: File is its file name as the
// checker knows it (a path, or "@stdlib/x.star").
type Location struct {
	File string
	Pos  syntax.Position
}

// Definition returns where the name under the cursor is defined: its
// first binding in the file, or the def or assignment in the module a
// load takes it from; on a load's module string, the module's start.
func (m *Module) Definition(line, col int) (Location, bool) {
	id, dotted, load := m.at(line, col)
	if load != nil {
		lm := m.LoadedModule(load.ModuleName())
		if lm == nil {
			return Location{}, false
		}
		return Location{File: lm.Name, Pos: syntax.MakePosition(&lm.Name, 1, 1)}, true
	}
	if id == nil || dotted != "" {
		return Location{}, false
	}
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil || b.First == nil || b.Scope == resolve.Predeclared || b.Scope == resolve.Universal {
		return Location{}, false
	}
	cur := m
	for range 16 {
		b = cur.origin(b)
		ln, ok := cur.loads[b]
		if !ok {
			break
		}
		lm := cur.LoadedModule(ln.module)
		if lm == nil {
			break
		}
		gb := lm.global(ln.name)
		if gb == nil || gb.First == nil {
			break
		}
		cur, b = lm, gb
	}
	return Location{File: cur.Name, Pos: b.First.NamePos}, true
}

// A Completion is one candidate for the word at the cursor.
type Completion struct {
	Label  string
	Kind   CompletionKind
	Detail string // a signature, or the first line of help
}

// CompletionKind says what a completion names.
type CompletionKind int

// The kinds of completions.
const (
	Variable CompletionKind = iota
	Function
	ModuleKind
	Keyword
	Argument // a keyword argument: "width="
)

// Complete returns the completions of the word before the cursor in src,
// the text being edited (m may be the last analysis of it that parsed):
// after "mod." the members of a predeclared module; else the names in
// scope (the file's globals, the enclosing def's parameters and locals,
// predeclared and Starlark's names, keywords) and, inside a call's
// parentheses, the callee's keyword arguments. Candidates are picked by
// the rule every completer shares (interp.MatchCompletions).
func (m *Module) Complete(src []byte, line, col int) []Completion {
	text := string(src)
	off := offsetOf(text, syntax.MakePosition(nil, int32(line), int32(col)))
	i := off
	for i > 0 && isWordByte(text[i-1]) {
		i--
	}
	word := text[i:off]
	if word != "" && word[0] >= '0' && word[0] <= '9' {
		return nil
	}
	var out []Completion
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		mod, partial := word[:dot], word[dot+1:]
		v, ok := m.predeclared[mod]
		if !ok || m.global(mod) != nil {
			return nil
		}
		ha, ok := v.(starlark.HasAttrs)
		if !ok {
			return nil
		}
		for _, n := range interp.MatchCompletions(ha.AttrNames(), partial) {
			c := Completion{Label: n, Kind: Function}
			if doc, ok := Doc(mod + "." + n); ok {
				c.Detail, _, _ = strings.Cut(doc, "\n")
			}
			out = append(out, c)
		}
		return out
	}
	kinds := map[string]CompletionKind{}
	for n, v := range m.predeclared {
		kinds[n] = kindOf(v)
	}
	for n, v := range starlark.Universe {
		kinds[n] = kindOf(v)
	}
	for _, k := range interp.Keywords() {
		kinds[k] = Keyword
	}
	if m.File != nil {
		if rm, ok := m.File.Module.(*resolve.Module); ok {
			for _, b := range rm.Globals {
				kinds[b.First.Name] = Variable
			}
		}
		for b, def := range m.defs {
			if _, ok := def.(*syntax.DefStmt); ok && b.Scope == resolve.Global {
				kinds[b.First.Name] = Function
			}
		}
		for b := range m.loads {
			kinds[b.First.Name] = Variable
		}
		if def := m.enclosingDef(line); def != nil {
			if fn, ok := def.Function.(*resolve.Function); ok {
				for _, b := range fn.Locals {
					kinds[b.First.Name] = Variable
				}
			}
		}
	}
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	if callee, _, ok := enclosingCall(text, i); ok {
		if sig, ok := m.signatureOf(callee); ok {
			for _, p := range sig.Params {
				names = append(names, p.Name+"=")
				kinds[p.Name+"="] = Argument
			}
		}
	}
	for _, n := range interp.MatchCompletions(names, word) {
		c := Completion{Label: n, Kind: kinds[n]}
		if c.Kind == Function {
			if sig, ok := m.signatureOf(n); ok {
				c.Detail = sig.Text
			}
		}
		out = append(out, c)
	}
	// Keyword arguments first: they are what a call's parentheses want.
	slices.SortStableFunc(out, func(a, b Completion) int {
		return boolInt(b.Kind == Argument) - boolInt(a.Kind == Argument)
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func kindOf(v starlark.Value) CompletionKind {
	switch v.(type) {
	case starlark.Callable:
		return Function
	case starlark.HasAttrs:
		return ModuleKind
	}
	return Variable
}

func isWordByte(b byte) bool {
	return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// enclosingDef returns the innermost def whose lines hold line.
func (m *Module) enclosingDef(line int) *syntax.DefStmt {
	var found *syntax.DefStmt
	syntax.Walk(m.File, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.DefStmt); ok {
			start, end := d.Span()
			if int(start.Line) <= line && line <= int(end.Line) {
				found = d
			}
		}
		return true
	})
	return found
}

// signatureOf returns the signature of a callee name as the file sees it:
// its own def, a loaded def, else a builtin or module member.
func (m *Module) signatureOf(name string) (Signature, bool) {
	if m.File != nil && !strings.Contains(name, ".") {
		if b := m.global(name); b != nil {
			if lm, def := m.follow(b); def != nil {
				sig := lm.defSignature(def)
				sig.Doc = lm.defDoc(def)
				return sig, true
			}
			return Signature{}, false
		}
	}
	return BuiltinSignature(name)
}

// SignatureHelp returns the signature of the call whose parentheses hold
// the cursor in src (the text being edited), and the index of the
// parameter the cursor is in.
func (m *Module) SignatureHelp(src []byte, line, col int) (Signature, int, bool) {
	text := string(src)
	off := offsetOf(text, syntax.MakePosition(nil, int32(line), int32(col)))
	callee, arg, ok := enclosingCall(text, off)
	if !ok {
		return Signature{}, 0, false
	}
	sig, ok := m.signatureOf(callee)
	return sig, arg, ok
}

// enclosingCall scans src back from off to the open parenthesis of the
// call that holds off, and returns the callee's (dotted) name and how many
// arguments precede the cursor. Strings are not parsed: a bracket inside
// one on the way may mislead it, as it would a reader skimming the line.
func enclosingCall(src string, off int) (callee string, arg int, ok bool) {
	depth := 0
	for i := off - 1; i >= 0 && off-i < 4096; i-- {
		switch src[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return "", 0, false
			}
			depth--
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := i
			for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
				j--
			}
			k := j
			for k > 0 && isWordByte(src[k-1]) {
				k--
			}
			name := strings.Trim(src[k:j], ".")
			if name == "" || name[0] >= '0' && name[0] <= '9' {
				return "", 0, false
			}
			return name, arg, true
		case ',':
			if depth == 0 {
				arg++
			}
		}
	}
	return "", 0, false
}
