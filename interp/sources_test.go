package interp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/interp"
)

// TestFuseFindsREPLInputs: REPL inputs share the name <stdin> and often
// put their lambdas at the same line and column; fuse must compile the
// right one.
func TestFuseFindsREPLInputs(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	ctx := context.Background()
	for _, src := range []string{"f = lambda s: s + 1", "g = lambda s: s * 2", "h = lambda s: s * 2 + 1", "print(fuse(f)(3), fuse(g)(3), fuse(h)(3), fuse(lambda s: s - 1)(3))"} {
		if _, err := in.Exec(ctx, "<stdin>", src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	if got := out.String(); got != "4 6 7 2\n" {
		t.Errorf("output %q, want %q", got, "4 6 7 2\n")
	}
}
