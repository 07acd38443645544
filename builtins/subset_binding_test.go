package builtins_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

func execLazy(t testing.TB, ctx context.Context, src string) (starlark.StringDict, error) {
	thread := &starlark.Thread{Name: "lazy"}
	builtins.SetEnv(thread, builtins.Env{Context: ctx})
	return starlark.ExecFileOptions(dialect.FileOptions(), thread, "lazy.star", src, builtins.Predeclared())
}

// TestMaterialiseLimit checks that collecting a huge lazy value with a
// builtin is a clear error (it cancels the thread), not an out-of-memory
// crash, while a for loop and streaming builtins are not limited.
func TestMaterialiseLimit(t *testing.T) {
	for _, src := range []string{
		"x = list(subsets((1 << 40) - 1))",
		"x = tuple(subsets(-1, 20))",
		"x = sorted(debruijn_sequences())",
		"x = enumerate(subsets(-1))",
		"x = zip(subsets((1 << 30) - 1))",
	} {
		_, err := execLazy(t, context.Background(), src)
		if err == nil || !strings.Contains(err.Error(), "items, more than the 16777216 a") {
			t.Errorf("%s: got %v, want a size error", src, err)
		}
	}
	for _, src := range []string{
		"x = list(subsets(0xfff))\nif len(x) != 4096: fail(len(x))",
		"x = max(subsets(0xfffff))\nif x != 0xfffff: fail(x)",
		"x = any([s > 1000 for s in subsets(0xfff)])",
		"n = 0\nfor s in subsets(-1):\n  n += 1\n  if n > 100000: break",
	} {
		if _, err := execLazy(t, context.Background(), src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestLazyCancel checks that a Go builtin draining a lazy value stops when
// the run's context is cancelled.
func TestLazyCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, src := range []string{"x = max(subsets(-1))", "x = any([False for m in debruijn_sequences()]) if False else max(debruijn_sequences())"} {
		globals, _ := execLazy(t, ctx, src)
		_ = globals // the iteration stopped early: the call returned at all
	}
}

// BenchmarkScriptLoop measures the interpreter's cost per item of a for
// loop over subsets (low and high bits) and over range, for the table in
// docs/performance.md (go test ./builtins -run X -bench ScriptLoop).
func BenchmarkScriptLoop(b *testing.B) {
	const n = 1 << 20
	for _, c := range []struct{ name, iter string }{
		{"range", fmt.Sprintf("range(%d)", n)},
		// The same loop over ints above 2^31, which Starlark allocates:
		// the fair reference for subsets in the high bits.
		{"range_high", fmt.Sprintf("range(1 << 44, (1 << 44) + %d)", n)},
		{"subsets_low", "subsets(0xfffff)"},
		{"subsets_high", "subsets(0xfffff << 44)"},
		{"subsets_k", "subsets(0xffffff, 12)"}, // 2704156 items
		{"debruijn64", "debruijn_sequences(64)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := fmt.Sprintf("def run(limit):\n  n = 0\n  for x in %s:\n    n += 1\n    if n == limit: break\n  return n\n", c.iter)
			g, err := execLazy(b, context.Background(), src)
			if err != nil {
				b.Fatal(err)
			}
			thread := &starlark.Thread{}
			b.ResetTimer()
			for done := 0; done < b.N; {
				chunk := min(b.N-done, n)
				v, err := starlark.Call(thread, g["run"], starlark.Tuple{starlark.MakeInt(chunk)}, nil)
				if err != nil {
					b.Fatal(err)
				}
				got, _ := starlark.AsInt32(v)
				done += got
			}
		})
	}
}

// TestLazyAcrossRuns checks a lazy value made by one run (a REPL input)
// and iterated by the next, after the first run's context has ended.
func TestLazyAcrossRuns(t *testing.T) {
	in := interp.New()
	ctx1, cancel1 := context.WithCancel(context.Background())
	if _, err := in.Exec(ctx1, "<1>", "s = subsets(0xffff << 40)\nd = debruijn_sequences(32)"); err != nil {
		t.Fatal(err)
	}
	cancel1()
	v, err := in.Exec(context.Background(), "<2>", "n = 0\nfor x in s:\n  n += 1\nm = 0\nfor x in d:\n  m += 1\nr = (n, m, len(s), s[-1] == 0xffff << 40, len(list(d)))")
	if err != nil {
		t.Fatal(err)
	}
	_ = v
	if got := in.Globals()["r"].String(); got != "(65536, 2048, 65536, True, 2048)" {
		t.Errorf("second run: r = %s", got)
	}
}
