package interp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// loadChainError runs main.star, which loads m1.star, which loads m2.star,
// and so on to m<n>.star, whose source is last, and returns the error as
// bitsh prints it.
func loadChainError(t *testing.T, n int, last string) string {
	t.Helper()
	fs := fstest.MapFS{"main.star": {Data: []byte("load(\"m1.star\", \"v\")\n")}}
	for i := 1; i < n; i++ {
		fs[fmt.Sprintf("m%d.star", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("load(\"m%d.star\", \"v\")\n", i+1))}
	}
	fs[fmt.Sprintf("m%d.star", n)] = &fstest.MapFile{Data: []byte(last)}
	_, err := interp.New(interp.WithFS(fs)).ExecFile(context.Background(), "main.star", nil)
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v, want an EvalError", err)
	}
	return interp.Backtrace(ee)
}

// TestLoadChainError: an error in a loaded module is reported cause first,
// at its position in that module, and the chain of loads that led there
// is abbreviated: 900 modules make a message of a line, not of 20 KB.
func TestLoadChainError(t *testing.T) {
	for _, c := range []struct {
		n          int
		last, want string
	}{
		{1, "x = 1\nv = 1 // 0\n", "Error: m1.star:2:7: floored division by zero (while loading m1.star)"},
		{1, "def f():\n    return 1 // 0\nv = f()\n", "Error: m1.star:2:14: floored division by zero (while loading m1.star)"},
		{3, "v = (\n", "Error: m3.star:2:1: got end of file, want primary expression (while loading m1.star -> m2.star -> m3.star)"},
		{900, "x = 1\nv = 1 // 0\n", "Error: m900.star:2:7: floored division by zero (while loading m1.star -> m2.star -> m3.star -> m4.star -> … 892 more … -> m897.star -> m898.star -> m899.star -> m900.star)"},
	} {
		bt := loadChainError(t, c.n, c.last)
		if !strings.HasSuffix(bt, "\n"+c.want) {
			t.Errorf("a chain of %d loads ending in %q:\n%s\nwant the last line\n%s", c.n, c.last, bt, c.want)
		}
		if len(bt) > 2048 {
			t.Errorf("a chain of %d loads: an error of %d bytes", c.n, len(bt))
		}
	}
}
