// bitsh fork: tests of interp_fast.go (README.bitsh.md).

package starlark

import (
	"math/big"
	"testing"

	"go.starlark.net/internal/compile"
	"go.starlark.net/syntax"
)

// TestIntFastPathsAgree checks that the interpreter's int fast paths give
// Binary's and Compare's results on values around every boundary, and that
// they decline where Binary fails.
func TestIntFastPathsAgree(t *testing.T) {
	var vals []Value
	for _, s := range []string{"0", "1", "2", "3", "7", "31", "32", "63", "64", "511", "512",
		"2147483647", "2147483648", "4294967295", "4294967296",
		"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
		"340282366920938463463374607431768211456"} {
		b, _ := new(big.Int).SetString(s, 10)
		vals = append(vals, MakeBigInt(b), MakeBigInt(new(big.Int).Neg(b)))
	}
	vals = append(vals, MakeInt(-2147483648), String("x"), Float(2.5), None)
	ops := []compile.Opcode{compile.PLUS, compile.MINUS, compile.STAR, compile.SLASH, compile.SLASHSLASH,
		compile.PERCENT, compile.AMP, compile.PIPE, compile.CIRCUMFLEX, compile.LTLT, compile.GTGT}
	for _, x := range vals {
		for _, y := range vals {
			for _, op := range ops {
				tok := syntax.Token(op-compile.PLUS) + syntax.PLUS
				z, ok := intBinary(op, x, y)
				want, err := Binary(tok, x, y)
				if !ok {
					_, xInt := x.(Int)
					_, yInt := y.(Int)
					if xInt && yInt && err == nil && op != compile.SLASH && !(op == compile.LTLT || op == compile.GTGT) {
						t.Errorf("intBinary declined %v %s %v", x, tok, y)
					}
					continue
				}
				if err != nil {
					t.Errorf("intBinary computed %v %s %v = %v where Binary fails: %v", x, tok, y, z, err)
					continue
				}
				if eq, _ := Equal(z, want); !eq || z.String() != want.String() {
					t.Errorf("%v %s %v: intBinary %v, Binary %v", x, tok, y, z, want)
				}
			}
			for op := compile.LT; op <= compile.NEQ; op++ { // the order of compile (and syntax)
				tok := syntax.Token(op-compile.EQL) + syntax.EQL
				got, ok := intCompare(op, x, y)
				want, err := Compare(tok, x, y)
				_, xInt := x.(Int)
				_, yInt := y.(Int)
				if ok != (xInt && yInt) {
					t.Errorf("intCompare(%v %s %v): ok = %v", x, tok, y, ok)
				}
				if ok && (err != nil || got != want) {
					t.Errorf("%v %s %v: intCompare %v, Compare %v, %v", x, tok, y, got, want, err)
				}
			}
		}
	}
}
