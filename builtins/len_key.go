package builtins

import (
	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/starlark"
)

// lenBuiltin is bitsh's len, one value shared by every interpreter (it
// holds no state). SetEnv names it to bitsh's fork of go.starlark.net
// under lenKey: the interpreter then computes len of a list, tuple,
// string, dict or set itself, without a call
// (third_party/starlark/README.bitsh.md, change 30), which for those is
// what this len returns (lazy.go: it differs for lazy values only).
var lenBuiltin = starlark.NewBuiltin("len", lenFn)

// lenKey is the thread-local key under which the fork looks for an
// application's len.
const lenKey = string(threadkey.Len)
