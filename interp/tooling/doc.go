package tooling

import (
	"strings"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// Doc returns what help(name) prints for a name that needs no running
// script: a bitsh builtin, a Starlark builtin, a module ("chess"), a
// module's member ("chess.ray"), a stdlib module ("@stdlib/board.star").
func Doc(name string) (string, bool) {
	doc, err := builtins.Doc(starlark.String(name))
	if err != nil || doc == "" {
		return "", false
	}
	if mod, _, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "@") {
		// help falls back to the module's doc for a member it cannot
		// find: that is no member's doc.
		if modDoc, err := builtins.Doc(starlark.String(mod)); err == nil && modDoc == doc {
			return "", false
		}
	}
	return doc, true
}

// DocOf returns what help prints for name in an interpreter's session:
// the value a global of that name holds (a def shows its signature and
// docstring, a module its doc), else Doc(name). The notebook kernel's
// inspection answers with it.
func DocOf(in *interp.Interp, name string) (string, bool) {
	if v, ok := in.Globals()[name]; ok {
		if doc, err := builtins.Doc(v); err == nil && doc != "" {
			return doc, true
		}
	}
	if !strings.Contains(name, ".") {
		return Doc(name)
	}
	if doc, ok := Doc(name); ok {
		return doc, true
	}
	// A member of a module the session holds under another name, or of a
	// struct: ask the value.
	head, member, _ := strings.Cut(name, ".")
	v, ok := in.Globals()[head]
	if !ok || strings.Contains(member, ".") {
		return "", false
	}
	ha, ok := v.(starlark.HasAttrs)
	if !ok {
		return "", false
	}
	mv, err := ha.Attr(member)
	if err != nil || mv == nil {
		return "", false
	}
	doc, err := builtins.Doc(mv)
	return doc, err == nil && doc != ""
}
