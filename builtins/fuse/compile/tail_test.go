package compile_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
)

// jumps reports whether a Proc of f has had calls of itself turned into
// jumps (its depth read into a variable at its start: the only place the
// calls in progress are read).
func jumps(f *fuse.Func) bool {
	found := false
	f.EachExpr(func(x *fuse.Expr) { found = found || x.Op == fuse.OpDepth })
	return found
}

func keepTailCalls(o *compile.Options) { o.KeepTailCalls = true }

// sameRuns compares Eval of f (tail calls as jumps) and of g (kept as
// calls) on the inputs: the same word, or the same failing check with the
// same value.
func sameRuns(t *testing.T, what string, f, g *fuse.Func, inputs [][]uint64) {
	t.Helper()
	sf, sg := f.NewState(nil), g.NewState(nil)
	for _, in := range inputs {
		got, gerr := sf.Eval(in)
		want, werr := sg.Eval(in)
		var ge, we *fuse.FlowError
		switch {
		case werr == nil && (gerr != nil || got != want),
			werr != nil && (!errors.As(werr, &we) || !errors.As(gerr, &ge) || *ge != *we):
			t.Fatalf("%s: f%v = %#x, %v with jumps; %#x, %v with calls\n%s", what, in, got, gerr, want, werr, f)
		}
	}
}

// TestTailCallsAsCalls: random functions whose recursive helpers end in a
// call of themselves (returned, or added to a word) give the same words
// and failures with those calls as jumps as with them as calls, and the
// pass rewrites some of them (TestRandomRecursiveFunctionsAgree compares
// the same functions with plain Starlark).
func TestTailCallsAsCalls(t *testing.T) {
	n := 200
	if testscale.Short() {
		n = 60
	}
	rewritten := 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		src := randfunc.RecursiveSource(rand.New(rand.NewPCG(seed, 0x7ec)))
		s := load(t, src)
		f, err := s.Compile("f")
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		g, err := s.CompileWith("f", keepTailCalls)
		if err != nil {
			t.Fatal(err)
		}
		if jumps(g) {
			t.Fatalf("seed %d: KeepTailCalls rewrote calls", seed)
		}
		if jumps(f) {
			rewritten++
		}
		sameRuns(t, src, f, g, randomInputs(rand.New(rand.NewPCG(seed, 1)), 20))
	}
	t.Logf("%d of %d functions had calls turned into jumps", rewritten, n)
	if rewritten < n/5 {
		t.Errorf("only %d of %d functions had tail calls: the generator tests little", rewritten, n)
	}
}

// TestTailCallCases: the forms the pass rewrites and those it leaves, on
// their own, against the same function with calls and against plain
// Starlark; a chain of tail calls fails its depth check where the calls
// would, with the same value.
func TestTailCallCases(t *testing.T) {
	cases := []struct {
		name, src string
		jumps     bool
	}{
		{"returned", `
def h(x, n):
    if n == 0:
        return x
    return h((x * 3 + 1) & U64, n - 1)
def f(x, y):
    return h(x, y % 50)
`, true},
		{"added", `
def h(x, n):
    if n == 0:
        return 1
    if x & 1:
        return (x & 0xffff) + h(x >> 1, n - 1)
    return h(x >> 1, n - 1)
def f(x, y):
    return h(x, y % 70)
`, true},
		{"two calls", `
def h(v, d):
    if (v >> 3) & 1 == 1:
        return 0
    if d == 0:
        return 1
    return h((2 * v) & 63, d - 1) + h((2 * v + 1) & 63, d - 1)
def f(x, y):
    return h(x & 63, y % 9)
`, true},
		{"arguments swapped", `
def h(a, b, n):
    if n == 0:
        return (a - b) & U64
    return h(b, (a + n) & U64, n - 1)
def f(x, y):
    return h(x, y, y % 20)
`, true},
		{"locals and a guard", `
def h(a, n):
    if n > 40:
        return 7
    if n == 0:
        return a
    t = a ^ (a >> 3)
    u = t + n
    return h(u, n - 1)
def f(x, y):
    return h(x, y % 45)
`, true},
		{"own array", `
def h(a, n):
    m = [0] * 4
    m[n & 3] = a
    if n == 0:
        return m[0]
    return h((a + m[n & 3]) & U64, n - 1)
def f(x, y):
    return h(x, y % 12)
`, true},
		{"mutual, left as calls", `
def even(n):
    if n == 0:
        return 1
    return odd(n - 1)
def odd(n):
    if n == 0:
        return 0
    return even(n - 1)
def f(x, y):
    return even(x % 100)
`, false},
		{"subtracted, left as a call", `
def h(x, n):
    if n == 0:
        return x
    return x - h(x >> 1, n - 1)
def f(x, y):
    return h(x, y % 30)
`, false},
	}
	inputs := randomInputs(rand.New(rand.NewPCG(7, 7)), 40)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, c.src)
			f, err := s.Compile("f")
			if err != nil {
				t.Fatal(err)
			}
			g, err := s.CompileWith("f", keepTailCalls)
			if err != nil {
				t.Fatal(err)
			}
			if jumps(f) != c.jumps {
				t.Fatalf("calls turned into jumps: %v, want %v\n%s", jumps(f), c.jumps, f)
			}
			sameRuns(t, c.name, f, g, inputs)
			agree(t, c.src, "f", inputs)
		})
	}

	// Endless tail recursion: the depth check fails where the calls would
	// have, naming the chain, with the same value (the calls in progress).
	src := `
def h(x):
    return h(x + 1)
def f(x, y):
    return h(x)
`
	s := load(t, src)
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.CompileWith("f", keepTailCalls)
	if err != nil {
		t.Fatal(err)
	}
	if !jumps(f) {
		t.Fatalf("h's call of itself is still a call:\n%s", f)
	}
	sameRuns(t, "endless", f, g, [][]uint64{{0, 0}, {5, 1}})
	_, err = f.NewState(nil).Eval([]uint64{0, 0})
	var fe *fuse.FlowError
	if !errors.As(err, &fe) || !strings.Contains(f.Checks[fe.Check].Msg, "recursion deeper than") || fe.Value != uint64(f.MaxCalls()) {
		t.Errorf("endless tail recursion: %v; want the depth check failing at %d calls", err, f.MaxCalls())
	}
}

// TestExactTailCallsOnlyAtLeaves: exact compilation turns a helper's
// calls of itself in tail position into jumps only where the helper makes
// no other call, so that the depth the jumps count is every call's (a
// Starlark run of a helper that mixes both takes a frame for each); and
// it records how deep inlined helpers nest (fuse.Func.Inlined: f's body
// inlines h; in "through a helper", h and g, whose call of h, returned by
// the inlined h, is the Proc's call in tail position).
func TestExactTailCallsOnlyAtLeaves(t *testing.T) {
	exact := func(o *compile.Options) { o.Exact = true }
	cases := []struct {
		name, src string
		jumps     bool
		inlined   int
	}{
		{"returned", `
def h(x, n):
    if n == 0:
        return x
    return h(x + 1, n - 1)
def f(x, y):
    return h(x, y % 50)
`, true, 1},
		{"mixed", `
def h(x, n):
    if n == 0:
        return x
    if n % 3 != 0:
        return h(x + 1, n - 1)
    r = h(x, n - 1)
    return r
def f(x, y):
    return h(x, y % 50)
`, false, 1},
		{"added to a call", `
def h(n):
    if n < 2:
        return n
    return h(n - 1) + h(n - 2)
def f(x, y):
    return h(x % 20)
`, false, 1},
		{"through a helper", `
def g(n):
    return h(n - 1) + 0
def h(n):
    if n == 0:
        return 7
    return g(n)
def f(x, y):
    return h(x % 20)
`, true, 2},
	}
	for _, c := range cases {
		s := load(t, c.src)
		f, err := s.CompileWith("f", exact)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if jumps(f) != c.jumps {
			t.Errorf("%s: calls made jumps %v, want %v", c.name, jumps(f), c.jumps)
		}
		if f.Inlined != c.inlined {
			t.Errorf("%s: Inlined = %d, want %d", c.name, f.Inlined, c.inlined)
		}
		g, err := s.CompileWith("f", func(o *compile.Options) { o.Exact, o.KeepTailCalls = true, true })
		if err != nil {
			t.Fatal(err)
		}
		sameRuns(t, c.name, f, g, randomInputs(rand.New(rand.NewPCG(7, 1)), 20))
	}
}
