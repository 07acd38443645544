// bitsh fork: a test of Int.Truth (int.go, README.bitsh.md).

package starlark

import (
	"math/big"
	"testing"
)

// TestIntTruthAsSign checks Int.Truth against math/big's sign on ints of
// every representation: int32, words, 128-bit and larger, both signs, and
// the results of operations that come back to small values.
func TestIntTruthAsSign(t *testing.T) {
	var vals []Int
	for _, s := range []string{"0", "1", "2147483647", "2147483648", "4294967296",
		"9223372036854775807", "9223372036854775808", "18446744073709551615",
		"18446744073709551616", "340282366920938463463374607431768211455",
		"340282366920938463463374607431768211456", "1000000000000000000000000000000000000000000"} {
		b, _ := new(big.Int).SetString(s, 10)
		vals = append(vals, MakeBigInt(b), MakeBigInt(new(big.Int).Neg(b)))
	}
	n := len(vals)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			vals = append(vals, vals[i].Sub(vals[j]), vals[i].And(vals[j]))
		}
	}
	for _, v := range vals {
		if got, want := bool(v.Truth()), v.BigInt().Sign() != 0; got != want {
			t.Errorf("Int(%v).Truth() = %v, want %v", v, got, want)
		}
	}
}
