package builtins_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// FuzzPicturesAndRandom calls board, cards, table and the random module's
// functions with arbitrary ints and strings: each succeeds or fails with
// an error that starts with its name, never a panic, and what succeeds
// keeps its contract (a board's word, cards in 0..80, draws in range).
func FuzzPicturesAndRandom(f *testing.F) {
	f.Add(int64(0x8100), int64(3), "1RsD")
	f.Add(int64(-1), int64(81), "")
	f.Add(int64(1)<<62, int64(-5), "x\ty")
	env := builtins.Predeclared()
	random := env["random"].(starlark.HasAttrs)
	fn := func(name string) starlark.Value {
		if m, ok := strings.CutPrefix(name, "random."); ok {
			v, _ := random.Attr(m)
			return v
		}
		return env[name]
	}
	f.Fuzz(func(t *testing.T, x, k int64, s string) {
		thread := &starlark.Thread{}
		xv, kv, sv := starlark.MakeInt64(x), starlark.MakeInt64(k), starlark.String(s)
		list := starlark.NewList([]starlark.Value{xv, kv})
		calls := []struct {
			name string
			args starlark.Tuple
		}{
			{"board", starlark.Tuple{xv}},
			{"board", starlark.Tuple{sv}},
			{"cards", starlark.Tuple{list}},
			{"cards", starlark.Tuple{sv}},
			{"table", starlark.Tuple{starlark.NewList([]starlark.Value{list, starlark.Tuple{sv}})}},
			{"table", starlark.Tuple{list}},
			{"random.seed", starlark.Tuple{xv}},
			{"random.word", starlark.Tuple{kv}},
			{"random.randrange", starlark.Tuple{xv, kv}},
			{"random.randrange", starlark.Tuple{kv}},
			{"random.choice", starlark.Tuple{sv}},
			{"random.sample", starlark.Tuple{list, kv}},
			{"random.shuffle", starlark.Tuple{list}},
		}
		for _, c := range calls {
			v, err := starlark.Call(thread, fn(c.name), c.args, nil)
			if err != nil {
				if !strings.HasPrefix(err.Error(), c.name+": ") {
					t.Fatalf("%s%v: error %q does not start with the name", c.name, c.args, err)
				}
				continue
			}
			switch c.name {
			case "board":
				if w, _ := v.(starlark.HasAttrs).Attr("bb"); w.(starlark.Int).Sign() < 0 {
					t.Fatalf("board(%d).bb = %v", x, w)
				}
			case "cards":
				if x < 0 || x > 80 || k < 0 || k > 80 {
					t.Fatalf("cards([%d, %d]) succeeded", x, k)
				}
			case "random.randrange":
				r, _ := v.(starlark.Int).Int64()
				lo, hi := int64(0), k
				if len(c.args) == 2 {
					lo = x
				}
				if r < lo || r >= hi {
					t.Fatalf("%s%v = %d", c.name, c.args, r)
				}
			}
		}
	})
}
