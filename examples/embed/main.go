// Command embed shows bitsh embedded in another Go program: it adds a
// builtin of its own (collatz_record, a long search that honours
// cancellation), then runs a script with bitsh's builtins and a deadline.
//
//	go run ./examples/embed                 # runs the built-in demo script
//	go run ./examples/embed -timeout 100ms 'print(collatz_record(1 << 40))'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

const demo = `
# bitsh builtins and our own, side by side.
n, steps = collatz_record(1000)
print("below 1000, %d takes the most Collatz steps: %d" % (n, steps))
print("%d is %s, popcount %d" % (n, bin(n), popcount(n)))
`

func main() {
	timeout := flag.Duration("timeout", 10*time.Second, "cancel the script after this long")
	flag.Parse()
	src := demo
	if flag.NArg() > 0 {
		src = flag.Arg(0)
	}
	in := interp.New(interp.WithPredeclared(starlark.StringDict{
		"collatz_record": starlark.NewBuiltin("collatz_record", collatzRecord),
	}))
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if _, err := in.ExecFile(ctx, "embed.star", src); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(os.Stderr, "embed: stopped after", *timeout)
			os.Exit(3)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// collatzRecord returns the n below limit whose Collatz trajectory is the
// longest, and its length. It polls the run's context so that a deadline
// or Ctrl-C stops it even though it never returns to Starlark.
func collatzRecord(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var limit uint64
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "limit", &limit); err != nil {
		return nil, err
	}
	ctx := builtins.Context(thread)
	best, bestSteps := uint64(1), 0
	for n := uint64(1); n < limit; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), ctx.Err())
		}
		steps := 0
		for x := n; x != 1; steps++ {
			if x%2 == 0 {
				x /= 2
			} else {
				x = 3*x + 1
			}
		}
		if steps > bestSteps {
			best, bestSteps = n, steps
		}
	}
	return starlark.Tuple{starlark.MakeUint64(best), starlark.MakeInt(bestSteps)}, nil
}
