// bitsh fork: tests of range's length, membership and slices for bounds
// more than MaxInt apart (see ../README.bitsh.md).

package starlark_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// rangeItems returns the items of Python's range(start, stop, step),
// computed with math/big (at most max of them; ok is false past max).
func rangeItems(start, stop, step int64, max int) (items []*big.Int, ok bool) {
	x, end, d := big.NewInt(start), big.NewInt(stop), big.NewInt(step)
	for (step > 0 && x.Cmp(end) < 0) || (step < 0 && x.Cmp(end) > 0) {
		if len(items) == max {
			return items, false
		}
		items = append(items, new(big.Int).Set(x))
		x = new(big.Int).Add(x, d)
	}
	return items, true
}

func evalExpr(t *testing.T, expr string) starlark.Value {
	t.Helper()
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, new(starlark.Thread), "range.star", expr, nil)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func TestRangeFarBounds(t *testing.T) {
	const lo, hi = math.MinInt64, math.MaxInt64
	for _, c := range [][3]int64{
		{lo, hi - 1, 1 << 60},
		{lo, hi, 1 << 62},
		{lo, 1 << 62, 1 << 62},
		{hi, lo, -(1 << 60)},
		{hi, lo, lo + 1},
		{lo, hi, hi},
		{-(1 << 62), 1 << 62, 3 << 60},
		{lo, hi, 3 << 61},
		{0, 10, 1},
		{10, 0, -3},
		{5, 5, 1},
	} {
		want, ok := rangeItems(c[0], c[1], c[2], 100)
		if !ok {
			t.Fatalf("range%v: more than 100 items", c)
		}
		r := fmt.Sprintf("range(%d, %d, %d)", c[0], c[1], c[2])
		if n := evalExpr(t, "len("+r+")"); n.String() != fmt.Sprint(len(want)) {
			t.Errorf("len(%s) = %s, want %d", r, n, len(want))
		}
		if got := evalExpr(t, "list("+r+")").String(); got != fmt.Sprintf("[%s]", joinInts(want)) {
			t.Errorf("list(%s) = %s, want [%s]", r, got, joinInts(want))
		}
		for i, x := range want {
			if in := evalExpr(t, fmt.Sprintf("%s in %s", x, r)); in != starlark.True {
				t.Errorf("%s in %s = %s, want True", x, r, in)
			}
			if i+1 < len(want) && c[2] != 1 && c[2] != -1 {
				next := new(big.Int).Add(x, big.NewInt(1))
				if in := evalExpr(t, fmt.Sprintf("%s in %s", next, r)); in != starlark.False {
					t.Errorf("%s in %s = %s, want False", next, r, in)
				}
			}
		}
		// Every slice step of the first items: the same items as Python's.
		for _, k := range []int64{2, 3, 4, -1, -2, -5} {
			var sl []*big.Int
			if k > 0 {
				for i := 0; i < len(want); i += int(k) {
					sl = append(sl, want[i])
				}
			} else {
				for i := len(want) - 1; i >= 0; i += int(k) {
					sl = append(sl, want[i])
				}
			}
			e := fmt.Sprintf("%s[::%d]", r, k)
			if n := evalExpr(t, "len("+e+")"); n.String() != fmt.Sprint(len(sl)) {
				t.Errorf("len(%s) = %s, want %d", e, n, len(sl))
			}
			if got := evalExpr(t, "list("+e+")").String(); got != fmt.Sprintf("[%s]", joinInts(sl)) {
				t.Errorf("list(%s) = %s, want [%s]", e, got, joinInts(sl))
			}
		}
	}
}

func joinInts(xs []*big.Int) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x.String()
	}
	return s
}

// A range of more than MaxInt items is an error, not a wrong length.
func TestRangeTooLong(t *testing.T) {
	_, err := starlark.EvalOptions(&syntax.FileOptions{}, new(starlark.Thread), "range.star", "range(-(1 << 63), (1 << 63) - 1)", nil)
	if err == nil {
		t.Fatal("range(-(1 << 63), (1 << 63) - 1): no error, want more than MaxInt items")
	}
	t.Log(err)
}

// Ints beyond int32 are found in a range (upstream read them as int32).
func TestRangeContainsWide(t *testing.T) {
	for _, c := range []struct {
		expr string
		want starlark.Bool
	}{
		{"(1 << 40) in range(1 << 41)", true},
		{"(1 << 40) + 1 in range(0, 1 << 41, 2)", false},
		{"-(1 << 40) in range(0, -(1 << 41), -(1 << 20))", true},
		{"(1 << 41) in range(1 << 41)", false},
		{"(1 << 70) in range(1 << 62)", false},
	} {
		if got := evalExpr(t, c.expr); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}
