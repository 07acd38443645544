package builtins_test

import (
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
	w := func(x uint64) starlark.Value { return starlark.MakeUint64(x) }
	for _, c := range []struct {
		name string
		fn   string
		args starlark.Tuple
	}{
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
	} {
		fn, ok := env[c.fn]
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
