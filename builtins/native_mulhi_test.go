package builtins

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeMulHi: (a * b) >> k, the high word of a 64x64 product, runs
// as code and gives the interpreter's answer or error, directly and
// through the fork: at k of 64 and more every call on words runs as code
// (the product past 2^64 is no longer a reason to give the call back);
// below 64, the calls whose result leaves the words, and where an operand
// may leave the words (a sum), those whose sum or product does, go back to
// the interpreter; masked back to the words, every call runs as code.
func TestNativeMulHi(t *testing.T) {
	needAMD64(t)
	var words, vals []starlark.Value
	for _, s := range []string{"0", "1", "3", "4294967295", "4294967296", "9223372036854775808", "18446744073709551615", "11400714819323198485"} {
		b, _ := new(big.Int).SetString(s, 10)
		words = append(words, starlark.MakeBigInt(b))
	}
	vals = append(append(vals, words...), starlark.MakeInt(-1), starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(1), 64)))
	var args []starlark.Tuple
	wordPairs := 0
	for i, x := range vals {
		for j, y := range vals {
			args = append(args, starlark.Tuple{x, y})
			if i < len(words) && j < len(words) {
				wordPairs++
			}
		}
	}
	type mulHiCase struct {
		src     string
		allWord bool // every call on two words runs as code
	}
	var cases []mulHiCase
	for _, k := range []int{1, 32, 63, 64, 65, 127, 128, 200} {
		cases = append(cases, mulHiCase{fmt.Sprintf("def f(x, y): return (x * y) >> %d", k), k >= 64})
	}
	cases = append(cases,
		mulHiCase{"def f(x, y): return ((x * y) >> 64) & 0xffff", true},
		mulHiCase{"def f(x, y): return ((x * y) >> 70) ^ ((y * 0x9e3779b97f4a7c15) >> 64)", true},
		mulHiCase{"def f(x, y): return ((x + y) * y) >> 64", false},
		mulHiCase{"def f(x, y): return ((x + 1) * y) >> 32", false},
		mulHiCase{"def f(x, y): return ((x * y) >> 32) & 0xffffffff", true},
		mulHiCase{"def f(x, y): return (((x + (y & 0xffff)) * 0x9e3779b97f4a7c15) >> 32) & 0xffffffffffffffff", true},
		mulHiCase{"def f(x, y):\n    s = x\n    for i in range(4):\n        s = ((s * 0x9e3779b97f4a7c15) >> 64) ^ (y >> 1)\n    return s", true},
	)
	for i, c := range cases {
		res, err := edgeDiff(c.src, args, strings.Contains(c.src, "for "), true)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.wrong != "" {
			t.Errorf("case %d: %s\n%s", i, res.wrong, c.src)
		}
		if res.refused || res.coded == 0 {
			t.Errorf("case %d: no call as code (refused: %v)\n%s", i, res.refused, c.src)
		}
		if c.allWord && res.coded < wordPairs {
			t.Errorf("case %d: %d calls as code, want the %d on two words\n%s", i, res.coded, wordPairs, c.src)
		}
		if !c.allWord && res.coded >= wordPairs {
			t.Errorf("case %d: %d calls as code; a product past the words must go back\n%s", i, res.coded, c.src)
		}
	}
}
