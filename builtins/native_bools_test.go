package builtins

import (
	"context"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// boolsScript is python-chess style code with bools as values: bool
// globals, a bool parameter, a local holding a bool passed to the pawn
// attacks and to a helper, bool(a or b), and or of ints.
const boolsScript = `
WHITE = True
BLACK = False

def attacked(sq, turn, occ, pawns):
    white = turn == WHITE
    a = chess.pawn_attacks(sq, white) & pawns
    b = (occ >> sq) & 1
    return bool(a or b)

def pick(b, x):
    return x if b else 0

def both(x, y):
    w = x > y
    return pick(w, y) + pick(not w, x)

def first_set(x, y):
    return (x & 3) or (y & 12) or x > y

def count(occ, pawns, turn):
    n = 0
    for sq in range(64):
        if attacked(sq, turn, occ, pawns):
            n += 1
    return n

hits = [attacked(i % 64, i % 3 == 0, i * 2654435761, 0xff00ff00ff00) for i in range(1500)]
sums = [both(i % 17, i % 5) for i in range(1500)]
firsts = [first_set(i % 16, i % 7) for i in range(1500)]
counts = [count(i * 0x9e3779b97f4a7c15 % (1 << 64), 0x00ff00000000ff00, i % 2 == 1) for i in range(40)]
`

// TestNativeBoolsThroughTheFork: the bools script gives the same values,
// of the same types (True is not 1 to starlark.Equal), with the code as
// interpreted, and the code runs.
func TestNativeBoolsThroughTheFork(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	run := func(interpreted bool) (starlark.StringDict, uint64) {
		thread := &starlark.Thread{Name: "bools"}
		SetEnv(thread, Env{Sources: testSources{"bools.star": boolsScript}, Context: context.Background(), Interpreted: interpreted, waitForCode: true})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "bools.star", boolsScript, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g, thread.ExecutionSteps()
	}
	code, codeSteps := run(false)
	plain, plainSteps := run(true)
	for _, name := range []string{"hits", "sums", "firsts", "counts"} {
		if eq, err := starlark.Equal(code[name], plain[name]); err != nil || !eq {
			t.Errorf("%s = %v with code, %v interpreted", name, code[name], plain[name])
		}
	}

	if codeSteps*2 > plainSteps {
		t.Errorf("%d steps with code, %d interpreted: the code did not run", codeSteps, plainSteps)
	}
}
