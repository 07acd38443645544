package starlarkfork_test

import (
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
)

// TestInUse: bitsh's go.mod replaces go.starlark.net by the fork, so a
// plain go test runs with it (.ci/upstream.sh runs builtins and interp
// against upstream, not this package).
func TestInUse(t *testing.T) {
	if !starlarkfork.InUse() {
		t.Fatal("InUse() = false in a build with go.mod's replace directive")
	}
}
