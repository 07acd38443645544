package compile

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// sumSource is def f(x, y): return x + y + popcount(x) + (y ^ x) + x + ...
// of n terms.
func sumSource(t testing.TB, n int) *Source {
	t.Helper()
	var b strings.Builder
	b.WriteString("def f(x, y):\n    return ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString([]string{"x", "y", "popcount(x)", "(y ^ x)"}[i%4])
	}
	b.WriteString("\n")
	file, err := syntax.Parse("sum.star", b.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	d := file.Stmts[0].(*syntax.DefStmt)
	_, end := d.Span()
	return &Source{Name: "f", Params: []*syntax.Ident{d.Params[0].(*syntax.Ident), d.Params[1].(*syntax.Ident)}, Body: d.Body, End: end,
		Free:    func(string) (starlark.Value, bool) { return nil, false },
		Builtin: func(string) bool { return true }}
}

// TestPositionsLinear: the positions of a sum of n terms are found by
// looking at O(n) syntax nodes: twice the terms, at most about twice the
// nodes (a Span of each node looked at O(n^2): 16,000 terms took seconds).
func TestPositionsLinear(t *testing.T) {
	visits := func(n int) int {
		var v int
		if _, err := Func(sumSource(t, n), Options{visits: &v}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	small, large := visits(2000), visits(4000)
	t.Logf("nodes looked at: %d for 2000 terms, %d for 4000", small, large)
	if small == 0 || large > 2*small+100 {
		t.Errorf("positions of a sum: %d nodes looked at for 2000 terms, %d for 4000; want at most about twice", small, large)
	}
}

// BenchmarkLongSum compiles a sum of 16,000 terms.
func BenchmarkLongSum(b *testing.B) {
	for _, n := range []int{4000, 16000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := sumSource(b, n)
			for b.Loop() {
				if _, err := Func(src, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
