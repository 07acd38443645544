package compile_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

func exactly(o *compile.Options) { o.Exact = true }

// exactRuns runs f on the engines that can run it: the evaluator always,
// the x86-64 code where this machine runs it.
func exactRuns(t testing.TB, f *fuse.Func) map[string]func(args []uint64) (uint64, error) {
	t.Helper()
	runs := map[string]func([]uint64) (uint64, error){
		"eval": func(args []uint64) (uint64, error) { return f.NewState(nil).Eval(args) },
	}
	p, err := native.CompileWith(f, native.AMD64)
	if err != nil {
		return runs
	}
	t.Cleanup(p.Close)
	runs["amd64"] = func(args []uint64) (uint64, error) {
		w, err := p.NewWorker(nil)
		if err != nil {
			return 0, err
		}
		defer w.Close()
		for i, a := range args {
			w.Params(i)[0] = a
		}
		_, res, err := w.Run(1, false)
		if err != nil {
			return 0, err
		}
		return res[0], nil
	}
	return runs
}

// exactAgrees runs name of s plainly and compiled with Options.Exact on
// each input: where the compiled function gives a word, plain Starlark
// gives the same int; where plain Starlark fails or gives anything but a
// word, the compiled function fails. It returns how many runs gave a word
// and how many failed.
func exactAgrees(t testing.TB, s *fusescript.Script, src, name string, inputs [][]uint64) (words, fails int) {
	t.Helper()
	f, err := s.CompileWith(name, exactly)
	if err != nil {
		t.Fatalf("%s does not compile exactly: %v\n%s", name, err, src)
	}
	thread := &starlark.Thread{Name: "plain"}
	thread.SetMaxExecutionSteps(1 << 24)
	for _, in := range inputs {
		args := make(starlark.Tuple, len(in))
		for i, a := range in {
			args[i] = starlark.MakeUint64(a)
		}
		v, perr := starlark.Call(thread, s.Globals[name], args, nil)
		if perr != nil && strings.Contains(perr.Error(), "too many steps") {
			t.Fatalf("%s%v runs too long in plain Starlark\n%s", name, in, src)
		}
		want, isWord := uint64(0), false
		if i, isInt := v.(starlark.Int); isInt && perr == nil && f.ResultBias != 0 {
			v = i.Add(starlark.MakeUint64(f.ResultBias)) // (the word result is biased)
		}
		if perr == nil {
			want, isWord = compile.WordOf(v)
			_, isBool := v.(starlark.Bool)
			if i, isInt := v.(starlark.Int); isBool != f.ReturnsBool || !isBool && (!isInt || i.Sign() < 0) {
				isWord = false
			}
		}
		for engine, run := range exactRuns(t, f) {
			got, ferr := run(in)
			switch {
			case ferr != nil:
				fails++
			case !isWord:
				t.Fatalf("%s%v on %s = %#x; plain Starlark gives %v (error %v)\n%s\n%s", name, in, engine, got, v, perr, src, f)
			case got != want:
				t.Fatalf("%s%v on %s = %#x; plain Starlark gives %#x\n%s\n%s", name, in, engine, got, want, src, f)
			default:
				words++
			}
		}
	}
	return words, fails
}

var exactWords = []uint64{0, 1, 2, 3, 7, 63, 64, 65, 1 << 31, 1<<32 - 1, 1 << 40, 1<<63 - 1, 1 << 63, 1<<64 - 2, 1<<64 - 1, 0x9e3779b97f4a7c15}

// TestExactCases: functions at the edges of the words agree with plain
// Starlark where they give a word (one parameter or two, every pair of
// exactWords), and those whose body Starlark types otherwise are refused.
func TestExactCases(t *testing.T) {
	runs := []struct{ name, src string }{
		{"add", "def f(x, y): return x + y"},
		{"sub", "def f(x, y): return x - y"},
		{"mul", "def f(x, y): return x * y"},
		{"mul in words", "U64 = (1 << 64) - 1\ndef f(x, y): return (x * y) & U64"},
		{"shl", "def f(x, y): return x << (y & 127)"},
		{"shl count", "def f(x, y): return x << y"},
		{"shr", "def f(x, y): return x >> y"},
		{"and not", "def f(x, y): return x & ~y"},
		{"not and", "def f(x, y): return ~y & x"},
		{"lsb", "def f(x, y): return x & -x"},
		{"carry rippler", "def f(x, y): return (x - y) & y"},
		{"div mod", "def f(x, y): return x // y + x % y"},
		{"index", "def f(x, y):\n    a = [0] * 8\n    a[x] = y\n    return a[x]"},
		{"enumerate", "def f(x, y):\n    a = [x & 0xff, y & 0xff, 3]\n    n = 0\n    for i, v in enumerate(a):\n        n = n * 5 + i * v\n    for i, v in enumerate((7, x & 3)):\n        n += i + v\n    return n"},
		{"list from itself", "def f(x, y):\n    a = [x, y & 0xff]\n    a = [a[1] + 1, a[0] ^ y]\n    b = []\n    b.append(x & 0xffff)\n    b = [b[0] + 2, a[1]]\n    return a[0] * 3 + a[1] + b[0] + b[1] + len(b)"},
		{"list copy", "def f(x, y):\n    a = [0] * 20\n    a[x % 20] = y\n    b = list(a)\n    b[y % 20] += 1\n    return a[y % 20] + b[x % 20] + b[y % 20]"},
		{"short list copy", "def f(x, y):\n    a = [-1, 0, 7]\n    a[x % 3] = y\n    b = list(a)\n    b[y % 3] = 5\n    return 1 if a[y % 3] == -1 else (2 if b[x % 3] != -1 else b[2] + 3)"},
		{"abs min max", "def f(x, y): return abs(x) + min(x, y) - max(y, 3)"},
		{"range", "def f(x, y):\n    n = 0\n    for i in range(x, y & 4095, 3):\n        n += i\n    return n"},
		{"while", "def f(x, y):\n    n = 0\n    while x:\n        x &= x - 1\n        n += y\n    return n"},
		{"conditions", "def f(x, y):\n    if x < y and not (x & 1) or y == 3:\n        return 1\n    return 2 if x > 7 else 3"},
		{"bools as conditions", "def f(x, y):\n    while True:\n        if False or x > 4:\n            return x\n        x += 1"},
		{"and or", "def f(x, y): return (x and y) or 3"},
		{"subsets", "def f(x, y):\n    n = 0\n    for s in subsets(x & 0xff0f, y):\n        n += s\n    return n"},
		{"chess", "def f(x, y): return chess.rook_attacks(x, y) | chess.pawn_attacks(x & 63, y > 3) ^ chess.queen_attacks(x & 63, y + 1) + chess.knight_attacks(x & 7)"},
		{"chess by name", "def f(x, y): return chess.pawn_attacks(x & 63, white = y == 1) | chess.rook_attacks(occupied = y, sq = x & 63) ^ chess.bishop_attacks(x & 63, occupied = x)"},
		{"bool flag", "def f(x, y):\n    found = False\n    for i in range(8):\n        if (x >> i) & 1 == 0:\n            found = True\n            break\n    return 1 if found else 2"},
		{"bool variable", "def f(x, y):\n    b = x == 3\n    c = b or y > 4\n    return 1 if c else 2"},
		{"not of calls", "def g(x):\n    return x & 1\ndef f(x, y):\n    if not g(x) and not g(y):\n        return 3\n    return 4"},
		{"difference", "def f(x, y):\n    if x - y == 16 or y - x == 16:\n        return 1\n    return 2 if x - 3 != y else 3"},
		{"returns a bool", "def f(x, y):\n    if x & 1:\n        return True\n    ok = x < y\n    return ok and not (y & 2)"},
		{"returns a comparison", "def f(x, y): return x - y < 3"},
		{"assigned on every path", "def f(x, y):\n    if x & 1:\n        z = y\n    else:\n        z = x\n    w = 7\n    for i in range(3):\n        if i == y:\n            w = i\n            break\n    return z + w"},
		{"assigned in a loop that runs", "def f(x, y):\n    for i in range(4):\n        last = i * y\n        if i == 2:\n            continue\n        last += 1\n    for s in subsets(x & 0xff):\n        sub = s\n    return last + sub"},
		{"assigned before a break", "def f(x, y):\n    while True:\n        z = x & 7\n        if z < 8:\n            break\n    return z + y"},
		{"counting down", "def f(x, y):\n    n = 0\n    for i in range(x & 1023, -1, -1):\n        n = n * 3 + i\n    for j in range(y & 255, 7, -2):\n        n ^= j\n    return n"},
		{"differences as counts and bounds", "def f(x, y):\n    n = 0\n    for i in range(x - y, 3 + x - y):\n        n += 1\n    return n + (x >> (y - x)) + (1 << 62 >> (x - y))"},
		{"assigned on one path", "def f(x, y):\n    if x & 1:\n        z = y\n    return z"},
		{"assigned in a loop that may not run", "def f(x, y):\n    for i in range(x & 7):\n        z = i + y\n    return z"},
		{"assigned after a continue", "def f(x, y):\n    for i in range(3):\n        if i == (x & 3):\n            continue\n        z = i\n    return z + y"},
		{"assigned after a break", "def f(x, y):\n    while x:\n        if x & 1:\n            break\n        z = x\n        x >>= 1\n    return z"},
		{"popcount", "def f(x, y): return popcount(x) + bsf(y) + bsr(x)"},
		{"fib", "def f(x, y): return x if x < 2 else f(x - 1, y) + f(x - 2, y)"},
		{"no return", "def f(x, y):\n    if x:\n        return y"},
		{"loop", "def f(x, y):\n    for _ in range(100):\n        x = (x + y) ^ 0x5555555555555\n    return x"},
		{"bool of a word", "def f(x, y): return bool(x & y)"},
		{"bool of or", "def f(x, y):\n    a = (x & 3) or (y >> 60)\n    return bool(a) or bool(y and x >> 62)"},
		{"bools compared", "def f(x, y):\n    a = x > 3\n    b = not (y & 1)\n    if a == b:\n        return 1\n    return 2 if a < b else (3 if bool(x) >= (y > x) else 4)"},
		{"bool compared with True", "def f(x, y): return (x > y) == True or (x == y) != False"},
		{"bool globals", "WHITE = True\nBLACK = False\ndef f(x, y):\n    w = (x & 1) == 1\n    if w == WHITE:\n        return chess.pawn_attacks(y & 63, w)\n    return chess.pawn_attacks(y & 63, BLACK) | chess.pawn_attacks(x & 63, WHITE)"},
		{"white a variable", "def f(x, y):\n    w = y > 3\n    b = not w\n    return chess.pawn_attacks(x & 63, w) | chess.pawn_attacks(y & 63, x) ^ chess.pawn_attacks(x & 63, white = b)"},
		{"a parameter or loop variable assigned itself", "def f(x, y):\n    x = x\n    if y & 1:\n        return x\n    for i in range(y & 7):\n        i = i\n    return i"},
	}
	pairs := [][]uint64{}
	for _, x := range exactWords {
		for _, y := range exactWords {
			if x < 40 || y < 40 || x > 1<<62 {
				pairs = append(pairs, []uint64{min(x, 30), y})
			}
			pairs = append(pairs, []uint64{x, y})
		}
	}
	for _, c := range runs {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, c.src)
			in := pairs
			if c.name == "fib" {
				in = [][]uint64{{0, 0}, {1, 0}, {15, 0}, {20, 1}}
			}
			words, _ := exactAgrees(t, s, c.src, "f", in)
			if words == 0 {
				t.Errorf("no input gives a word")
			}
		})
	}
	refused := []struct{ src, msg string }{
		{"def f(x): return ~x", "negative"},
		{"def f(x): return -x", "negative"},
		{"def f(x):\n    if x:\n        return 1\n    return False", "a bool on some paths"},
		{"def f(x): return x if x > 3 else x < 2", "a bool on some paths"},
		{"def f(x):\n    n = 0\n    for i in range(x, -3, -1):\n        n += i\n    return n", "negative"},
		{"def f(x):\n    y = x == 3\n    return y + 1", "bool"},
		{"def f(x):\n    n = 0\n    y = 0\n    for i in range(3):\n        n += y\n        y = i < x\n    return n", "bool"},
		{"def f(x): return x + (x > 3)", "bool"},
		{"def f(x): return 1 if x == True else 2", "bool"},
		{"def f(x):\n    b = True\n    return x + b", "bool"},
		{"def f(x):\n    a = [False] * 3\n    return a[x] + 1", "bool"},
		{"def f(x):\n    a = [False] * 3\n    a[x] = 1\n    return a[0]", "stores in it only True"},
		{"def f(x):\n    a = [False] * 3\n    a[x] = True\n    return a", "only indexes it"},
		{"def f(x):\n    a = [False] * 3\n    a[x] = True\n    return a[1] == 1", "bool"},
		{"def f(x):\n    a = [True] * 3\n    a[x] |= x > 2\n    return a[1]", "only stores bools"},
		{"def f(x):\n    a = [True] * 3\n    t = 0\n    for v in a:\n        t += 1\n    return t", "only indexes it"},
		{"def f(x):\n    a = [True] * 3\n    a = [0] * 3\n    return a[x]", "only indexes it"},
		{"def f(x):\n    a = [-((1 << 63) + 1)] * 3\n    return a[x]", "at least -2^63"},
		{"def f(x):\n    a = [-x] * 3\n    return a[x]", "constant"},
		{"def f(x): return chess.pawn_attacks(x & 63, x + 1)", "white must be"},
		{"def f(x): return chess.pawn_attacks(x & 63, white = x & 1)", "white must be"},
		{"def f(x): return bool(x) + 1", "bool"},
		{"def f(x):\n    b = bool(x)\n    return b * 2", "bool"},
		{"def f(x): return bool(x, x)", "one argument"},
		{"def f(x): return x if bool(x) else bool(x)", "a bool on some paths"},
		{"WHITE = True\ndef f(x): return x + WHITE", "bool"},
		{"WHITE = True\ndef f(x): return 1 if x == WHITE else 2", "bool"},
		{"def f(x): return 1 if (x > 1) == x else 2", "bool"},
		{"def f(x): return chess.pawn_attacks(x & 63, black = x > 1)", "has no parameter black"},
		{"def f(x): return chess.rook_attacks(x & 63, x, occupied = x)", "occupied given twice"},
		{"def f(x): return (x < 3) and 4", "bool"},
	}
	for _, c := range refused {
		s := load(t, c.src)
		if _, err := s.CompileWith("f", exactly); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want an error saying %q", c.src, err, c.msg)
		}
	}
}

// TestExactRandom: random functions of the fused subset, with some of the
// & U64 that keep plain Starlark in words left out (so that their ints
// leave the words) and some scratch arrays of negative ints, agree with plain Starlark wherever the compiled
// function gives a word, and fail wherever plain Starlark does not give one.
func TestExactRandom(t *testing.T) {
	n := 100 // functions that compile exactly
	if testscale.Short() {
		n = 25
	}
	// Many random functions are refused (a negative index, T[-1 - i], is
	// the most common reason): seeds are drawn until n compile.
	words, fails, refused, compiled := 0, 0, 0, 0
	for seed := uint64(0); compiled < n && seed < uint64(10*n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xe7ac))
		src := randfunc.Source(r)
		if seed%2 == 1 {
			src = randfunc.RecursiveSource(r)
		}
		if seed%4 != 0 {
			src = dropSomeMasks(r, src)
		}
		if seed%3 == 2 {
			src = sentinels(src)
		}
		if seed%5 == 1 {
			src = negativeLocals(r, src)
		}
		s := load(t, src)
		if _, err := s.CompileWith("f", exactly); err != nil {
			refused++
			continue
		}
		compiled++
		w, f := exactAgrees(t, s, src, "f", randomInputs(rand.New(rand.NewPCG(seed, 1)), 12))
		words += w
		fails += f
	}
	t.Logf("%d functions compiled (%d refused): %d words equal, %d failures", compiled, refused, words, fails)
	if compiled < n || words < 4*n {
		t.Errorf("%d compiled, %d refused, %d words, %d failures: the test tests little", compiled, refused, words, fails)
	}
}

// sentinels makes the scratch arrays [1] * N and [2] * N of src [-1] * N
// and [-3] * N, whose elements may be negative ints in plain Starlark.
func sentinels(src string) string {
	return strings.NewReplacer("= [1] * ", "= [-1] * ", "= [2] * ", "= [-3] * ").Replace(src)
}

// negativeLocals makes about a third of the assignments vN = E of src
// vN = -k if P & m else E, P the function's first parameter, so that
// those locals may hold negative ints in plain Starlark.
func negativeLocals(r *rand.Rand, src string) string {
	lines := strings.Split(src, "\n")
	param := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "def ") {
			param = strings.TrimLeft(l[strings.Index(l, "(")+1:], " ")
			param = param[:strings.IndexAny(param, ",)")]
			continue
		}
		m := negLocal.FindStringSubmatch(l)
		if m == nil || param == "" || r.IntN(3) != 0 {
			continue
		}
		k := []string{"1", "3", "8", "1000", "9223372036854775808"}[r.IntN(5)]
		lines[i] = fmt.Sprintf("%s%s = -%s if %s & %d else %s", m[1], m[2], k, param, 1<<r.IntN(4), m[3])
	}
	return strings.Join(lines, "\n")
}

var negLocal = regexp.MustCompile(`^(\s+)(v[0-9]+) = (.+)$`)

// dropSomeMasks removes about half of the "& U64" of src, except after ~x
// and -x (whose ints are always negative).
func dropSomeMasks(r *rand.Rand, src string) string {
	parts := strings.Split(src, " & U64")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			prev := parts[i-1]
			neg := strings.LastIndex(prev, "((~") > strings.LastIndex(prev, "((")-1 ||
				strings.LastIndex(prev, "((-") > strings.LastIndex(prev, "((")-1
			if neg || r.IntN(2) == 0 {
				b.WriteString(" & U64")
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

// FuzzExact is TestExactRandom for one seed and input.
func FuzzExact(f *testing.F) {
	for seed := uint64(0); seed < 8; seed++ {
		f.Add(seed, seed*0x9e3779b97f4a7c15, uint64(seed%3))
	}
	f.Fuzz(func(t *testing.T, seed, x, y uint64) {
		r := rand.New(rand.NewPCG(seed, 0xe7ac))
		src := dropSomeMasks(r, randfunc.RecursiveSource(r))
		if seed%2 == 1 {
			src = sentinels(src)
		}
		if seed%3 == 1 {
			src = negativeLocals(r, src)
		}
		s := load(t, src)
		if _, err := s.CompileWith("f", exactly); err != nil {
			return
		}
		exactAgrees(t, s, src, "f", [][]uint64{{x, y}, {x % 64, y % 64}})
	})
}

// TestUnassignedFails: a fused function (not exact) that may read a local
// before assigning it fails there, as Starlark does, on the evaluator and
// the x86-64 code, instead of reading 0; where it is assigned, it gives
// Starlark's word.
func TestUnassignedFails(t *testing.T) {
	src := "def f(x, y):\n    if x & 1:\n        z = y\n    for i in range(x & 6):\n        w = i\n    return z + w\n"
	s := load(t, src)
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	for engine, run := range exactRuns(t, f) {
		for _, in := range [][]uint64{{1, 5}, {3, 7}, {7, 9}, {0, 5}, {6, 1}, {1, 2}} {
			want, ok := s.Call("f", in...)
			got, err := run(in)
			switch {
			case ok && (err != nil || got != want):
				t.Errorf("f%v on %s = %#x, %v; plain Starlark %#x", in, engine, got, err, want)
			case !ok && err == nil:
				t.Errorf("f%v on %s = %#x; plain Starlark fails", in, engine, got)
			case !ok:
				var fe *fuse.FlowError
				if !errors.As(err, &fe) || !strings.Contains(f.Checks[fe.Check].Msg, "referenced before assignment") {
					t.Errorf("f%v on %s: %v, want a check saying a variable is referenced before assignment", in, engine, err)
				}
			}
		}
	}
}

// TestExactSentinel: a scratch array whose initial value is negative (the
// sentinel [-1] * N) compiles exactly: its elements are compared, stored,
// reset and updated as Starlark's ints, a read of a negative element (an
// int that is no word) fails, and so does a store of an int the biased
// array cannot hold (2^64 - 1 where the bias is 1). Each agrees with plain
// Starlark on every pair of exactWords, and the runs named in want give a
// word (true) or fail (false) on every engine.
func TestExactSentinel(t *testing.T) {
	cases := []exactCase{
		{"compare with a stamp", `
def f(x, y):
    stamp = [-1] * 8
    n = 0
    for t in range(x & 15):
        i = (t * y) & 7
        if stamp[i] != t:
            stamp[i] = t
            n += 1
        elif stamp[i] >= 0:
            n += 100
    return n`, map[[2]uint64]bool{{15, 3}: true, {15, 0}: true, {0, 0}: true}},
		{"read a sentinel or a stored value", `
def f(x, y):
    a = [-1] * 8
    a[x & 7] = y
    return a[y & 7]`, map[[2]uint64]bool{{3, 3}: true, {3, 4}: false, {1<<64 - 2, 1<<64 - 2}: true, {7, 1<<64 - 1}: false}},
		{"store a word the array cannot hold", `
def f(x, y):
    a = [-1] * 4
    a[x & 3] = y
    return 1 if a[x & 3] == y else 2`, map[[2]uint64]bool{{0, 1<<64 - 2}: true, {0, 1<<64 - 1}: false, {1, 0}: true}},
		{"compare with a word past the array's ints", `
def f(x, y):
    a = [-1] * 4
    if a[x & 3] == y:
        return 1
    return 2 if a[(x + 1) & 3] < y else 3`, map[[2]uint64]bool{{0, 5}: true, {0, 1<<64 - 2}: true, {0, 1<<64 - 1}: false}},
		{"a variable holding a sentinel", `
def f(x, y):
    last = [-1] * 8
    d = 0
    for i in range(x & 31):
        v = (i * y) & 7
        j = last[v]
        if j != -1:
            d += i - j
        elif j < 0:
            d += 100
        last[v] = i
    j = last[y & 7]
    k, m = x & 7, last[x & 7]
    if m == j:
        k += 1000
    j += 1
    m += 1
    return d * 1000 + j + k + (m & 0xff)`, map[[2]uint64]bool{{0, 0}: true, {31, 3}: true, {9, 2}: true}},
		{"a variable holding a sentinel read as an int", `
def f(x, y):
    last = [-1] * 8
    last[x & 7] = y
    j = last[y & 7]
    if x & 8:
        j = 5
    return j`, map[[2]uint64]bool{{3, 3}: true, {3, 4}: false, {11, 4}: true, {7, 1<<64 - 1}: false}},
		{"reset and update", `
def f(x, y):
    a = [-1] * 4
    i = x & 3
    a[i] += y & 1
    if a[i] == -1:
        a[i] = 2
    a[i] -= 1
    if a[i] >= 0:
        a[i] *= 3
    n = 0
    for j in range(4):
        if a[j] < 0:
            n += 1
        elif a[j] > y:
            n += 10
    return n * 100 + (a[i] if a[i] >= 0 else 7)`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {2, 1<<64 - 1}: true}},
		{"update a sentinel out of the array's ints", `
def f(x, y):
    a = [-1] * 4
    a[x & 3] = y & 7
    a[y & 3] *= 2
    return 5`, map[[2]uint64]bool{{1, 1}: true, {0, 1}: false}},
		{"a sentinel read modulo the words", `
def f(x, y):
    a = [-3] * 4
    a[x & 3] = y
    return a[y & 3] & 0xff`, map[[2]uint64]bool{{0, 1}: true, {1, 1}: true}},
		{"arrays of other biases compared", `
def f(x, y):
    a = [-1] * 4
    b = [-(1 << 63)] * 4
    c = [-2, 5, -1, 0]
    a[x & 3] = y & 7
    b[y & 3] = x
    n = 0
    for i in range(4):
        if a[i] < b[i]:
            n += 1
        if c[i] == a[i]:
            n += 10
        if b[i] <= c[i]:
            n += 100
        if c[i] > -2:
            n += 1000
    return n + c[1]`, map[[2]uint64]bool{{0, 0}: true, {5, 9}: true, {1 << 63, 0}: false}},
		{"a helper with a sentinel array", `
def mark(a, i, t):
    if a[i] == t:
        return 0
    a[i] = t
    return 1

def f(x, y):
    s = [-1] * 8
    n = 0
    for t in range(x & 7):
        n += mark(s, (t * y) & 7, t)
    return n + s[y & 7]`, map[[2]uint64]bool{{7, 1}: true, {0, 0}: false}},
	}
	runExactCases(t, cases, nil)
	// Without Options.Exact the sentinel is the word 2^64 - 1, as before.
	s := load(t, "def f(x):\n    a = [-1] * 4\n    a[x & 3] = 5\n    return a[(x + 1) & 3] + a[x & 3]")
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	for engine, run := range exactRuns(t, f) {
		if got, err := run([]uint64{2}); err != nil || got != 4 {
			t.Errorf("plain fuse on %s: f(2) = %#x, %v; want 4 (2^64 - 1 + 5 mod 2^64)", engine, got, err)
		}
	}
}

// exactCase is a function f(x, y) compiled with Options.Exact, and runs
// of it that must give plain Starlark's word (true) or fail (false).
type exactCase struct {
	name, src string
	want      map[[2]uint64]bool
}

// runExactCases checks that each case agrees with plain Starlark on every
// pair of exactWords and of more (and gives a word on one at least), and
// that the runs named in want give a word or fail on every engine.
func runExactCases(t *testing.T, cases []exactCase, more []uint64) {
	t.Helper()
	words := append(append([]uint64{}, exactWords...), more...)
	pairs := [][]uint64{}
	for _, x := range words {
		for _, y := range words {
			pairs = append(pairs, []uint64{x, y})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, c.src)
			words, _ := exactAgrees(t, s, c.src, "f", pairs)
			if words == 0 {
				t.Errorf("no input gives a word")
			}
			f, err := s.CompileWith("f", exactly)
			if err != nil {
				t.Fatal(err)
			}
			for in, word := range c.want {
				want, ok := s.Call("f", in[0], in[1])
				for engine, run := range exactRuns(t, f) {
					got, err := run(in[:])
					switch {
					case word && (err != nil || !ok || got != want):
						t.Errorf("f%v on %s = %#x, %v; want plain Starlark's word %#x (%v)", in, engine, got, err, want, ok)
					case !word && err == nil:
						t.Errorf("f%v on %s = %#x; want a failed check", in, engine, got)
					}
				}
			}
		})
	}
}

// TestExactSigned: a local that some assignment gives a negative int
// constant (step = 8 if c == 0 else -8, d = -1) compiles exactly, biased:
// its sums, differences and comparisons are Starlark's, also where the
// ints are negative, and a run fails where an int it must read as a word
// is negative or leaves the words. Each agrees with plain Starlark on
// every pair of words (exactWords and small ones), and the runs named in
// want give a word (true) or fail (false) on every engine.
func TestExactSigned(t *testing.T) {
	top := uint64(1<<64 - 1)
	cases := []exactCase{
		{"a pawn's step", `
def f(fr, c):
    step = 8 if c == 0 else -8
    to = fr + step
    n = 0
    if to + step < 64 and to - step >= 0:
        n = to + step
    return n * 100 + to`, map[[2]uint64]bool{{8, 0}: true, {16, 1}: true, {60, 0}: true, {8, 1}: false, {0, 1}: false,
			{top, 0}: false, {top, 1}: true, {top - 8, 1}: true, {7, 1}: false}},
		{"a negative constant alone", `
def f(x, y):
    step = -8
    if x & 1:
        step = 8
    return x + step`, map[[2]uint64]bool{{1, 0}: true, {8, 0}: true, {0, 0}: false, {6, 0}: false, {top, 0}: false, {top - 1, 0}: true}},
		{"a negative constant updated", `
def f(x, y):
    d = -1
    if x & 1:
        d += 2
    d += y & 3
    d -= x & 2
    return d * 10 + 1`, map[[2]uint64]bool{{1, 0}: true, {0, 1}: true, {0, 0}: false, {2, 2}: false, {3, 3}: true}},
		{"read in a loop before it is made negative", `
def f(x, y):
    d = 0
    s = 0
    for i in range(x & 15):
        s += d + 1
        if d < 0:
            s += 100
        if (i * y) & 1:
            d = -1
        else:
            d = i
    return s`, map[[2]uint64]bool{{15, 1}: true, {15, 2}: true, {0, 0}: true, {top, 3}: true}},
		{"nested conditionals", `
def f(x, y):
    d = -3 if x & 1 else (5 if x & 2 else -1)
    e = 0
    if d < 0:
        e = d + 10
    if d == -1:
        e += 1000
    return e + (y & 7) - d`, map[[2]uint64]bool{{0, 0}: true, {1, 1}: true, {2, 7}: true, {2, 4}: false, {1, top}: true}},
		{"sums and differences", `
def f(x, y):
    d = -5 if x & 1 else 3
    n = 0
    if d - (y & 7) < -3:
        n += 1
    if (y & 7) - d > 4:
        n += 10
    if d + (y & 7) >= 0:
        n += 100
    if (x & 6) + d - (y & 7) == -5:
        n += 1000
    return n * 1000 + (y - d)`, map[[2]uint64]bool{{1, 0}: true, {0, 2}: true, {0, 7}: true, {0, 0}: true, {1, top}: false, {0, top}: false}},
		{"two locals", `
def f(x, y):
    a = -2 if x & 1 else x & 15
    b = -7 if y & 1 else y & 15
    n = 0
    if a + b < 0:
        n += 1
    if a - b > 0:
        n += 10
    if a < b:
        n += 100
    a += 5
    if a + b == -4:
        n += 1000
    return n + a`, map[[2]uint64]bool{{1, 1}: true, {0, 1}: true, {1, 0}: true, {14, 6}: true}},
		{"a tuple of a negative constant and a word", `
def f(x, y):
    a, b = -1, y
    for i in range(x & 7):
        a, b = b, a
    return a + 1`, map[[2]uint64]bool{{0, 5}: true, {1, 5}: true, {2, 5}: true, {1, top}: false}},
		{"the largest bias", `
K = 1 << 63
def f(x, y):
    s = -K if x & 1 else y
    if s + y < 0:
        return 1
    u = -K if y & 1 else x
    if s + u < 0:
        return 2
    return s + y`, map[[2]uint64]bool{{1, 0}: true, {1, 1 << 63}: true, {1, 1<<63 + 2}: true, {1, 1}: true, {2, 4}: true, {0, 1 << 63}: false}},
		{"read as a word", `
def f(x, y):
    d = -1 if x & 1 else 2
    if y & 1:
        return d * 3
    if y & 2:
        return y >> d
    return (d & 0xff) + 1`, map[[2]uint64]bool{{0, 1}: true, {1, 1}: false, {1, 2}: false, {1, 0}: true, {0, 2}: true}},
	}
	runExactCases(t, cases, []uint64{4, 5, 6, 8, 9, 15, 16, top - 8, top - 16})
	// Without Options.Exact a negative constant is its word, modulo 2^64,
	// as before.
	s := load(t, "def f(x):\n    step = 8 if x & 1 else -8\n    d = -1\n    d += 2\n    return x + step + d")
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	for engine, run := range exactRuns(t, f) {
		for _, x := range []uint64{0, 1, 6, top} {
			want := x + 1 - 8
			if x&1 == 1 {
				want = x + 1 + 8
			}
			if got, err := run([]uint64{x}); err != nil || got != want {
				t.Errorf("plain fuse on %s: f(%d) = %#x, %v; want %#x (modulo 2^64)", engine, x, got, err, want)
			}
		}
	}
}

// TestExactBoolParams: a function compiled with a bool parameter
// (Options.Bools) gives, on each engine and for True and False, plain
// Starlark's result, a bool where Starlark's is a bool; one that uses the
// bool as an int is refused.
func TestExactBoolParams(t *testing.T) {
	srcs := []string{
		"WHITE = True\ndef f(turn, x):\n    white = turn == WHITE\n    a = chess.pawn_attacks(x & 63, white) & x\n    return bool(a or (x >> 60))",
		"def f(turn, x):\n    if turn and x > 3:\n        return x\n    return chess.pawn_attacks(x & 63, turn) | chess.pawn_attacks(x & 63, not turn) ^ chess.pawn_attacks(x & 63, turn == True)",
		"def f(b, x):\n    c = b\n    if x & 1:\n        c = not b\n    return c != b or (b < c)",
		"def f(b, x): return b if x > 5 else bool(x)",
	}
	for _, src := range srcs {
		s := load(t, src)
		f, err := s.CompileWith("f", func(o *compile.Options) { o.Exact, o.Bools = true, []bool{true, false} })
		if err != nil {
			t.Fatalf("does not compile: %v\n%s", err, src)
		}
		thread := &starlark.Thread{Name: "plain"}
		for _, b := range []bool{false, true} {
			for _, x := range exactWords {
				v, perr := starlark.Call(thread, s.Globals["f"], starlark.Tuple{starlark.Bool(b), starlark.MakeUint64(x)}, nil)
				bw := uint64(0)
				if b {
					bw = 1
				}
				for engine, run := range exactRuns(t, f) {
					got, ferr := run([]uint64{bw, x})
					if ferr != nil {
						if perr == nil {
							t.Errorf("f(%v, %#x) fails on %s (%v); plain Starlark gives %v\n%s", b, x, engine, ferr, v, src)
						}
						continue
					}
					if perr != nil {
						t.Fatalf("f(%v, %#x) = %#x on %s; plain Starlark fails: %v\n%s", b, x, got, engine, perr, src)
					}
					want, _ := compile.WordOf(v)
					if _, isBool := v.(starlark.Bool); isBool != f.ReturnsBool || got != want {
						t.Fatalf("f(%v, %#x) = %#x on %s (a bool: %v); plain Starlark gives %v\n%s", b, x, got, engine, f.ReturnsBool, v, src)
					}
				}
			}
		}
	}
	for _, src := range []string{
		"def f(b, x): return x + b",
		"def f(b, x): return 1 if b == x else 2",
		"def f(b, x):\n    c = b\n    return c * 2",
	} {
		s := load(t, src)
		if _, err := s.CompileWith("f", func(o *compile.Options) { o.Exact, o.Bools = true, []bool{true, false} }); err == nil || !strings.Contains(err.Error(), "bool") {
			t.Errorf("%q: got %v, want an error saying it uses a bool as an int", src, err)
		}
	}
}
