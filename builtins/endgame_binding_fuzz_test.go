package builtins_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// FuzzEndgameBuiltins calls every endgame builtin with arbitrary ints and
// strings and checks that each either succeeds or fails with an error that
// starts with its name (never a panic), and that a flip succeeds exactly
// when n is 1..10 and index < 2^(6n), returning an index below 2^(6n).
func FuzzEndgameBuiltins(f *testing.F) {
	f.Add(int64(0o4562), int64(2), "symmetric", "e4")
	f.Add(int64(-1), int64(10), "natural", "h9")
	f.Add(int64(1)<<60, int64(11), "diag", "")
	env := builtins.Predeclared()
	f.Fuzz(func(t *testing.T, index, n int64, numbering, name string) {
		thread := &starlark.Thread{}
		x, nv, mv := starlark.MakeInt64(index), starlark.MakeInt64(n), starlark.String(numbering)
		calls := []struct {
			name string
			args starlark.Tuple
		}{
			{"pack", starlark.Tuple{starlark.NewList([]starlark.Value{x, nv})}},
			{"pack", starlark.Tuple{starlark.String(name)}},
			{"unpack", starlark.Tuple{x, nv}},
			{"square", starlark.Tuple{starlark.String(name), mv}},
			{"square_name", starlark.Tuple{x, mv}},
			{"board", starlark.Tuple{x}},
			{"flip_horizontal", starlark.Tuple{x, nv, mv}},
			{"flip_vertical", starlark.Tuple{x, nv, mv}},
			{"flip_diag", starlark.Tuple{x, nv, mv}},
			{"symmetries", starlark.Tuple{x, nv, mv}},
			{"canonical", starlark.Tuple{x, nv, mv}},
		}
		valid := n >= 1 && n <= 10 && index >= 0 && uint64(index)>>(6*uint(n)) == 0 &&
			(numbering == "natural" || numbering == "symmetric")
		for _, c := range calls {
			v, err := starlark.Call(thread, env[c.name], c.args, nil)
			if err != nil {
				if !strings.HasPrefix(err.Error(), c.name+": ") {
					t.Fatalf("%s%v: error %q does not start with the builtin's name", c.name, c.args, err)
				}
			}
			if !strings.HasPrefix(c.name, "flip_") {
				continue
			}
			if (err == nil) != valid {
				t.Fatalf("%s%v: err = %v, want success %v", c.name, c.args, err, valid)
			}
			if err == nil {
				y, ok := v.(starlark.Int).Uint64()
				if !ok || y>>(6*uint(n)) != 0 {
					t.Fatalf("%s%v = %v, not an index of %d pieces", c.name, c.args, v, n)
				}
			}
		}
	})
}
