// Package stdlib embeds bitsh's standard library of Starlark modules,
// loaded by scripts as load("@stdlib/NAME.star", ...).
package stdlib

import "embed"

// FS holds the stdlib modules (*.star) at its root.
//
//go:embed *.star
var FS embed.FS
