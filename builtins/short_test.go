package builtins_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestShortInt: a long int shows its true first and last hex digits and
// its size; a short one its decimal digits.
func TestShortInt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{1, 63, 64, 255, 256, 257, 300, 1000, 4096, 100003} {
		for k := 0; k < 8; k++ {
			x := new(big.Int)
			for i := 0; i < bits; i++ {
				x.SetBit(x, i, uint(r.IntN(2)))
			}
			x.SetBit(x, bits-1, 1)
			if r.IntN(2) == 0 {
				x.Neg(x)
			}
			got := builtins.Short(starlark.MakeBigInt(x))
			if bits <= 256 {
				if got != x.String() {
					t.Errorf("Short(%s) = %s", x, got)
				}
				continue
			}
			hex := x.Text(16) // "-" and the digits
			neg := strings.HasPrefix(hex, "-")
			digits := strings.TrimPrefix(hex, "-")
			head, tail, _ := strings.Cut(got, "...")
			head = strings.TrimPrefix(head, "-")
			if strings.HasPrefix(got, "-") != neg || !strings.HasPrefix(head, "0x") || !strings.HasPrefix(digits, head[2:]) || len(head) < 2+15 {
				t.Errorf("Short(<%d-bit int>) = %s, want the first hex digits of %s...", bits, got, digits[:20])
			}
			if want := fmt.Sprintf("%s (an int of %d bits)", digits[len(digits)-4:], bits); tail != want {
				t.Errorf("Short(<%d-bit int>) = %s, want ...%s", bits, got, want)
			}
		}
	}
}

// TestErrorsAbbreviateValues: a builtin refusing a huge int or string
// names it in a message of a line, not of megabytes (nor after seconds of
// decimal conversion).
func TestErrorsAbbreviateValues(t *testing.T) {
	env := builtins.Predeclared()
	x := starlark.MakeBigInt(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 4000000), big.NewInt(0xabc)))
	globals := starlark.StringDict{"x": x}
	for k, v := range env {
		globals[k] = v
	}
	for _, src := range []string{
		"popcount(x)", "hex(x)", "hex(-x)", "rotl(x, 1)", "pdep(x, 1)", "pdep(1, x)", "reverse_bits(x)",
		"words([1, x])", "words(range(3)) + x", "x + words(range(3))", "bits(x)", "lowest(x)",
		`help("x" * 10000000)`, "print(1, sep = [x] * 100)", "round(1.5, 'x' * 1000000)",
		"sum([], 'x' * 1000000)", "pow(6 * x, -1, 4 * x)",
	} {
		th := newThread(context.Background())
		_, err := starlark.Eval(th, "<test>", src, globals)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if msg := err.Error(); len(msg) > 1000 {
			t.Errorf("%s: an error of %d bytes: %.200s...", src, len(msg), msg)
		}
	}
}

// TestShortText: runs of more than 40 digits are abbreviated, the rest of
// a message kept.
func TestShortText(t *testing.T) {
	long := strings.Repeat("1234567890", 30000)
	for _, c := range []struct{ in, want string }{
		{"x = 12 and 345", "x = 12 and 345"},
		{"x = " + long[:40] + "!", "x = " + long[:40] + "!"},
		{"x = " + long + " does not fit", "x = " + long[:16] + "..." + long[len(long)-4:] + " (300000 digits) does not fit"},
		{long[:41], long[:16] + "..." + long[37:41] + " (41 digits)"},
	} {
		if got := builtins.ShortText(c.in); got != c.want {
			t.Errorf("ShortText(%.60q...) = %.120q, want %.120q", c.in, got, c.want)
		}
	}
}

// TestCheckFuseAbbreviates: bitsh check's diagnostic for a constant that
// does not fit in a word names it in a line, not in 300 KB.
func TestCheckFuseAbbreviates(t *testing.T) {
	src := "f = lambda s: s + " + strings.Repeat("9", 300000) + "\n"
	f, err := syntax.Parse("c.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	lambda := f.Stmts[0].(*syntax.AssignStmt).RHS
	_, err = builtins.CheckFuse(lambda, func(string) (starlark.Value, bool) { return nil, false }, func(string) bool { return false }, nil)
	if err == nil || len(err.Error()) > 500 || !strings.Contains(err.Error(), "(an int of 996579 bits) does not fit in 64 bits") {
		t.Errorf("CheckFuse of a 300,000-digit constant: %.300v (%d bytes)", err, len(fmt.Sprint(err)))
	}
}

// TestCheckFuseLoadedHelper: bitsh check of a fused function that passes
// its scratch array (and a table) to a helper it cannot see (loaded from
// another file) takes the call as any helper's, not as an error; a word
// where an array cannot go is still one.
func TestCheckFuseLoadedHelper(t *testing.T) {
	src := "def root(i):\n    moves = [0] * 8\n    n = gen(i, moves, T)\n    return n + moves[0]\n" +
		"def bad(i):\n    return gen(i, [1, 2])\n"
	f, err := syntax.Parse("c.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	free := func(name string) (starlark.Value, bool) {
		if name == "T" {
			return starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.MakeInt(2)}), true
		}
		return nil, false
	}
	notBuiltin := func(string) bool { return false }
	noDefs := func(string) (*syntax.DefStmt, bool) { return nil, false }
	if _, err := builtins.CheckFuse(f.Stmts[0], free, notBuiltin, noDefs); err != nil {
		t.Errorf("a loaded helper given a scratch array and a table: %v", err)
	}
	if _, err := builtins.CheckFuse(f.Stmts[1], free, notBuiltin, noDefs); err == nil {
		t.Errorf("a list literal passed to a helper: checked as fine")
	}
}
