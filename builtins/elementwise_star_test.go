package builtins_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// TestElementwiseStar runs testdata/elementwise.star. Until the words()
// builtin of SPEC §8 is registered (by the word-array bindings), it gets a
// stand-in that builds an array from a list of ints by SPEC §1's rules.
func TestElementwiseStar(t *testing.T) {
	var opts []interp.Option
	if _, ok := builtins.Lookup("words"); !ok {
		opts = append(opts, interp.WithPredeclared(starlark.StringDict{
			"words": starlark.NewBuiltin("words", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var l *starlark.List
				if err := starlark.UnpackArgs(b.Name(), args, kwargs, "src", &l); err != nil {
					return nil, err
				}
				ws := make([]uint64, l.Len())
				for i := range ws {
					n, ok := l.Index(i).(starlark.Int)
					if !ok {
						return nil, fmt.Errorf("words: src[%d]: got %s, want int", i, l.Index(i).Type())
					}
					if x, ok := n.Int64(); ok {
						ws[i] = uint64(x)
					} else if ws[i], ok = n.Uint64(); !ok {
						return nil, fmt.Errorf("words: src[%d] = %s does not fit in 64 bits", i, n)
					}
				}
				return builtins.NewWords(ws), nil
			}),
		}))
	}
	var out strings.Builder
	opts = append(opts, interp.WithStdout(&out), interp.WithStderr(&out))
	in := interp.New(opts...)
	path, _ := filepath.Abs(filepath.Join("testdata", "elementwise.star"))
	if _, err := in.ExecFile(context.Background(), path, nil); err != nil {
		if ee, ok := err.(*starlark.EvalError); ok {
			t.Fatalf("%s\n%s", ee.Backtrace(), out.String())
		}
		t.Fatalf("%v\n%s", err, out.String())
	}
}
