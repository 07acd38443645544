package compile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"go.starlark.net/starlark"
)

type script = fusescript.Script

func load(t testing.TB, src string) *script {
	t.Helper()
	s, err := fusescript.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// agree checks the Func against the plain function on the inputs.
func agree(t *testing.T, src, name string, inputs [][]uint64) {
	t.Helper()
	s := load(t, src)
	f, err := s.Compile(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	st := f.NewState(nil)
	for _, in := range inputs {
		want, ok := s.Call(name, in...)
		got, err := st.Eval(in)
		if !ok {
			if err == nil {
				t.Errorf("%s%v = %#x; plain Starlark fails", name, in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s%v = %#x, %v; want %#x\n%s", name, in, got, err, want, f)
			return
		}
	}
}

func TestConstructsAgreeWithStarlark(t *testing.T) {
	for _, tc := range fusescript.Constructs {
		t.Run(tc.Name, func(t *testing.T) {
			agree(t, tc.Src, "f", fusescript.Inputs(300, tc.Params, tc.Small))
		})
	}
}

func TestChecksAndErrors(t *testing.T) {
	s := load(t, `
T = [1, 2, 3]
def f(i):
    return T[i]
def g(x):
    seen = [0] * 8
    seen[x] = 1
    return 1
def h(x):
    n = 0
    while True:
        n += 1
    return n
def k(x):
    if x:
        return 1
`)
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	st := f.NewState(nil)
	for _, tc := range []struct {
		i    uint64
		want uint64
		ok   bool
	}{{0, 1, true}, {2, 3, true}, {^uint64(0), 3, true}, {^uint64(2), 1, true}, {3, 0, false}, {^uint64(3), 0, false}} {
		got, err := st.Eval([]uint64{tc.i})
		var fe *fuse.FlowError
		if tc.ok && (err != nil || got != tc.want) || !tc.ok && (!errors.As(err, &fe) || fe.Value != tc.i || !strings.Contains(f.Checks[fe.Check].Msg, "table T")) {
			t.Errorf("f(%#x) = %d, %v; want %d, ok %v", tc.i, got, err, tc.want, tc.ok)
		}
	}
	g, err := s.Compile("g")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.NewState(nil).Eval([]uint64{8}); err == nil {
		t.Errorf("g(8): no error for an index out of range of the scratch array")
	}
	h, err := s.Compile("h")
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	if _, err := h.NewState(func() bool { polls++; return polls == 3 }).Eval([]uint64{1}); err != fuse.ErrStopped || polls != 3 {
		t.Errorf("h: endless loop gave %v after %d polls; want ErrStopped after 3", err, polls)
	}
	k, err := s.Compile("k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.NewState(nil).Eval([]uint64{0}); !errors.As(err, new(*fuse.FlowError)) {
		t.Errorf("k(0): %v; want a check that it ended without return", err)
	}
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"def f(x):\n    return [x]\n", "2:12: a fused function cannot build a list; use a scratch array"},
		{"def f(x):\n    return {x: 1}\n", "cannot build a dict"},
		{"def g(x):\n    print(x)\n    return g(x)\ndef f(x):\n    return g(x)\n", "print is not allowed"},
		{"def g(x, a):\n    a = [0] * 3\n    return g(x, a)\ndef f(x):\n    b = [0] * 3\n    return g(x, b)\n", "cannot rebind it"},
		{"R = [[1], [2]]\ndef g(r):\n    return r[0]\ndef f(x):\n    r = R[x]\n    return g(r)\n", "pass the table and the row's index"},
		{"def f(x):\n    a = [0] * (1 << 21)\n    return 1\n", "at most 1048576 elements"},
		{"def f(x):\n    a = [0] * x\n    return 1\n", "must be a constant"},
		{"def f(x):\n    a = [0] * (1 << 20)\n    b = [0] * (1 << 20)\n    c = [0] * (1 << 20)\n    d = [0] * (1 << 20)\n    e = [0] * 5\n    return a[x] + e[x]\n",
			"6:5: the scratch arrays of a fused function hold at most 4194304 words in all, not 4194309 (with e)"},
		{"T = [1]\ndef f(x):\n    T[0] = x\n    return 1\n", "read-only table"},
		{"def f(x):\n    for c in 'abc':\n        pass\n    return 1\n", "loop over range(...)"},
		{"def f(x):\n    print(x)\n    return 1\n", "print is not allowed"},
		{"def f(x):\n    return x.bit_length()\n", "not allowed"},
		{"def f(x):\n    return [v for v in range(3)]\n", "comprehension"},
	} {
		s := load(t, tc.src)
		_, err := s.Compile("f")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error containing %q", tc.src, err, tc.want)
		}
	}
}

// TestNoDeadCode checks that a helper ending in return compiles to no
// fallback failure and no break to its own end, that code after a return
// is dropped, and that the results still agree with Starlark.
func TestNoDeadCode(t *testing.T) {
	src := `
def h(x):
    x = (x * 3) & U64
    if x & 1:
        return x + 1
    else:
        return x
def f(i):
    y = (h(i) + h(i + 1)) & U64
    if y > 10:
        return y
        y = 1
    return 0
`
	f, err := load(t, src).Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	ir := f.String()
	for _, dead := range []string{"fail", "break"} {
		if strings.Contains(ir, dead) {
			t.Errorf("the IR has a dead %s:\n%s", dead, ir)
		}
	}
	if n := strings.Count(ir, "assign v"); n != 9 {
		t.Errorf("the IR has %d assignments, want 9 (2 arguments, 2 updates of x, 4 returns, y):\n%s", n, ir)
	}
	agree(t, src, "f", fusescript.Inputs(300, 1, false))
	// A helper that may run off its end keeps its failure.
	g, err := load(t, "def h(x):\n    if x:\n        return 1\ndef f(i):\n    return h(i)\n").Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.String(), "fail") {
		t.Errorf("a helper that may end without return lost its failure:\n%s", g)
	}
}

func TestRecursiveAgreeWithStarlark(t *testing.T) {
	for _, tc := range fusescript.Recursive {
		t.Run(tc.Name, func(t *testing.T) {
			s := load(t, tc.Src)
			f, err := s.Compile("f")
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Procs) == 0 {
				t.Fatalf("%s compiled without calls:\n%s", tc.Name, f)
			}
			agree(t, tc.Src, "f", fusescript.Inputs(300, tc.Params, tc.Small))
		})
	}
}

// TestRunawayRecursion checks that recursion without end, direct or
// mutual, stops at the depth limit with the check of the call.
func TestRunawayRecursion(t *testing.T) {
	for _, tc := range []struct{ src, chain string }{
		{"def f(x):\n    return f(x + 1) + 1\n", "(f -> f -> ...)"},
		{"def g(x):\n    return h(x) + 1\ndef h(x):\n    return g(x + 1)\ndef f(x):\n    return g(x)\n", "(g -> h -> g -> ...)"},
		{"def g(x):\n    big = [7] * 100000\n    return g(big[x % 7])\ndef f(x):\n    return g(x)\n", "(g -> g -> ...)"},
	} {
		s := load(t, tc.src)
		f, err := s.Compile("f")
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		_, err = f.NewState(nil).Eval([]uint64{1})
		var fe *fuse.FlowError
		if !errors.As(err, &fe) {
			t.Fatalf("%q: %v; want a failed check", tc.src, err)
		}
		c := f.Checks[fe.Check]
		want := fmt.Sprintf("recursion deeper than %d calls %s", f.Depth, tc.chain)
		if c.Kind != fuse.CheckDepth || c.Msg != want {
			t.Errorf("%q: check %+v; want %q", tc.src, c, want)
		}
		if int(fe.Value) != f.Depth || f.Depth > fuse.MaxDepth || f.Depth < 2 {
			t.Errorf("%q: failed at depth %d of %d", tc.src, fe.Value, f.Depth)
		}
	}
}

// TestUnrollingBounded: constant loops nested five deep (a billion
// iterations unrolled) are not a straight line; they compile as a Func
// with real loops.
func TestUnrollingBounded(t *testing.T) {
	src := "def f(x):\n    s = 0\n"
	ind := "    "
	for i := 0; i < 5; i++ {
		src += ind + fmt.Sprintf("for a%d in range(64):\n", i)
		ind += "    "
	}
	src += ind + "s += (x ^ a0 ^ a4) & 1\n    return s\n"
	s := load(t, src)
	src1, err := s.Source(s.Globals["f"].(*starlark.Function))
	if err != nil {
		t.Fatal(err)
	}
	f, err := compile.Func(src1, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.StraightLine(); err == nil || !strings.Contains(err.Error(), "too long for a straight line") {
		t.Errorf("StraightLine: %v; want too long for a straight line", err)
	}
	if len(f.Body) > 10 {
		t.Errorf("the Func has %d statements; want real loops", len(f.Body))
	}
}

// TestHelperChainCompilesLinearly: twelve helpers each calling the next
// twice would inline 4096 copies; past the inlining budget they are calls,
// and the answers stay the plain function's.
func TestHelperChainCompilesLinearly(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "def h%d(x):\n    return h%d(x + 1) ^ h%d(x * 3)\n", i, i+1, i+1)
	}
	b.WriteString("def h12(x):\n    return x & 7\ndef f(x):\n    return h0(x)\n")
	s := load(t, b.String())
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Procs) == 0 || len(f.Procs) > 12 {
		t.Errorf("%d procedures; want the helpers past the budget as calls", len(f.Procs))
	}
	agree(t, b.String(), "f", [][]uint64{{0}, {5}, {1 << 40}})
}

// TestStraightLineAgreesWithEval: the straight line that StraightLine
// finds in a compiled function computes what the Func computes, item by
// item, and fails at the same check (message and position) where the Func
// fails; the functions beyond a straight line are refused.
func TestStraightLineAgreesWithEval(t *testing.T) {
	straight := []string{
		"def f(x):\n    return debruijn_bsf(x, 0x077CB531, 32)\n",
		"def f(x):\n    return debruijn_bsf(x)\n",
		"def f(x, y):\n    if x & 1:\n        return rotl(x, y, 8)\n    return rotr(y, x, width=16) + reverse_bits(x, 32) + swap_bytes(y, 16)\n",
		"def f(x, y, z):\n    return delta_swap(x, y, z) + (x // y if z else x % z)\n",
		"def f(x):\n    if x:\n        return bsf(x)\n",
		"def f(x):\n    s = 0\n    for i in range(10):\n        if s > x:\n            return i\n        s += bsr(x >> i)\n    return s\n",
		"def f(x, y):\n    return (x and bsf(y)) or (y and bsr(x)) or (x // (y & 3))\n",
		"def f(x):\n    popcount(x) // (x & 1)\n    return 0\n",
		"def f(x):\n    a, b = x, bsf(x)\n    return a + b\n",
		"def f(x):\n    for i in range(3, -10, -2):\n        x ^= i\n    return x\n",
		"def f(x):\n    return x // 0\n",
		"def f(x):\n    y = 0\n    if x:\n        y = 5\n    return y\n",
		"def g(x):\n    return 100 // x\ndef f(x):\n    return (x and g(x)) + g(x + 1) * 1000\n",
	}
	notStraight := []string{
		"def f(x):\n    n = 0\n    while x:\n        x &= x - 1\n        n += 1\n    return n\n",
		"def f(x):\n    s = 0\n    for i in range(65):\n        s += i\n    return s\n",
		"def f(x):\n    s = 0\n    for i in range(x & 7):\n        s += i\n    return s\n",
		"def f(x):\n    for i in range(8):\n        if i == x:\n            break\n    return i\n",
		"T = [1, 2, 3]\ndef f(x):\n    return T[x & 1]\n",
		"def f(x):\n    a = [0] * 4\n    a[x & 3] = 1\n    return a[0]\n",
		"def f(x):\n    return min(x, 3)\n",
		"def g(x):\n    if x < 2:\n        return x\n    return g(x - 1) + 1\ndef f(x):\n    return g(x & 7)\n",
	}
	words := []uint64{0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 255, 256, 1 << 31, 1 << 32, 1 << 63, ^uint64(0), 0x5555, 0xfffe}
	for _, src := range straight {
		s := load(t, src)
		f, err := s.Compile("f")
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		p, err := f.StraightLine()
		if err != nil {
			t.Errorf("%v\n%s", err, src)
			continue
		}
		st := f.NewState(nil)
		in := make([]uint64, f.Params)
		for i := 0; i < 2000; i++ {
			for j := range in {
				in[j] = words[(i*7+j*13+i/len(words))%len(words)]
			}
			want, werr := st.Eval(in)
			got, chk := p.Eval(in)
			var fe *fuse.FlowError
			if errors.As(werr, &fe) {
				w := f.Checks[fe.Check]
				if chk < 0 {
					t.Fatalf("%v: the straight line gives %#x, the Func fails at %q\n%s", in, got, w.Msg, src)
				}
				if g := p.Checks[chk]; g.Msg != w.Msg || g.Line != w.Line || g.Col != w.Col {
					t.Fatalf("%v: the straight line fails at %d:%d: %q, the Func at %d:%d: %q\n%s", in, g.Line, g.Col, g.Msg, w.Line, w.Col, w.Msg, src)
				}
				continue
			}
			if werr != nil || chk >= 0 || got != want {
				t.Fatalf("%v: the straight line gives %#x (check %d), the Func %#x, %v\n%s", in, got, chk, want, werr, src)
			}
		}
	}
	for _, src := range notStraight {
		f, err := load(t, src).Compile("f")
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if _, err := f.StraightLine(); err == nil {
			t.Errorf("a straight line found in\n%s", src)
		}
	}
}

// TestCycleBrokenOutsideLoops: in a cycle of two helpers where one calls
// the other in a loop and the other calls back once, the one called back
// is the Proc (a call per node, the loop's callee inlined into it), from
// whichever helper the fused function enters the cycle; the results are
// plain Starlark's.
func TestCycleBrokenOutsideLoops(t *testing.T) {
	const helpers = `
def node(x, d):
    if d == 0:
        return 1
    t = 0
    for i in range(3):
        t += step(x, i, d)
    return t
def step(x, i, d):
    y = (x * 5 + i) & 255
    if y & 1 and d == 1:
        return 1
    return node(y, d - 1)
`
	for _, entry := range []string{"node(x, 4)", "step(x, 1, 4)"} {
		src := helpers + "def f(x):\n    return " + entry + "\n"
		f, err := load(t, src).Compile("f")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range f.Procs {
			names = append(names, p.Name)
		}
		if len(names) != 1 || names[0] != "node" {
			t.Errorf("f = %s: procedures %v; want [node]\n%s", entry, names, f)
		}
		agree(t, src, "f", fusescript.Inputs(100, 1, false))
	}
}

// TestListCopy: b = list(a) of a scratch array is a fresh copy in a
// fused function, as in plain Starlark.
func TestListCopy(t *testing.T) {
	for _, n := range []int{3, 40} {
		src := fmt.Sprintf("def f(x, y):\n    a = [7] * %d\n    a[x %% %d] = y\n    b = list(a)\n    b[y %% %d] ^= x\n    b = list(b)\n    return a[y %% %d] * 3 + b[x %% %d] + len(b)\n", n, n, n, n, n)
		agree(t, src, "f", [][]uint64{{0, 1}, {5, 9}, {1 << 40, 3}, {2, 2}, {39, 41}})
	}
}

// TestAppendLists: lists built by append, iterated, indexed and measured,
// loops over a tuple of values, and helpers that take and return arrays,
// in a fused function, as in plain Starlark.
func TestAppendLists(t *testing.T) {
	const src = `
def evens(x):
    out = []
    for i in bits(x):
        if i % 2 == 0:
            out.append(i)
    return out

def bump(a, k):
    for i in range(len(a)):
        a[i] += k

def f(x, y):
    n = 0
    for v in evens(x):
        n = n * 7 + v
    ms = evens(y)
    if len(ms) > 1:
        ms[1] += 3
        n += ms[len(ms) - 1] * ms[1]
    for k in (3, y % 5, 11):
        n ^= k << 8
    w = [x % 9, y % 9]
    bump(w, 2)
    for i, v in enumerate(w):
        n = n * 3 + i * v
    for i, v in enumerate(evens(x | y)):
        n ^= v << i
    return n + w[0] * 100 + w[1]
`
	agree(t, src, "f", [][]uint64{{0, 0}, {0x5555, 0xffff}, {1 << 63, 0x1234}, {0xf0f0, 3}, {7, 1 << 40}})
}

// TestListFromItself: a list literal assigned to the name of a list reads
// the old list's elements before the new list replaces it, as Starlark
// evaluates the literal first.
func TestListFromItself(t *testing.T) {
	const src = `
def f(x, y):
    a = [x, y % 5]
    a = [a[1] + 1, a[0] ^ y]
    out = []
    out.append(x % 7)
    out = [out[0] + 2, a[1]]
    out.append(a[0])
    return a[0] * 3 + a[1] + out[0] * 5 + out[1] + out[len(out) - 1] + len(out)
`
	agree(t, src, "f", [][]uint64{{0, 0}, {7, 9}, {1 << 40, 3}, {12345, 678}})
}
