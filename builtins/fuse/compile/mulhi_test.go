package compile_test

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestExactMulHi: (a * b) >> k with a constant k of 64 or more compiles
// to the high word of the 128-bit product, with no check on the product,
// and with k from 1 to 63 and operands that are variables or constants to
// the product's bits from k up, checked to fit in a word; each agrees with
// plain Starlark on every pair of words, on the evaluator and the x86-64
// code; operands that may leave the words keep their own checks.
func TestExactMulHi(t *testing.T) {
	top := uint64(1<<64 - 1)
	more := []uint64{1<<32 - 1, 1 << 32, 1 << 63, top, 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9}
	var cases []exactCase
	for _, k := range []int{1, 32, 63, 64, 65, 70, 127, 128, 200} {
		cases = append(cases, exactCase{fmt.Sprintf("shift by %d", k),
			fmt.Sprintf("def f(x, y): return (x * y) >> %d", k),
			map[[2]uint64]bool{{top, top}: k >= 64, {3, 5}: true, {1 << 63, 2}: true, {1 << 63, 4}: k >= 2, {top, 1 << 32}: k >= 32}})
	}
	// The product keeps its check: a count below 64 with a signed local
	// (read through its bias).
	checked := map[string]bool{"below 64, a signed local": true}
	// An operand computed: the product of a pair (the sum x + 1 with its
	// carry) and a word, whose high word's product is checked.
	paired := map[string]bool{"below 64, an operand computed": true, "an operand that may leave the words": true}
	// Masked to bits of the product's low word: the low word alone, with
	// no multiply of 128 bits and no check.
	lowWord := map[string]bool{"below 64, masked": true}
	cases = append(cases,
		exactCase{"masked", "def f(x, y): return ((x * y) >> 64) & 0xff", map[[2]uint64]bool{{top, top}: true}},
		exactCase{"inside a sum", "def f(x, y): return ((x * y) >> 64) + ((x * 3) >> 70) + (y & 1)", map[[2]uint64]bool{{top, top}: true, {5, 7}: true}},
		exactCase{"range reduction", "def f(x, y): return (x * (y | 1)) >> 64", map[[2]uint64]bool{{top, 10}: true}},
		exactCase{"an operand that may leave the words", "def f(x, y): return ((x + y) * y) >> 64", map[[2]uint64]bool{{top, 1}: true, {top - 1, 1}: true, {1 << 63, 1 << 63}: true, {top, top}: false}},
		exactCase{"a signed local", `
def f(x, y):
    step = 8 if y == 0 else -8
    return (step * x) >> 64`, map[[2]uint64]bool{{top, 0}: true, {top, 1}: false}},
		exactCase{"a signed local's word", `
def f(x, y):
    step = 8 if y == 0 else -8
    s = step + 8
    return ((s * x) >> 64) + ((x * (y - 1)) >> 65)`, map[[2]uint64]bool{{top, 0}: false, {top, 1}: true, {top, top}: true}},
		exactCase{"below 64, a signed local", `
def f(x, y):
    step = 8 if y == 0 else -8
    return (step * x) >> 3`, map[[2]uint64]bool{{5, 0}: true, {top, 0}: false, {top, 1}: false}},
		exactCase{"below 64, masked", "def f(x, y): return ((x * y) >> 32) & 0xffffffff", map[[2]uint64]bool{{top, top}: true, {1 << 40, 1 << 40}: true}},
		exactCase{"below 64, an operand computed", "def f(x, y): return ((x + 1) * y) >> 32", map[[2]uint64]bool{{top - 1, 1 << 40}: false, {top, 1 << 20}: true, {5, 7}: true}},
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
			if want := !checked[c.name] && !lowWord[c.name]; (hi > 0) != want {
				t.Errorf("%d mul_hi ops, want them %v", hi, want)
			}
			muls := 0
			for _, ch := range f.Checks {
				if ch.Kind == fuse.CheckMulExact {
					muls++
				}
			}
			if (muls > 0) != (checked[c.name] || paired[c.name]) {
				t.Errorf("%d checks of a product, want them %v", muls, checked[c.name])
			}
			if _, ok := exactRuns(t, f)["amd64"]; !ok {
				t.Errorf("the x86-64 code refuses the function")
			}
		})
	}
}
