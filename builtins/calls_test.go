package builtins_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// BenchmarkCall measures one call of a word builtin through starlark.Call
// (frame push, argument conversion, kernel, result), the figures of
// docs/performance.md's fast-call table: go test ./builtins -run X -bench
// 'Call$' -benchmem. "high" cases use words at or above 2^31, which
// go.starlark.net holds as heap big ints.
func BenchmarkCall(b *testing.B) {
	env := builtins.Predeclared()
	for _, c := range []struct {
		name string
		fn   string
		args starlark.Tuple
	}{
		// Stock go.starlark.net's abs: the floor of a builtin call.
		{"abs_stock", "abs", starlark.Tuple{starlark.MakeInt(-5)}},
		{"popcount", "popcount", starlark.Tuple{w(0x12345)}},
		{"popcount_high", "popcount", starlark.Tuple{w(0xfedcba9876543210)}},
		{"bsf", "bsf", starlark.Tuple{w(0x1000)}},
		{"bsf_high", "bsf", starlark.Tuple{w(1 << 60)}},
		{"bsr", "bsr", starlark.Tuple{w(0x1000)}},
		{"lsb", "lsb", starlark.Tuple{w(0x1000)}},
		{"lsb_high", "lsb", starlark.Tuple{w(1 << 60)}},
		{"parity", "parity", starlark.Tuple{w(0x1000)}},
		{"rotl8", "rotl", starlark.Tuple{w(0x81), w(3), w(8)}},
		{"rotl_high", "rotl", starlark.Tuple{w(0x8000000000000001), w(3)}},
		{"pdep", "pdep", starlark.Tuple{w(0x5), w(0xf0)}},
		{"pext", "pext", starlark.Tuple{w(0x50), w(0xf0)}},
		{"delta_swap", "delta_swap", starlark.Tuple{w(0x5), w(0x0f), w(4)}},
		{"snoob", "snoob", starlark.Tuple{w(0x7), w(0xffff)}},
		{"snoob_high", "snoob", starlark.Tuple{w(0x7 << 40), w(0xffff << 40)}},
		{"rsnoob", "rsnoob", starlark.Tuple{w(0x700), w(0xffff)}},
		{"debruijn_bsf", "debruijn_bsf", starlark.Tuple{w(0x1000)}},
		{"flip_diag", "flip_diag", starlark.Tuple{w(0o4562), w(2)}},
		{"canonical", "canonical", starlark.Tuple{w(0o4562), w(2), starlark.String("symmetric")}},
		{"is_debruijn", "is_debruijn", starlark.Tuple{w(0x1D), w(8)}},
		{"hex", "hex", starlark.Tuple{w(0x3f), w(6)}},
		{"gray_inverse", "gray_inverse", starlark.Tuple{w(0x1234)}},
		{"chess_knight", "chess.knight_attacks", starlark.Tuple{w(12)}},
		{"chess_rook_high", "chess.rook_attacks", starlark.Tuple{w(27), w(0xffff00000000ffff)}},
		{"chess_pawn", "chess.pawn_attacks", starlark.Tuple{w(12), starlark.False}},
	} {
		fn, ok := env[c.fn]
		if mod, member, dotted := strings.Cut(c.fn, "."); dotted {
			fn, _ = env[mod].(starlark.HasAttrs).Attr(member)
			ok = fn != nil
		}
		if !ok {
			fn, ok = starlark.Universe[c.fn]
		}
		if !ok {
			b.Fatalf("no builtin %s", c.fn)
		}
		b.Run(c.name, func(b *testing.B) {
			thread := &starlark.Thread{}
			b.ReportAllocs()
			clock := startCPU()
			for b.Loop() {
				if _, err := starlark.Call(thread, fn, c.args, nil); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(b, b.N)
		})
	}
}

// BenchmarkScriptCall measures a builtin call inside a Starlark loop, per
// iteration: `for x in range(N): n += f(x)` with f = popcount, stock abs,
// and no call at all (n += x), so that the differences are the call's cost
// as a script pays it (go.starlark.net also copies the arguments of every
// builtin call: one small allocation, counted here).
func BenchmarkScriptCall(b *testing.B) {
	const n = 1 << 16
	for _, c := range []struct{ name, body string }{
		{"none", "x"},
		{"abs_stock", "abs(x)"},
		{"popcount", "popcount(x)"},
		{"popcount_high", "popcount(x + (1 << 40))"},
		{"bsf", "bsf(x + 1)"},
		{"snoob", "snoob(x + 1, 0xffffffff)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := fmt.Sprintf("def run():\n  n = 0\n  for x in range(%d):\n    n += %s\n  return n\n", n, c.body)
			g, err := execLazy(b, context.Background(), src)
			if err != nil {
				b.Fatal(err)
			}
			thread := &starlark.Thread{}
			b.ReportAllocs()
			clock := startCPU()
			for b.Loop() {
				if _, err := starlark.Call(thread, g["run"], nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(b, b.N*n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/iter")
		})
	}
}
