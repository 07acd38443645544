// bitsh fork: tests of interp_fast.go (README.bitsh.md).

package starlark

import (
	"math/big"
	"strings"
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
				// The same representation: int32 values small, others big.
				if _, zSmall := z.(Int).small(); zSmall != isSmallInt(want) {
					t.Errorf("%v %s %v = %v: small %v, Binary's small %v", x, tok, y, z, zSmall, !zSmall)
				}
				if a, b, ok := smallPair(x, y); ok {
					if r, ok := smallBinary(op, a, b); ok && MakeInt64(r).String() != want.String() {
						t.Errorf("%v %s %v: smallBinary %v, Binary %v", x, tok, y, r, want)
					}
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

func isSmallInt(v Value) bool {
	_, small := v.(Int).small()
	return small
}

// TestSmallIndex checks the interpreter's inline indexing against
// getIndex and setIndex: the same element, and the same errors where it
// declines.
func TestSmallIndex(t *testing.T) {
	list := NewList([]Value{MakeInt(10), MakeInt(11), MakeInt(12)})
	for _, y := range []Value{MakeInt(-4), MakeInt(-3), MakeInt(-1), MakeInt(0), MakeInt(2), MakeInt(3),
		MakeInt64(1 << 40), MakeInt64(-1 << 40), MakeInt(-2147483648), String("0"), None} {
		want, wantErr := getIndex(list, y)
		i, ok := smallIndex(y, list.Len())
		if ok != (wantErr == nil) {
			t.Errorf("smallIndex(%v, 3) ok = %v, getIndex: %v, %v", y, ok, want, wantErr)
			continue
		}
		if ok && list.elems[i] != want {
			t.Errorf("smallIndex(%v, 3) = %d, getIndex: %v", y, i, want)
		}
	}
	// Through the interpreter: the errors of frozen and iterated lists.
	for src, want := range map[string]string{
		"x = [1, 2]\nx[-1] = 5\nr = x[1] + x[-2] + (7, 8)[-1]": "",
		"x = [1, 2]\nr = x[2]":                                 "index 2 out of range",
		"x = [1, 2]\nr = x[-3]":                                "index -3 out of range",
		"x = [1, 2]\nfor y in x:\n  x[0] = 3":                  "cannot assign to element of list during iteration",
		"x = [1, 2]\nr = x[1 << 40]":                           "list index: 1099511627776 out of range",
	} {
		thread := new(Thread)
		globals, err := ExecFileOptions(&syntax.FileOptions{TopLevelControl: true}, thread, "index.star", src, nil)
		if want == "" {
			if err != nil || globals["r"].String() != "14" {
				t.Errorf("%q: r = %v, %v; want 14", src, globals["r"], err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", src, err, want)
		}
	}
}

// TestAndNotAsBig checks & and ~ of ints around 2^31, 2^63 and 2^64, of
// both signs, against math/big: the word paths of andBig and Not.
func TestAndNotAsBig(t *testing.T) {
	var vals []*big.Int
	for _, s := range []string{"0", "1", "5", "2147483647", "2147483648", "4294967296", "9223372036854775807",
		"9223372036854775808", "18446744073709551615", "18446744073709551616", "18446744073709551617",
		"340282366920938463463374607431768211457"} {
		b, _ := new(big.Int).SetString(s, 10)
		vals = append(vals, b, new(big.Int).Neg(b))
	}
	for _, a := range vals {
		if got, want := MakeBigInt(a).Not(), new(big.Int).Not(a); got.bigInt().Cmp(want) != 0 || isSmallInt(got) != isSmall(want) {
			t.Errorf("~%v = %v, want %v", a, got, want)
		}
		for _, b := range vals {
			got, want := MakeBigInt(a).And(MakeBigInt(b)), new(big.Int).And(a, b)
			if got.bigInt().Cmp(want) != 0 || isSmallInt(got) != isSmall(want) {
				t.Errorf("%v & %v = %v, want %v", a, b, got, want)
			}
		}
	}
}
