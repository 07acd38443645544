package builtins_test

import (
	"sync"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/starlark"
)

// TestChessModuleShared runs the shared, frozen chess module from several
// interpreters at once (run under -race): the first array call builds the
// magic tables while the others wait, and the module's lists are iterated
// concurrently.
func TestChessModuleShared(t *testing.T) {
	const src = `
n = 0
for bb in chess.BB_SQUARES:
    n += popcount(bb)
a = chess.rook_attacks(chess.D4, words(subsets(chess.rook_mask(chess.D4))))
b = [chess.rook_attacks(chess.D4, o) for o in subsets(chess.rook_mask(chess.D4))]
ok = n == 64 and a.tolist() == b
`
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := builtins.Predeclared()
			g, err := starlark.ExecFileOptions(dialect.FileOptions(), &starlark.Thread{}, "shared.star", src, env)
			if err != nil {
				t.Errorf("interpreter %d: %v", i, err)
				return
			}
			if g["ok"] != starlark.True {
				t.Errorf("interpreter %d: ok = %v", i, g["ok"])
			}
		}()
	}
	wg.Wait()
}
