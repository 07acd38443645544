package builtins_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/starlark"
)

func runStar(t *testing.T, ctx context.Context, src string) error {
	t.Helper()
	thread := &starlark.Thread{Name: "test"}
	builtins.SetEnv(thread, builtins.Env{Context: ctx, Workers: 2})
	stop := context.AfterFunc(ctx, func() { thread.Cancel("cancelled") })
	defer stop()
	_, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "test.star", src, builtins.Predeclared())
	return err
}

// waitGoroutines waits (a little) for the goroutine count to fall back to n.
func waitGoroutines(n int) int {
	for i := 0; i < 100 && runtime.NumGoroutine() > n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// TestSetClassesStopsProducer checks that leaving a loop over
// set_classes(k) early stops the search behind it: no goroutine is left.
func TestSetClassesStopsProducer(t *testing.T) {
	before := runtime.NumGoroutine()
	err := runStar(t, context.Background(), `
n = 0
for c in set_classes(12):
    n += 1
    if n == 3:
        break
it = set_classes(13)
firsts = [c.cards for c in [x for x in set_classes(3)]]
def early():
    for c in set_classes(11):
        return c
early()
`)
	if err != nil {
		t.Fatal(err)
	}
	if after := waitGoroutines(before); after > before {
		t.Errorf("%d goroutines after the loops; %d before", after, before)
	}
}

// TestSetCardsCancel cancels long calls and checks that they fail with
// the builtin's name and leave no goroutine behind.
func TestSetCardsCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, src := range []string{
		"for c in set_classes(14):\n    pass\n",
		"setless(k_max = 8, keep = 8, progress = False)\n",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := runStar(t, ctx, src)
		cancel()
		if err == nil {
			t.Errorf("%q ran to the end despite the deadline", src)
			continue
		}
		var ee *starlark.EvalError
		if errors.As(err, &ee) && !strings.Contains(err.Error(), "cancel") && !strings.Contains(err.Error(), "deadline") {
			t.Errorf("%q: error %v; want a cancellation", src, err)
		}
	}
	if after := waitGoroutines(before); after > before {
		t.Errorf("%d goroutines after the cancelled calls; %d before", after, before)
	}
}

// FuzzSetCards calls the card builtins with arbitrary ints and strings and
// checks that each returns or fails with an error naming it: never a panic.
func FuzzSetCards(f *testing.F) {
	f.Add(int64(0), int64(1), int64(2), "1123")
	f.Add(int64(-1), int64(81), int64(80), "1234")
	f.Add(int64(5), int64(5), int64(1<<40), "")
	env := builtins.Predeclared()
	f.Fuzz(func(t *testing.T, a, b, c int64, s string) {
		thread := &starlark.Thread{}
		x, y, z := starlark.MakeInt64(a), starlark.MakeInt64(b), starlark.MakeInt64(c)
		calls := []struct {
			name string
			args starlark.Tuple
		}{
			{"card", starlark.Tuple{starlark.String(s)}},
			{"card", starlark.Tuple{starlark.NewList([]starlark.Value{x, y, z, x})}},
			{"card_str", starlark.Tuple{x}},
			{"third", starlark.Tuple{x, y}},
			{"is_set", starlark.Tuple{x, y, z}},
			{"set_free", starlark.Tuple{starlark.NewList([]starlark.Value{x, y, z})}},
			{"set_canon", starlark.Tuple{starlark.Tuple{x, y, z}}},
			{"set_classes", starlark.Tuple{starlark.MakeInt64(a % 5)}},
			{"setless", starlark.Tuple{starlark.MakeInt64(a % 4), starlark.MakeInt64(b % 4), starlark.False}},
		}
		for _, call := range calls {
			_, err := starlark.Call(thread, env[call.name], call.args, nil)
			if err != nil && !strings.HasPrefix(err.Error(), call.name+": ") {
				t.Fatalf("%s%v: error %q does not start with the builtin's name", call.name, call.args, err)
			}
		}
	})
}
