package builtins

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/stdlib"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// help prints a docstring. Lookup, by value or by name: the registry
// (builtins, and modules registered with a Value and a Doc, such as random
// and chess), Starlark's universal builtins, go.starlark.net's modules,
// a module's member (its line of the module's doc), a stdlib module.
func help(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name?", &name); err != nil {
		return nil, err
	}
	w := Stdout(thread)
	if name == starlark.None {
		writeIndex(w)
		return starlark.None, nil
	}
	doc, err := docOf(name)
	if err != nil {
		return nil, fmt.Errorf("help: %v", err)
	}
	fmt.Fprintln(w, strings.TrimSpace(doc))
	return starlark.None, nil
}

// Doc returns what help(v) prints: the docstring of a value (a builtin, a
// module, a Starlark function with its signature, a fused value) or of a
// name given as a string ("popcount", "chess.ray", "@stdlib/board.star").
func Doc(v starlark.Value) (string, error) {
	doc, err := docOf(v)
	return strings.TrimSpace(doc), err
}

// docOf finds the docstring of a value or of a name.
func docOf(v starlark.Value) (string, error) {
	var key string
	switch v := v.(type) {
	case interface{ HelpText() string }: // a fused value: its source
		return v.HelpText(), nil
	case starlark.String:
		key = string(v)
		if file, ok := strings.CutPrefix(key, dialect.StdlibPrefix); ok {
			return stdlib.Doc(file)
		}
	case *starlark.Function:
		doc := dialect.CleanDoc(v.Doc())
		if doc == "" {
			doc = "(no docstring)"
		}
		return signature(v) + "\n" + doc, nil
	case *starlark.Builtin:
		key = v.Name()
		if e, ok := registry[key]; ok && e.Fn != nil {
			// math.round and math.pow share their names with builtins:
			// those fall through to the module lookup below.
			if memberKey(v) == "" {
				return e.Doc, nil
			}
		}
		if _, ok := universeDocs[key]; !ok || starlark.Universe[key] != v {
			// A module's member: find which module holds this very builtin.
			if k := memberKey(v); k != "" {
				key = k
			}
		}
	default:
		// A constant (U64) or a module, passed by value.
		for _, e := range registry {
			if e.Value != nil && sameValue(e.Value, v) {
				return e.Doc, nil
			}
		}
		for _, m := range moduleDocs {
			if m.value == v {
				return m.doc, nil
			}
		}
		if m, ok := v.(*starlarkstruct.Module); ok {
			key = m.Name
		} else {
			return "", fmt.Errorf("name: got %s, want a string, a builtin or a module", v.Type())
		}
	}
	if d, ok := memberDocs[key]; ok { // a module member with its own docstring: "chess.ray"
		return "chess." + d, nil
	}
	if e, ok := registry[key]; ok {
		return e.Doc, nil
	}
	if d, ok := universeDocs[key]; ok {
		return d, nil
	}
	if m, ok := moduleDocs[key]; ok {
		return m.doc, nil
	}
	if mod, member, ok := strings.Cut(key, "."); ok {
		var doc string
		if e, ok := registry[mod]; ok && e.Value != nil {
			doc = e.Doc
		} else if m, ok := moduleDocs[mod]; ok {
			doc = m.doc
		}
		if doc != "" {
			if line := memberLine(doc, mod, member); line != "" {
				return line, nil
			}
			return doc, nil
		}
	}
	return "", fmt.Errorf("name = %s is not a bitsh builtin, a Starlark builtin or a module (help() lists them)", Short(starlark.String(key)))
}

// sameValue compares by identity for reference types and by value for
// the rest (U64), without failing on values that cannot be compared.
func sameValue(a, b starlark.Value) bool {
	if _, ok := a.(starlark.Int); ok {
		eq, err := starlark.Equal(a, b)
		return err == nil && eq
	}
	return a == b
}

// memberKey returns "module.member" for a builtin that is a member of a
// documented module, or "".
func memberKey(b *starlark.Builtin) string {
	mods := map[string]starlark.Value{}
	for name, m := range moduleDocs {
		mods[name] = m.value
	}
	for name, e := range registry {
		if e.Value != nil {
			mods[name] = e.Value
		}
	}
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ha, ok := mods[n].(starlark.HasAttrs)
		if !ok {
			continue
		}
		for _, attr := range ha.AttrNames() {
			if v, err := ha.Attr(attr); err == nil && v == starlark.Value(b) {
				return n + "." + attr
			}
		}
	}
	return ""
}

// memberLine returns the lines of a module's doc that describe member:
// the line naming module.member (or member) first, with the more indented
// lines that continue it.
func memberLine(doc, mod, member string) string {
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, mod+"."+member) && !strings.HasPrefix(t, member+"(") {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(t, mod+"."), member)
		if rest != "" && !strings.ContainsAny(rest[:1], "( ,") {
			continue // math.sin, not math.sinh
		}
		out := []string{t}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for _, c := range lines[i+1:] {
			if len(c)-len(strings.TrimLeft(c, " ")) <= indent+2 || strings.TrimSpace(c) == "" {
				break
			}
			out = append(out, strings.TrimSpace(c))
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// writeIndexMore ends help()'s index with what else help(name) knows.
func writeIndexMore(w io.Writer) {
	var names, mods []string
	for n := range universeDocs {
		if _, replaced := registry[n]; !replaced {
			names = append(names, n)
		}
	}
	for n := range moduleDocs {
		mods = append(mods, n)
	}
	for n, e := range registry {
		if _, ok := e.Value.(*starlarkstruct.Module); ok {
			mods = append(mods, n)
		}
	}
	sort.Strings(names)
	sort.Strings(mods)
	fmt.Fprintf(w, "\nStarlark's own: %s.\n", strings.Join(names, " "))
	fmt.Fprintf(w, "Modules: %s. Stdlib: %s.\n", strings.Join(mods, " "), strings.Join(stdlib.Modules(), " "))
	fmt.Fprintf(w, "\nhelp(name) prints the full docstring of any of these; help(%q) a stdlib module's.\n", dialect.StdlibPrefix+"board.star")
}

// signature writes a Starlark function's parameters as its def does.
func signature(fn *starlark.Function) string {
	n := fn.NumParams()
	var varargs, kwargs string
	if fn.HasKwargs() {
		n--
		kwargs, _ = fn.Param(n)
	}
	if fn.HasVarargs() {
		n--
		varargs, _ = fn.Param(n)
	}
	kwonly := fn.NumKwonlyParams()
	param := func(i int) dialect.Param {
		name, _ := fn.Param(i)
		if d := fn.ParamDefault(i); d != nil {
			return dialect.Param{Name: name, Default: d.String()}
		}
		return dialect.Param{Name: name}
	}
	var params []dialect.Param
	for i := 0; i < n-kwonly; i++ {
		params = append(params, param(i))
	}
	if varargs != "" || kwonly > 0 {
		params = append(params, dialect.Param{Name: varargs, Star: true})
	}
	for i := n - kwonly; i < n; i++ {
		params = append(params, param(i))
	}
	if kwargs != "" {
		params = append(params, dialect.Param{Name: kwargs, StarStar: true})
	}
	return dialect.Signature(fn.Name(), params)
}
