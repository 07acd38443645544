package interp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
)

// BenchmarkScripts runs whole scripts of bench/ through the interpreter,
// set-up included, as `bitsh bench/NAME.star` runs them: one iteration is
// one run. Under callgrind it counts the instructions of a plain script
// (docs/performance.md, "Plain scripts: calls and the bytecode loop"),
// which valgrind 3.19 cannot count in the bitsh binary itself (it stops on
// an assertion about a signal).
func BenchmarkScripts(b *testing.B) {
	for _, name := range []string{"perft", "magic_check"} {
		path := filepath.Join("..", "bench", name+".star")
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				in := New(WithStdout(io.Discard), WithPredeclared(starlark.StringDict{"argv": starlark.NewList(nil)}))
				if _, err := in.ExecFile(context.Background(), path, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
