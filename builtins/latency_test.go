package builtins_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// bigWords is the size of the arrays the big-input latency test passes:
// 2^24 words (128 MiB), enough that any kernel touching them all lasts
// longer than the deadline on any machine.
const bigWords = 1 << 24

// latencyDeadline is how long each call runs before its context ends.
// latencyBound is how long after that any call may take to return, and
// latencyLate how long after it a call may still return a result or
// another error instead of the deadline's (a kernel finishing its last
// chunk): both generous, for a loaded machine whose allocations alone
// can take a second. The target is 100 ms, which bench/latency.sh
// measures and docs/reliability.md reports; a kernel that does not poll
// returns its result late and fails here.
const (
	latencyDeadline = 20 * time.Millisecond
	latencyLate     = 500 * time.Millisecond
	latencyBound    = 10 * time.Second
)

// isCancellation reports whether err is what a call stopped by the
// sweep's deadline returns.
func isCancellation(err error) bool {
	return err != nil && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout after 20ms") ||
		strings.Contains(err.Error(), "interrupted") || strings.Contains(err.Error(), "cancel"))
}

// A latency is one call of the big-input sweep.
type latency struct {
	call string
	took time.Duration // from the deadline to the return (negative: before)
	err  error
}

// bigInputSweep calls every builtin of the registry (module members
// included) and every method of a word array on 2^24-word inputs with a
// context that ends after latencyDeadline, and returns each call's
// latency past the deadline. The arguments are the big arrays, big counts
// and small constants, so that every kernel meets an input it must work
// through; calls that refuse their arguments return at once.
func bigInputSweep(t testing.TB) []latency {
	prep := newThread(context.Background())
	e := builtins.EnvOf(prep)
	e.MaxMemory, e.Random = 8<<30, builtins.NewRandom()
	builtins.SetEnv(prep, e)
	env := builtins.Predeclared()
	call := func(expr string) starlark.Value {
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, prep, "<prep>", expr, env)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	a := call(fmt.Sprintf("random_words(%d)", bigWords))
	b := call(fmt.Sprintf("words(range(%d))", bigWords))
	n := starlark.MakeInt(bigWords)
	argLists := []starlark.Tuple{
		{a}, {a, a}, {a, starlark.MakeInt(3)}, {starlark.MakeInt(0), a}, {a, b, starlark.MakeInt(3)},
		{n}, {n, starlark.MakeInt(3)}, {a, n},
	}
	var out []latency
	run := func(name string, fn starlark.Callable, args starlark.Tuple) {
		ctx, cancel := context.WithTimeoutCause(context.Background(), latencyDeadline, errors.New("timeout after 20ms"))
		defer cancel()
		th := newThread(ctx)
		e := builtins.EnvOf(th)
		e.MaxMemory, e.Random = 8<<30, builtins.NewRandom()
		builtins.SetEnv(th, e)
		start := time.Now()
		v, err, panicked := safeCall(th, callable{name, fn}, args, nil)
		took := time.Since(start) - latencyDeadline
		if panicked {
			t.Errorf("%s%s panicked: %v", name, showArgs(args, nil), err)
		}
		// A lazy result does its work when drained: drain what a script
		// would, its iteration, under the same context.
		if err == nil {
			if it, ok := v.(starlark.Iterable); ok && v.Type() != "words" && v.Type() != "list" && v.Type() != "tuple" && v.Type() != "dict" && v.Type() != "set" {
				iter := it.Iterate()
				var x starlark.Value
				for i := 0; iter.Next(&x) && ctx.Err() == nil; i++ {
				}
				iter.Done()
				took = time.Since(start) - latencyDeadline
			}
		}
		out = append(out, latency{name + showArgs(args, nil), took, err})
	}
	for _, c := range callables() {
		for _, args := range argLists {
			run(c.name, c.fn, args)
		}
	}
	if ha, ok := a.(starlark.HasAttrs); ok {
		for _, m := range ha.AttrNames() {
			f, err := ha.Attr(m)
			fn, ok := f.(starlark.Callable)
			if err != nil || !ok {
				continue
			}
			for _, args := range append([]starlark.Tuple{{}}, argLists...) {
				run("a."+m, fn, args)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].took > out[j].took })
	return out
}

// TestCancellationLatencyBig runs bigInputSweep and fails on a call that
// does not return within latencyBound after its deadline, or that returns
// more than latencyLate after it without the deadline's error (it did not
// poll). It logs the slowest calls.
func TestCancellationLatencyBig(t *testing.T) {
	if testscale.Short() {
		t.Skip("calls every builtin and method on 2^24-word arrays")
	}
	ls := bigInputSweep(t)
	all := os.Getenv("BITSH_LATENCY_TABLE") != "" // bench/latency.sh: every call that ran past its deadline
	for i, l := range ls {
		if (i < 25 || all) && l.took > 0 {
			t.Logf("%8.1f ms  %s", float64(l.took.Microseconds())/1000, l.call)
		}
		switch {
		case l.took > latencyBound:
			t.Errorf("%s returned %v after its deadline, want ≤ %v (target 100 ms)", l.call, l.took, latencyBound)
		case l.took > latencyLate && !isCancellation(l.err):
			t.Errorf("%s returned %v after its deadline without stopping (error: %v): it does not poll", l.call, l.took, l.err)
		}
	}
}
