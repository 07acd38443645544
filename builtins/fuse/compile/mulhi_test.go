package compile_test

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestExactMulHi: (a * b) >> k with a constant k of 64 or more compiles
// to the high word of the 128-bit product, with no check on the product,
// and agrees with plain Starlark on every pair of words, on the evaluator
// and the x86-64 code; operands that may leave the words keep their own
// checks.
func TestExactMulHi(t *testing.T) {
	top := uint64(1<<64 - 1)
	more := []uint64{1<<32 - 1, 1 << 32, 1 << 63, top, 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9}
	var cases []exactCase
	for _, k := range []int{63, 64, 65, 70, 127, 128, 200} {
		cases = append(cases, exactCase{fmt.Sprintf("shift by %d", k),
			fmt.Sprintf("def f(x, y): return (x * y) >> %d", k),
			map[[2]uint64]bool{{top, top}: k >= 64, {3, 5}: true, {1 << 63, 2}: k >= 64}})
	}
	cases = append(cases,
		exactCase{"masked", "def f(x, y): return ((x * y) >> 64) & 0xff", map[[2]uint64]bool{{top, top}: true}},
		exactCase{"inside a sum", "def f(x, y): return ((x * y) >> 64) + ((x * 3) >> 70) + (y & 1)", map[[2]uint64]bool{{top, top}: true, {5, 7}: true}},
		exactCase{"range reduction", "def f(x, y): return (x * (y | 1)) >> 64", map[[2]uint64]bool{{top, 10}: true}},
		exactCase{"an operand that may leave the words", "def f(x, y): return ((x + y) * y) >> 64", map[[2]uint64]bool{{top, 1}: false, {top - 1, 1}: true, {1 << 63, 1 << 63}: false}},
		exactCase{"a signed local", `
def f(x, y):
    step = 8 if y == 0 else -8
    return (step * x) >> 64`, map[[2]uint64]bool{{top, 0}: true, {top, 1}: false}},
		exactCase{"a signed local's word", `
def f(x, y):
    step = 8 if y == 0 else -8
    s = step + 8
    return ((s * x) >> 64) + ((x * (y - 1)) >> 65)`, map[[2]uint64]bool{{top, 0}: false, {top, 1}: true, {top, top}: true}},
		exactCase{"in a loop", `
def f(x, y):
    s = x
    for i in range(8):
        s = ((s * 0x9e3779b97f4a7c15) >> 64) ^ (s + y & 0xffff)
    return s`, map[[2]uint64]bool{{top, top}: true, {1, 2}: true}},
	)
	runExactCases(t, cases, more)

	// The product's check is gone where k >= 64: the function holds the
	// op, and no check of a product; the x86-64 code takes it.
	for _, c := range cases {
		t.Run(c.name+" compiled", func(t *testing.T) {
			s := load(t, c.src)
			f, err := s.CompileWith("f", exactly)
			if err != nil {
				t.Fatal(err)
			}
			hi := 0
			f.EachExpr(func(x *fuse.Expr) {
				if x.Op == fuse.OpMulHi {
					hi++
				}
			})
			if want := c.name != "shift by 63"; (hi > 0) != want {
				t.Errorf("%d mul_hi ops, want them %v", hi, want)
			}
			for _, ch := range f.Checks {
				if ch.Kind == fuse.CheckMulExact && c.name != "shift by 63" {
					t.Errorf("a product's check remains: %s", ch.Msg)
				}
			}
			if _, ok := exactRuns(t, f)["amd64"]; !ok {
				t.Errorf("the x86-64 code refuses the function")
			}
		})
	}
}
