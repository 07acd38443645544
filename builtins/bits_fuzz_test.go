package builtins_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// FuzzWordBuiltins calls every word builtin (bits, subsets, De Bruijn)
// with arbitrary ints (in and out
// of the word range) and checks that each either returns a word in
// [0, 2^64) or fails with an error that starts with its name: never a panic.
func FuzzWordBuiltins(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), false)
	f.Add(int64(-1), int64(0xf0), int64(4), true)
	f.Add(int64(1)<<62, int64(-3), int64(64), false)
	env := builtins.Predeclared()
	names := []string{"popcount", "bsf", "bsr", "lsb", "bits", "from_bits", "rotl", "rotr",
		"reverse_bits", "swap_bytes", "pdep", "pext", "delta_swap", "hex", "bin", "oct", "parity", "gray", "gray_inverse",
		"subsets", "snoob", "rsnoob", "is_debruijn", "debruijn_table", "debruijn_bsf", "debruijn",
		"debruijn_sequences"}
	wordMax := new(big.Int).Lsh(big.NewInt(1), 64)
	f.Fuzz(func(t *testing.T, a, b, c int64, big bool) {
		x := starlark.MakeInt64(a)
		if big { // push a past 2^63 and sometimes past 2^64
			x = x.Add(starlark.MakeUint64(1 << 63)).Add(starlark.MakeInt64(b))
		}
		thread := &starlark.Thread{}
		for _, name := range names {
			for n := 1; n <= 3; n++ {
				args := starlark.Tuple{x, starlark.MakeInt64(b), starlark.MakeInt64(c)}[:n]
				if name == "from_bits" {
					args = starlark.Tuple{starlark.NewList(args)}
				}
				v, err := starlark.Call(thread, env[name], args, nil)
				if err != nil {
					if !strings.HasPrefix(err.Error(), name+": ") {
						t.Fatalf("%s%v: error %q does not start with the builtin's name", name, args, err)
					}
					continue
				}
				if i, ok := v.(starlark.Int); ok && (i.Sign() < 0 || i.BigInt().Cmp(wordMax) >= 0) {
					t.Fatalf("%s%v = %v, not a word", name, args, v)
				}
			}
		}
	})
}
