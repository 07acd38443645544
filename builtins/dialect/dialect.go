// Package dialect declares the Starlark dialect bitsh code is written in:
// while loops, recursion, top-level control flow, global reassignment and
// set. It imports only go.starlark.net/syntax and lives below the bindings,
// so that every part of bitsh that parses bitsh code (the interpreter, the
// builtins' fuse compiler, the stdlib's doc reader, the source tooling)
// uses this one declaration.
package dialect

import (
	"strings"

	"go.starlark.net/syntax"
)

// options is the dialect; FileOptions hands out copies.
var options = syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// FileOptions returns a new copy of the dialect's syntax options, which
// the caller may change (the REPL sets LoadBindsGlobally).
func FileOptions() *syntax.FileOptions {
	o := options
	return &o
}

// StdlibPrefix is how load() names bitsh's embedded stdlib modules:
// load("@stdlib/board.star", "diagram").
const StdlibPrefix = "@stdlib/"

// CleanDoc returns a docstring as help prints it: trimmed, with the common
// indentation of its lines after the first removed, as Python's
// inspect.cleandoc does.
func CleanDoc(doc string) string {
	lines := strings.Split(strings.TrimSpace(doc), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " \t"); t != "" {
			if n := len(l) - len(t); indent < 0 || n < indent {
				indent = n
			}
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= indent && indent > 0 {
			lines[i] = lines[i][indent:]
		} else {
			lines[i] = strings.TrimSpace(lines[i])
		}
	}
	return strings.Join(lines, "\n")
}

// Docstring returns the docstring of a module or def body, cleaned by
// CleanDoc: its first statement when that is a string literal. ok is false
// when the body has none.
func Docstring(body []syntax.Stmt) (doc string, ok bool) {
	if len(body) == 0 {
		return "", false
	}
	e, ok := body[0].(*syntax.ExprStmt)
	if !ok {
		return "", false
	}
	lit, ok := e.X.(*syntax.Literal)
	if !ok || lit.Token != syntax.STRING {
		return "", false
	}
	s, _ := lit.Value.(string)
	return CleanDoc(s), true
}
