// Package dialect declares the Starlark dialect bitsh code is written in:
// while loops, recursion, top-level control flow, global reassignment and
// set. It imports only go.starlark.net/syntax and lives below the bindings,
// so that every part of bitsh that parses bitsh code (the interpreter, the
// builtins' fuse compiler, the stdlib's doc reader, the source tooling)
// uses this one declaration.
package dialect

import "go.starlark.net/syntax"

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
