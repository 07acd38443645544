// Package starlarkfork tells tests whether the go.starlark.net built in is
// bitsh's fork (third_party/starlark, which go.mod's replace directive
// names) or upstream's (.ci/upstream.sh builds bitsh against it). A test of
// a feature only the fork has probes for it; Require turns a probe that
// finds the feature off into a skip against upstream and a failure with
// the fork, where it means that bitsh and the fork no longer agree on a
// thread-local key or the type stored under it.
package starlarkfork

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// InUse reports whether go.starlark.net was built from a directory of its
// own (the fork) rather than from the module cache, where upstream's
// version sits in a directory named go.starlark.net@VERSION. It reads the
// source file of a go.starlark.net function (test binaries carry no module
// list for runtime/debug.ReadBuildInfo).
func InUse() bool {
	f := runtime.FuncForPC(reflect.ValueOf(starlark.ExecFileOptions).Pointer())
	if f == nil {
		return false
	}
	file, _ := f.FileLine(f.Entry())
	return file != "" && !strings.Contains(file, "go.starlark.net@")
}

// Require skips t where on is false and go.starlark.net is upstream's, and
// fails it where on is false and the fork is built in. feature names what
// the probe looked for ("the native hook").
func Require(t testing.TB, feature string, on bool) {
	t.Helper()
	if on {
		return
	}
	if !InUse() {
		t.Skipf("go.starlark.net without %s (upstream's, not bitsh's fork)", feature)
	}
	t.Fatalf("bitsh's fork of go.starlark.net is built in, but %s is off: bitsh and the fork disagree on its thread-local key or the type stored under it", feature)
}
