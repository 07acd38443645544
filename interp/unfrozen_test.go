package interp_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bitsh/bitsh/interp"
)

// TestUnfrozenScript: with WithUnfrozenScript the script's own globals
// stay unfrozen after ExecFile (a later Exec may change them), while a
// module it loads is frozen as always; without it, the script's are
// frozen too.
func TestUnfrozenScript(t *testing.T) {
	fsys := fstest.MapFS{
		"lib.star":  {Data: []byte("tab = {1: 2}\nrow = [1]\n")},
		"main.star": {Data: []byte("load('lib.star', 'tab', 'row')\nlibtab, librow = tab, row\nmemo = {1: 0}\nxs = [1]\nfor n in range(2, 50):\n    memo[n] = n // 2\n")},
	}
	ctx := context.Background()
	for _, unfrozen := range []bool{false, true} {
		in := interp.New(interp.WithFS(fsys), interp.WithUnfrozenScript(unfrozen))
		g, err := in.ExecFile(ctx, "main.star", nil)
		if err != nil {
			t.Fatal(backtrace(err))
		}
		if got := g["memo"].String(); !strings.HasPrefix(got, "{1: 0, 2: 1, 3: 1, 4: 2,") {
			t.Fatalf("unfrozen %v: memo = %s", unfrozen, got)
		}
		for _, src := range []string{"memo[99] = 1", "xs.append(2)"} {
			_, err := in.Exec(ctx, "<stdin>", src)
			if unfrozen && err != nil {
				t.Errorf("unfrozen: %s: %v; want the script's globals unfrozen", src, err)
			}
			if !unfrozen && (err == nil || !strings.Contains(err.Error(), "frozen")) {
				t.Errorf("frozen: %s: error %v; want a frozen value's", src, err)
			}
		}
		for _, src := range []string{"libtab[3] = 4", "librow.append(2)"} {
			if _, err := in.Exec(ctx, "<stdin>", src); err == nil || !strings.Contains(err.Error(), "frozen") {
				t.Errorf("unfrozen %v: %s (a loaded module's): error %v; want a frozen value's", unfrozen, src, err)
			}
		}
	}
}
