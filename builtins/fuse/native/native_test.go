package native_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
)

// runAll runs p on the inputs a block at a time and returns each item's
// result or error.
func runAll(t *testing.T, w *native.Worker, params int, inputs [][]uint64) ([]uint64, []error) {
	t.Helper()
	res := make([]uint64, len(inputs))
	errs := make([]error, len(inputs))
	for lo := 0; lo < len(inputs); {
		n := min(native.Batch, len(inputs)-lo)
		for p := 0; p < params; p++ {
			for i := 0; i < n; i++ {
				w.Params(p)[i] = inputs[lo+i][p]
			}
		}
		done, out, err := w.Run(n, false)
		copy(res[lo:], out[:done])
		if err != nil {
			if errors.Is(err, fuse.ErrStopped) {
				t.Fatal(err)
			}
			errs[lo+done] = err
			done++ // go on after the failing item
		}
		lo += done
	}
	return res, errs
}

// funcOf compiles the function f of src.
func funcOf(t testing.TB, src string) *fuse.Func {
	t.Helper()
	s, err := fusescript.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// engines returns the engines this machine runs: WebAssembly, and AMD64
// where it can.
func engines(t testing.TB) []native.Engine {
	return withAMD64(t, funcOf(t, "def f(x):\n    return x\n"), native.WebAssembly)
}

// withAMD64 returns es, and AMD64 where it compiles f.
func withAMD64(t testing.TB, f *fuse.Func, es ...native.Engine) []native.Engine {
	p, err := native.CompileWith(f, native.AMD64)
	if err != nil {
		t.Logf("no amd64 engine: %v", err)
		return es
	}
	p.Close()
	return append(es, native.AMD64)
}

func TestConstructsAgreeWithEval(t *testing.T) {
	for _, e := range engines(t) {
		for _, tc := range fusescript.Constructs {
			t.Run(e.String()+"/"+tc.Name, func(t *testing.T) { constructAgrees(t, e, tc) })
		}
	}
}

// TestRecursiveAgreeWithEval runs the recursive cases on the engines that
// compile calls (callEngines) and on Auto.
func TestRecursiveAgreeWithEval(t *testing.T) {
	for _, e := range append(callEngines(t), native.Auto) {
		for _, tc := range fusescript.Recursive {
			t.Run(e.String()+"/"+tc.Name, func(t *testing.T) { constructAgrees(t, e, tc) })
		}
	}
}

// callCases add to fusescript.Recursive what the wasm engine lays out
// apart: an array passed on by the helper it was passed to, arrays of
// frames passed down, and guards (leading "if X: return Y") that hold,
// or are skipped, at the call.
var callCases = []fusescript.Case{
	{Name: "array_passed_on", Src: `
def fill(a, i, n):
    if i == n:
        return 0
    a[i] = i * 7 + 1
    return fill(a, i + 1, n) + a[i]
def walk(x, d):
    b = [0] * 16
    b[15] = d
    if d == 0:
        return fill(b, 0, x % 16) + b[3]
    s = walk(x + 1, d - 1) * 3 + b[15]
    return (s + fill(b, 0, x % 7) + b[x % 16]) & U64
def f(x):
    return walk(x, x % 5)
`, Params: 1},
	{Name: "guards", Src: `
def g(x, y):
    if x > 100:
        return x - y
    if x & 1 == 0 and y:
        return y
    if x == 7:
        return 70 // y
    return g(x * 2 + 1, y ^ x) + 1
def f(x, y):
    return g(x % 50, y % 4)
`, Params: 2, Small: true},
	// What a caller needs after a call survives it: values held in the
	// middle of an expression, a loop's state, variables read later,
	// arguments that are calls, a call in a loop's condition.
	{Name: "live_across", Src: `
def h(x, d):
    if d == 0:
        return x * 3 + 1
    return (h(x ^ d, d - 1) + d) & U64
def f(x, y):
    t = 0
    for i in range(5):
        k = x + i
        t ^= (k * 7) ^ h(k, i) ^ ((y + h(h(y, 1) + k, 2)) * (k | 1)) ^ k
    j = 0
    while h(j, 1) < y % 50:
        j += 1
    return (t + j + x + y) & U64
`, Params: 2},
	// Calls in a row in one statement: what the later ones and the rest
	// of the statement read survives the earlier ones.
	{Name: "calls_in_a_row", Src: `
def h(x, d):
    if d == 0:
        return x + 1
    return (h(x * 3 + d, d - 1) ^ d) & U64
def f(x, y):
    a = x & 255
    b = y & 255
    t = (h(a, 2) + h(b, 3) * a + h(a + b, 1) - (a ^ h(b, 2))) & U64
    return t ^ a ^ (b << 8)
`, Params: 2},
}

// factCases check a square's range where an earlier check of the same
// variable does not cover them: it ran only on the right of an and, in an
// if, before the variable changed, after an early return of an inlined
// helper, or in a loop that changes the variable. Each fails on some
// inputs, and must fail there on every engine as under Eval.
var factCases = []fusescript.Case{
	{Name: "right_of_and", Src: `
def f(x, y):
    s = x % 100
    t = 0
    if y & 1 and chess.knight_attacks(s) != 0:
        t += 1
    return t + (chess.king_attacks(s) & 5)
`, Params: 2},
	{Name: "in_an_if", Src: `
def f(x, y):
    s = x % 100
    t = 0
    if y & 2:
        t += chess.knight_attacks(s)
    return t ^ chess.king_attacks(s)
`, Params: 2},
	{Name: "reassigned", Src: `
def f(x, y):
    u = x & 63
    t = chess.king_attacks(u)
    u = (x & 63) + (y & 64)
    return t ^ chess.knight_attacks(u)
`, Params: 2},
	{Name: "early_return", Src: `
def h(s, k):
    if k & 1:
        return 0
    return chess.king_attacks(s)
def f(x, y):
    s = x % 100
    t = h(s, y)
    return t ^ chess.knight_attacks(s)
`, Params: 2},
	{Name: "loop", Src: `
def f(x, y):
    v = x & 63
    t = 0
    for i in range(1 + (chess.king_attacks(v) & 3)):
        t ^= chess.knight_attacks(v)
        v = v + (y & 127)
    return t
`, Params: 2},
}

func TestFactCasesAgreeWithEval(t *testing.T) {
	for _, e := range engines(t) {
		for _, tc := range factCases {
			t.Run(e.String()+"/"+tc.Name, func(t *testing.T) { constructAgrees(t, e, tc) })
		}
	}
}

// TestFactsInExpressions: a check on the right of an and, which may not
// run, says nothing of the variable after it, nor does one in a loop's
// bound inside the loop (the compiler lowers such an and to an if, and
// computes a bound before the loop; the IR allows both).
func TestFactsInExpressions(t *testing.T) {
	v := func(i uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpVar, Imm: i, Check: -1} }
	masked := func() *fuse.Expr {
		return &fuse.Expr{Op: fuse.OpAnd, Check: 0, Args: []*fuse.Expr{v(0), {Op: fuse.OpConst, Imm: 63, Check: -1}}}
	}
	f := &fuse.Func{Params: 2, Vars: 2, Checks: []fuse.Check{{Kind: fuse.CheckFits, Imm: 6, Msg: "square"}},
		Body: []fuse.Stmt{{Kind: fuse.SReturn, X: &fuse.Expr{Op: fuse.OpAdd, Check: -1, Args: []*fuse.Expr{
			{Op: fuse.OpAndThen, Check: -1, Args: []*fuse.Expr{v(1), masked()}}, masked()}}}}}
	// for i in range(1 + (v0 & 63 [checked] & 3)): t ^= v0 & 63 [checked];
	// v0 += v1 & 127: the check in the loop's bound ran once, before v0
	// changed.
	c := func(k uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpConst, Imm: k, Check: -1} }
	op := func(o fuse.Op, a ...*fuse.Expr) *fuse.Expr { return &fuse.Expr{Op: o, Check: -1, Args: a} }
	loop := &fuse.Func{Params: 2, Vars: 4, Labels: 1, Checks: f.Checks, Body: []fuse.Stmt{
		{Kind: fuse.SAssign, Var: 3, X: c(0)},
		{Kind: fuse.SForRange, Var: 2, X: c(0), Y: op(fuse.OpAdd, op(fuse.OpAnd, masked(), c(3)), c(1)), Z: c(1), Check: -1, Body: []fuse.Stmt{
			{Kind: fuse.SAssign, Var: 3, X: op(fuse.OpXor, v(3), masked())},
			{Kind: fuse.SAssign, Var: 0, X: op(fuse.OpAdd, v(0), op(fuse.OpAnd, v(1), c(127)))},
		}},
		{Kind: fuse.SReturn, X: v(3)}}}
	for _, f := range []*fuse.Func{f, loop} {
		agreeOn(t, f, [][]uint64{{3, 0}, {70, 1}, {70, 0}, {5, 1}, {62, 100}, {3, 127}, {63, 1}})
	}
}

// agreeOn runs f on every engine and compares each result and failure with
// Eval's.
func agreeOn(t *testing.T, f *fuse.Func, inputs [][]uint64) {
	t.Helper()
	for _, e := range engines(t) {
		p := compileWith(t, f, e)
		w, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, errs := runAll(t, w, 2, inputs)
		st := f.NewState(nil)
		for i, in := range inputs {
			want, werr := st.Eval(in)
			if (werr == nil) != (errs[i] == nil) || werr == nil && got[i] != want {
				t.Errorf("%v: f%v = %d, %v; Eval gives %d, %v", e, in, got[i], errs[i], want, werr)
			}
		}
		w.Close()
		p.Close()
	}
}

func TestCallCasesAgreeWithEval(t *testing.T) {
	for _, e := range callEngines(t) {
		for _, tc := range callCases {
			t.Run(e.String()+"/"+tc.Name, func(t *testing.T) { constructAgrees(t, e, tc) })
		}
	}
}

func constructAgrees(t *testing.T, e native.Engine, tc fusescript.Case) {
	{
		{
			s, err := fusescript.Load(tc.Src)
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.Compile("f")
			if err != nil {
				t.Fatal(err)
			}
			p := compileWith(t, f, e)
			defer p.Close()
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			inputs := fusescript.Inputs(600, tc.Params, tc.Small)
			got, errs := runAll(t, w, tc.Params, inputs)
			st := f.NewState(nil)
			for i, in := range inputs {
				want, werr := st.Eval(in)
				if (werr == nil) != (errs[i] == nil) || werr == nil && got[i] != want {
					t.Fatalf("f%v = %#x, %v; Eval gives %#x, %v\n%s", in, got[i], errs[i], want, werr, f)
				}
				var fe, we *fuse.FlowError
				if errors.As(werr, &we) && (!errors.As(errs[i], &fe) || *fe != *we) {
					t.Fatalf("f%v: error %v; Eval gives %v", in, errs[i], werr)
				}
			}
		}
	}
}

// checkNative compiles the random function of seed and compares the
// machine code with Eval on the inputs (results and failing checks).
func checkNative(t *testing.T, e native.Engine, seed uint64, inputs [][]uint64) {
	t.Helper()
	checkNativeSource(t, e, seed, randfunc.Source(rand.New(rand.NewPCG(seed, 3))), inputs)
}

// checkNativeSource compares engine e with Eval on the function f of src.
func checkNativeSource(t *testing.T, e native.Engine, seed uint64, src string, inputs [][]uint64) {
	t.Helper()
	s, err := fusescript.Load(src)
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, src)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, src)
	}
	p := compileWith(t, f, e)
	defer p.Close()
	w, err := p.NewWorker(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, errs := runAll(t, w, f.Params, inputs)
	st := f.NewState(nil)
	for i, in := range inputs {
		want, werr := st.Eval(in)
		var fe, we *fuse.FlowError
		switch {
		case werr == nil && (errs[i] != nil || got[i] != want),
			errors.As(werr, &we) && (!errors.As(errs[i], &fe) || *fe != *we):
			t.Fatalf("%v seed %d: f%v = %#x, %v; Eval gives %#x, %v\n%s", e, seed, in, got[i], errs[i], want, werr, src)
		}
	}
}

// TestRandomFunctionsNative: random functions over the whole fused subset
// give the same words (and the same failing checks) as machine code as
// under Eval.
func TestRandomFunctionsNative(t *testing.T) {
	n := 60
	if testscale.Short() {
		n = 15
	}
	for _, e := range engines(t) {
		for seed := uint64(0); seed < uint64(n); seed++ {
			checkNative(t, e, seed, fusescript.Inputs(50, 2, seed%2 == 0))
		}
	}
}

// TestRandomRecursiveNative: random functions whose helpers recurse give
// the same words and failing checks on the engines that compile calls as
// under Eval.
func TestRandomRecursiveNative(t *testing.T) {
	n := 40
	if testscale.Short() {
		n = 10
	}
	for _, e := range append(callEngines(t), native.Auto) {
		for seed := uint64(0); seed < uint64(n); seed++ {
			src := randfunc.RecursiveSource(rand.New(rand.NewPCG(seed, 5)))
			checkNativeSource(t, e, seed, src, fusescript.Inputs(40, 2, seed%2 == 0))
		}
	}
}

// FuzzNative compares the machine code of random functions with Eval.
func FuzzNative(f *testing.F) {
	for seed := uint64(0); seed < 4; seed++ {
		f.Add(seed, seed*0x9e3779b97f4a7c15, uint64(seed%3))
	}
	es := engines(f)
	f.Fuzz(func(t *testing.T, seed, x, y uint64) {
		for _, e := range es {
			checkNative(t, e, seed%1024, [][]uint64{{x, y}, {x % 64, y % 64}, {y, x}})
		}
	})
}

// FuzzNativeRecursive compares the engines that compile calls with Eval
// on random functions whose helpers recurse.
func FuzzNativeRecursive(f *testing.F) {
	for seed := uint64(0); seed < 4; seed++ {
		f.Add(seed, seed*0x9e3779b97f4a7c15, uint64(seed%3))
	}
	es := callEngines(f)
	f.Fuzz(func(t *testing.T, seed, x, y uint64) {
		src := randfunc.RecursiveSource(rand.New(rand.NewPCG(seed%4096, 5)))
		for _, e := range es {
			checkNativeSource(t, e, seed, src, [][]uint64{{x, y}, {x % 64, y % 64}, {y, x}})
		}
	})
}

// TestSameFunctionTwice: two programs of the same function share wazero's
// compiled module; closing one leaves the other usable.
func TestSameFunctionTwice(t *testing.T) {
	f := funcOf(t, "def f(x):\n    n = 0\n    while x:\n        x &= x - 1\n        n += 1\n    return n\n")
	p1, err := native.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := native.Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	p1.Close()
	p1.Close() // twice is harmless
	w, err := p2.NewWorker(nil)
	if err != nil {
		t.Fatalf("the second program after the first closed: %v", err)
	}
	defer w.Close()
	w.Params(0)[0] = 0xff
	if _, res, err := w.Run(1, false); err != nil || res[0] != 8 {
		t.Errorf("f(0xff) = %v, %v; want 8", res, err)
	}
	p2.Close()
}

// TestLoopsResumeAfterPolls: loops of many times fuse.PollEvery iterations
// (nested, with scratch state and every loop kind) come back to Go to be
// polled and resume where they were, on every engine.
func TestLoopsResumeAfterPolls(t *testing.T) {
	src := `
def f(x, y):
    seen = [0] * 64
    n = 0
    for i in range(x):
        for b in bits(i | y):
            seen[b] += 1
        j = 0
        while j < 3:
            n += j * i
            j += 1
    for s in subsets(0xfffff):
        n ^= s
    return n + seen[3] * 7 + seen[17]
`
	f := funcOf(t, src)
	for _, e := range engines(t) {
		if polls := agreeCountingPolls(t, f, e, [][]uint64{{300000, 0x20008}, {1, 0}, {70000, 0}}); polls < 10 {
			t.Errorf("%v: %d polls; want one every %d iterations", e, polls, fuse.PollEvery)
		}
	}
}

// agreeCountingPolls runs f with engine e on the inputs, failing the test
// where a result differs from Eval's, and returns how many times the
// worker polled.
func agreeCountingPolls(t *testing.T, f *fuse.Func, e native.Engine, inputs [][]uint64) int {
	t.Helper()
	p := compileWith(t, f, e)
	defer p.Close()
	polls := 0
	w, err := p.NewWorker(func() bool { polls++; return false })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, errs := runAll(t, w, f.Params, inputs)
	st := f.NewState(nil)
	for i, in := range inputs {
		want, werr := st.Eval(in)
		if errs[i] != nil || werr != nil || got[i] != want {
			t.Fatalf("%v: f%v = %#x, %v; Eval gives %#x, %v", e, in, got[i], errs[i], want, werr)
		}
	}
	return polls
}

// TestStopThenRunAgain: a poll that says stop ends Run with fuse.ErrStopped
// inside an endless loop; the worker then runs other items from scratch.
func TestStopThenRunAgain(t *testing.T) {
	f := funcOf(t, "def f(x):\n    n = 0\n    while n < x:\n        n += 1\n    return n\n")
	for _, e := range engines(t) {
		p, err := native.CompileWith(f, e)
		if err != nil {
			t.Fatal(err)
		}
		polls := 0
		w, err := p.NewWorker(func() bool { polls++; return polls == 3 })
		if err != nil {
			t.Fatal(err)
		}
		w.Params(0)[0], w.Params(0)[1] = 5, ^uint64(0)
		if done, _, err := w.Run(2, false); !errors.Is(err, fuse.ErrStopped) || done != 1 {
			t.Errorf("%v: the endless item: done %d, %v; want 1, stopped", e, done, err)
		}
		w.Params(0)[0], w.Params(0)[1] = 7, 100000
		if done, res, err := w.Run(2, false); err != nil || done != 2 || res[0] != 7 || res[1] != 100000 {
			t.Errorf("%v: after the stop: %v, %v, %v; want 2, [7 100000], nil", e, done, res, err)
		}
		w.Close()
		p.Close()
	}
}

// TestBoundedLoopsPoll: loops with a small constant number of iterations
// count no fuel of their own on the amd64 engine; their iterations are
// charged on entry, so a block of items still comes back to be polled
// about every fuse.PollEvery iterations, on every engine.
func TestBoundedLoopsPoll(t *testing.T) {
	f := funcOf(t, "def f(x):\n    n = 0\n    for i in range(1000):\n        n += i ^ x\n    for b in bits(x):\n        n += b\n    return n\n")
	for _, e := range engines(t) {
		// 4096 items of 1000+ iterations: about 62 polls.
		polls := agreeCountingPolls(t, f, e, fusescript.Inputs(native.Batch, 1, false))
		if min := native.Batch * 1000 / fuse.PollEvery / 2; polls < min {
			t.Errorf("%v: %d polls in a block; want at least %d", e, polls, min)
		}
	}
}

func TestEngineNamed(t *testing.T) {
	for _, tc := range []struct {
		name string
		want native.Engine
		ok   bool
	}{{"", native.Auto, true}, {"auto", native.Auto, true}, {"amd64", native.AMD64, true}, {"wasm", native.WebAssembly, true}, {"WASM", 0, false}, {"gpu", 0, false}} {
		e, err := native.EngineNamed(tc.name)
		if (err == nil) != tc.ok || tc.ok && e != tc.want {
			t.Errorf("EngineNamed(%q) = %v, %v; want %v, ok %v", tc.name, e, err, tc.want, tc.ok)
		}
		if tc.ok && e.String() != map[native.Engine]string{native.Auto: "auto", native.AMD64: "amd64", native.WebAssembly: "wasm"}[e] {
			t.Errorf("%v.String() is wrong", e)
		}
	}
	t.Setenv("BITSH_FUSE_ENGINE", "wasm")
	f := funcOf(t, "def f(x):\n    while x > 3:\n        x -= 2\n    return x\n")
	p, err := native.Compile(f)
	if err != nil || p.Engine() != native.WebAssembly {
		t.Fatalf("under BITSH_FUSE_ENGINE=wasm: %v, %v", p, err)
	}
	p.Close()
	t.Setenv("BITSH_FUSE_ENGINE", "fast")
	if _, err := native.Compile(f); err == nil || !strings.Contains(err.Error(), "BITSH_FUSE_ENGINE") {
		t.Errorf("a bad engine name: %v", err)
	}
}

// TestAffineAndCount: parameters computed from a range (Affine) and
// counting in the code (Count) give what parameter blocks and Run give,
// up to a failing item, on every engine.
func TestAffineAndCount(t *testing.T) {
	f := funcOf(t, "def f(x, y):\n    if x % 7 == 3:\n        return 0\n    return (x * y + 1) // (x % 1000 - 500)\n")
	for _, e := range engines(t) {
		p, err := native.CompileWith(f, e)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ x0, dx, y0, dy uint64 }{{0, 1, 5, 3}, {600, 2, 1 << 63, ^uint64(0)}, {1 << 40, 7, 0, 0}} {
			n := native.Batch
			for i := 0; i < n; i++ {
				plain.Params(0)[i] = c.x0 + uint64(i)*c.dx
				plain.Params(1)[i] = c.y0 + uint64(i)*c.dy
			}
			done, res, err := plain.Run(n, false)
			var want uint64
			for _, r := range res[:done] {
				if r != 0 {
					want++
				}
			}
			a0, a1 := fast.Affine(0, true, c.x0, c.dx), fast.Affine(1, true, c.y0, c.dy)
			if a0 != (e == native.AMD64) || a1 != a0 {
				t.Errorf("%v: Affine = %v, %v", e, a0, a1)
			}
			if !a0 {
				copy(fast.Params(0), plain.Params(0))
				copy(fast.Params(1), plain.Params(1))
			}
			d2, r2, err2 := fast.Run(n, false)
			if d2 != done || fmt.Sprint(err2) != fmt.Sprint(err) || !slices.Equal(r2[:d2], res[:done]) {
				t.Errorf("%v %+v: Run with affine parameters: %d items, %v; want %d, %v", e, c, d2, err2, done, err)
			}
			d3, cnt, err3 := fast.Count(n)
			if d3 != done || cnt != want || fmt.Sprint(err3) != fmt.Sprint(err) {
				t.Errorf("%v %+v: Count = %d, %d, %v; want %d, %d, %v", e, c, d3, cnt, err3, done, want, err)
			}
			if !fast.Affine(0, false, 0, 0) || !fast.Affine(1, false, 0, 0) {
				t.Errorf("%v: Affine off refused", e)
			}
		}
		plain.Close()
		fast.Close()
		p.Close()
	}
}

// TestLongElifChain: an if/elif chain of 40000 branches compiles (in time
// linear in its length: the generator once walked every nested branch
// again for each) and agrees with Eval.
func TestLongElifChain(t *testing.T) {
	var b strings.Builder
	b.WriteString("def f(x):\n    if x == 0:\n        return 1\n")
	for i := 1; i < 40000; i++ {
		fmt.Fprintf(&b, "    elif x == %d:\n        return %d\n", i, i*7)
	}
	b.WriteString("    return 0\n")
	f := funcOf(t, b.String())
	for _, e := range engines(t) {
		if e == native.WebAssembly {
			continue
		}
		p, err := native.CompileWith(f, e)
		if err != nil {
			t.Fatal(err)
		}
		w, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		inputs := [][]uint64{{0}, {1}, {39999}, {40000}, {12345}}
		got, _ := runAll(t, w, 1, inputs)
		for i, in := range inputs {
			want, _ := f.NewState(nil).Eval(in)
			if got[i] != want {
				t.Errorf("%s: f(%d) = %d; want %d", e, in[0], got[i], want)
			}
		}
		w.Close()
		p.Close()
	}
}

// callEngines returns the engines this machine runs calls of helpers
// on: WebAssembly where wazero compiles (its interpreter allows too few
// nested calls), Eval, and AMD64 where the x86-64 generator runs.
func callEngines(t testing.TB) []native.Engine {
	f := funcOf(t, "def g(n):\n    return n if n < 2 else g(n - 1)\ndef f(x):\n    return g(x)\n")
	if len(f.Procs) == 0 {
		t.Fatal("g is not a call")
	}
	p, err := native.CompileWith(f, native.WebAssembly)
	if err != nil {
		t.Logf("no wasm engine for calls: %v", err)
		return []native.Engine{native.Eval}
	}
	p.Close()
	return withAMD64(t, f, native.WebAssembly, native.Eval)
}

// compileWith compiles f with engine e, failing the test where it cannot.
func compileWith(t testing.TB, f *fuse.Func, e native.Engine) *native.Executable {
	t.Helper()
	p, err := native.CompileWith(f, e)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRecursionPolls: calls tick the fuel as loop iterations do, so an
// exponential recursion without a loop comes back to be polled every
// fuse.PollEvery calls, stops when poll says so, and the worker then runs
// other items from scratch; a long loop deep in a recursion stops too, and
// the next run starts its frames from the bottom again.
func TestRecursionPolls(t *testing.T) {
	fib := funcOf(t, "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\ndef f(x):\n    return fib(x)\n")
	// Frames of 1000 elements: about 4000 calls deep at most, so that a
	// worker that went on from the depth where it stopped would overrun.
	deep := funcOf(t, `
def down(n, x):
    a = [0] * 1000
    a[n % 1000] = n
    if n == 0:
        k = 0
        while k < x:
            k += 1
        return k
    return down(n - 1, x) + 1 + a[n % 1000] - n
def f(x):
    return down(3000, x)
`)
	if deep.MaxCalls() > 6000 {
		t.Fatalf("down may go %d calls deep; the test wants less than twice 3000", deep.MaxCalls())
	}
	for _, e := range callEngines(t) {
		// fib(27) makes 2*fib(28)-1 calls.
		if polls, calls := agreeCountingPolls(t, fib, e, [][]uint64{{27}}), 2*317811-1; polls < calls/fuse.PollEvery {
			t.Errorf("%v: %d polls in %d calls; want one every %d calls", e, polls, calls, fuse.PollEvery)
		}
		// An item that ends (small, whose result is want), then one that
		// would not end for ages (x).
		for _, tc := range []struct {
			f              *fuse.Func
			small, x, want uint64
		}{{fib, 20, 200, 6765}, {deep, 3, ^uint64(0), 3000 + 3}} {
			p := compileWith(t, tc.f, e)
			polls := 0
			w, err := p.NewWorker(func() bool { polls++; return polls == 3 })
			if err != nil {
				t.Fatal(err)
			}
			w.Params(0)[0], w.Params(0)[1] = tc.small, tc.x
			if done, res, err := w.Run(2, false); !errors.Is(err, fuse.ErrStopped) || done != 1 || res[0] != tc.want {
				t.Errorf("%v: the endless item: done %d, %v, %v; want 1, [%d], stopped", e, done, res, err, tc.want)
			}
			if polls != 3 {
				t.Errorf("%v: stopped after %d polls; want 3", e, polls)
			}
			w.Params(0)[0], w.Params(0)[1] = tc.small, tc.small
			if done, res, err := w.Run(2, false); err != nil || done != 2 || res[0] != tc.want || res[1] != tc.want {
				t.Errorf("%v: after the stop: %v, %v, %v; want 2, [%d %d], nil", e, done, res, err, tc.want, tc.want)
			}
			w.Close()
			p.Close()
		}
	}
}

// TestRecursionDepth: a chain of calls as deep as the limit runs, one
// call deeper fails with the depth check and the depth it was at, as
// under Eval; with a large array per call the limit is lower, and every
// frame keeps its own array across the calls below it.
func TestRecursionDepth(t *testing.T) {
	plain := funcOf(t, `
def down(n, a, b, c, d, e, g, h, i, j, k, l, m, o, p, q):
    if n == 0:
        return a ^ q
    return down(n - 1, b, c, d, e, g, h, i, j, k, l, m, o, p, q, a + n) + 1
def f(x):
    return down(x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
`)
	framed := funcOf(t, `
def down(n):
    a = [0] * 100000
    a[n] = n + 1
    a[99999] = 7
    if n == 0:
        return a[0] + a[1]
    r = down(n - 1)
    return r + a[n] * 3 + a[99999] + a[n + 1]
def f(x):
    return down(x)
`)
	for _, tc := range []struct {
		f     *fuse.Func
		depth int
	}{{plain, fuse.MaxDepth}, {framed, framed.MaxCalls()}} {
		if tc.f.MaxCalls() != tc.depth || tc.depth < 10 {
			t.Fatalf("the limit is %d; want %d", tc.f.MaxCalls(), tc.depth)
		}
		d := uint64(tc.depth)
		inputs := [][]uint64{{0}, {5}, {d - 2}, {d - 1}, {d}, {d + 1}, {d + 2}}
		st := tc.f.NewState(nil)
		var fe *fuse.FlowError
		if _, err := st.Eval([]uint64{d - 2}); err != nil {
			t.Fatalf("Eval: f(%d): %v", d-2, err)
		}
		if _, err := st.Eval([]uint64{d + 2}); !errors.As(err, &fe) || tc.f.Checks[fe.Check].Kind != fuse.CheckDepth || fe.Value != d {
			t.Fatalf("Eval: f(%d): %v; want the depth check failing at %d", d+2, err, d)
		}
		for _, e := range callEngines(t) {
			p := compileWith(t, tc.f, e)
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			got, errs := runAll(t, w, 1, inputs)
			for i, in := range inputs {
				want, werr := st.Eval(in)
				var we *fuse.FlowError
				if (werr == nil) != (errs[i] == nil) || werr == nil && got[i] != want ||
					errors.As(werr, &we) && (!errors.As(errs[i], &fe) || *fe != *we) {
					t.Errorf("%v: f(%d) = %d, %v; Eval gives %d, %v", e, in[0], got[i], errs[i], want, werr)
				}
			}
			w.Close()
			p.Close()
		}
	}
}
