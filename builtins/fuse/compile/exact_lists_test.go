package compile_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// listsScript holds plain functions that take lists, return None or
// return tuples, as Starlark scripts write them.
const listsScript = `
pow2 = [1 << i for i in range(64)]

# Isenberg's De Bruijn generator as the Chess Programming Wiki writes it:
# st = [lock, count, limit] is written in place, the function returns None.
def isenberg(st, seq, depth, vtx, nz):
    if st[1] >= st[2]:
        return
    if (st[0] & pow2[vtx]) == 0 and nz <= 32:
        if depth == 0:
            st[1] += 1
        else:
            st[0] ^= pow2[vtx]
            if vtx == 31 and depth > 2:
                isenberg(st, seq | pow2[depth - 1], depth - 2, 62, nz + 1)
            else:
                isenberg(st, seq, depth - 1, (2 * vtx) & 63, nz + 1)
                isenberg(st, seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz)
            st[0] ^= pow2[vtx]

def bump(acc, x):
    acc[0] += x
    acc[1] = acc[1] * 3 + 1

def twice(acc, x):
    bump(acc, x)
    bump(acc, x)
    if x > 5:
        return
    acc[2] = x

def only_list(a):
    return a[0] + a[len(a) - 1]

def divmod2(x, y):
    if y == 0:
        return 0, 0
    return x // y, (x % y) * 3

def moved(p, m):
    q = list(p)
    if q[m % len(q)] == -1:
        q[m % len(q)] = 7
    else:
        q[m % len(q)] += 1
    if q[0] == -1:
        q[0] = m
    q[1] = -1
    return q

def doubled(p):
    q = [0] * 3
    for i in range(3):
        q[i] = p[i] * 2
    return q

def longer(p):
    q = list(p)
    q[17] += q[0]
    r = list(q)
    return r

def build(n, x):
    out = []
    for i in range(n % 20):
        if (x >> i) & 1:
            out.append(i * 3)
    for v in (1, 2, 4):
        out.append(v + x % 5)
    return out

def gen_bits(b):
    moves = []
    for i in bits(b):
        targets = []
        targets.append(i)
        if i > 0:
            targets.append(i - 1)
        for t in targets:
            moves.append(t * 64 + i)
    return moves

def count_moves(b, k):
    n = 0
    for m in gen_bits(b):
        n += m % 7 + k
    return n

def first_two(b):
    ms = gen_bits(b)
    if len(ms) < 2:
        return 0
    ms[1] += 5
    return ms[0] * 1000 + ms[1] + ms[len(ms) - 1]

def nth_move(b, i):
    ms = gen_bits(b)
    return ms[i]

def bump_all(p, x):
    for i in range(len(p)):
        p[i] += x

def use_bump(a, x):
    bump_all(a, x)
    bump_all(a, 1)
    return a[0]

def copy_of(p):
    q = list(p)
    q[0] = 99
    return q

def chain(p, m):
    q = copy_of(p)
    r = 0
    for v in q:
        r = r * 3 + v
    return r + m + p[0]

def filled(n):
    out = []
    for i in range(n):
        out.append(i)
    return len(out)

def given_back(a, k):
    for i in range(len(a)):
        a[i] = a[i] * k + i
    return a

def sum_into(a, b, n):
    for i in range(n):
        b[i] = a[i] + b[i]
    return b[0], n

def run_len(bits, k):
    used = [3] * (1 << bits)
    used[k] = 7
    s = 0
    for v in used:
        s += v
    return len(used) * 100000 + s * 10 + used[k]

def run_len_again(n):
    t = 0
    for m in range(n):
        a = [2] * m
        t += len(a)
        for x in a:
            t += x
        a = [2] * (n - m)
        t += len(a) * 1000
    return t

def run_len_sentinel(n, i):
    a = [-1] * n
    a[i] = 5
    c = 0
    for j in range(len(a)):
        if a[j] == -1:
            c += 1
    return c * 10 + a[i]

def run_len_append(n):
    a = [1] * n
    a.append(2)
    a[0] = 4
    return len(a) * 100 + a[n] * 10 + a[0]
`

// runLists runs f on the engines that take array parameters: args are
// words or []uint64 (a list, written back in place). It returns the
// result word, the tuple where f returns one, and the lists after the run.
func runLists(t testing.TB, f *fuse.Func, args []any) map[string]func() (uint64, []uint64, [][]uint64, error) {
	t.Helper()
	split := func() (words []uint64, lists [][]uint64) {
		for _, a := range args {
			switch a := a.(type) {
			case uint64:
				words = append(words, a)
			case []uint64:
				lists = append(lists, append([]uint64(nil), a...))
			}
		}
		return
	}
	run := func(w *native.Worker) (uint64, []uint64, [][]uint64, error) {
		words, lists := split()
		for i, x := range words {
			w.Params(i)[0] = x
		}
		for a, l := range lists {
			w.SetArray(a, l)
		}
		_, res, err := w.Run(1, false)
		if err != nil {
			return 0, nil, nil, err
		}
		for a, l := range lists {
			w.Array(a, l)
		}
		var tuple []uint64
		if f.Results > 0 {
			tuple = make([]uint64, f.Results)
			w.Array(f.Arrays-1, tuple)
		}
		return res[0], tuple, lists, nil
	}
	runs := map[string]func() (uint64, []uint64, [][]uint64, error){}
	for _, e := range []native.Engine{native.Eval, native.AMD64} {
		p, err := native.CompileWith(f, e)
		if err != nil {
			if e == native.Eval {
				t.Fatal(err)
			}
			continue
		}
		t.Cleanup(p.Close)
		runs[e.String()] = func() (uint64, []uint64, [][]uint64, error) {
			w, err := p.NewWorker(nil)
			if err != nil {
				return 0, nil, nil, err
			}
			defer w.Close()
			// Twice on one worker: the lists are set again for each run.
			if _, _, _, err := run(w); err != nil {
				return 0, nil, nil, err
			}
			return run(w)
		}
	}
	return runs
}

// listsAgree runs name of s plainly and as f (compiled from it with
// Options.Lists for args) on args, words (uint64) and lists ([]uint64), on
// every engine: where f gives a result, plain Starlark gives the same
// value (None, a tuple, a bool or an int) and leaves the same words in the
// lists; where plain Starlark fails, or gives or leaves anything but
// words, f fails. It returns how many runs gave a result and how many
// failed.
func listsAgree(t testing.TB, s *fusescript.Script, f *fuse.Func, src, name string, args []any) (words, fails int) {
	t.Helper()
	var sargs starlark.Tuple
	var lists []*starlark.List
	var coded []any // args, lists as the biased words of their arrays
	for _, a := range args {
		switch a := a.(type) {
		case uint64:
			sargs = append(sargs, starlark.MakeUint64(a))
			coded = append(coded, a)
		case []uint64, []int64:
			var elems []starlark.Value
			var ws []uint64
			bias := f.Scratch[len(lists)].Bias
			if a, ok := a.([]uint64); ok {
				for _, x := range a {
					elems = append(elems, starlark.MakeUint64(x))
					ws = append(ws, x+bias)
				}
			}
			if a, ok := a.([]int64); ok {
				for _, x := range a {
					elems = append(elems, starlark.MakeInt64(x))
					ws = append(ws, uint64(x)+bias)
				}
			}
			l := starlark.NewList(elems)
			lists = append(lists, l)
			sargs = append(sargs, l)
			coded = append(coded, ws)
		}
	}
	// inRange reports whether v is an int an array biased by k holds.
	inRange := func(v starlark.Value, k uint64) bool {
		i, ok := v.(starlark.Int)
		if !ok {
			return false
		}
		lo, hi := starlark.MakeInt64(-int64(k)), starlark.MakeUint64(^uint64(0)-k)
		if k == 0 {
			lo = starlark.MakeInt(0)
		}
		c1, _ := i.Cmp(lo, 0)
		c2, _ := i.Cmp(hi, 0)
		return c1 >= 0 && c2 <= 0
	}
	decode := func(w, k uint64) starlark.Value {
		if w >= k {
			return starlark.MakeUint64(w - k)
		}
		return starlark.MakeInt64(-int64(k - w))
	}
	thread := &starlark.Thread{}
	thread.SetMaxExecutionSteps(1 << 24)
	want, perr := starlark.Call(thread, s.Globals[name], sargs, nil)
	if perr != nil && strings.Contains(perr.Error(), "too many steps") {
		t.Fatalf("%s%v runs too long in plain Starlark\n%s", name, args, src)
	}
	asWords := perr == nil
	switch w := want.(type) {
	case starlark.NoneType:
		asWords = asWords && f.ReturnsNone
	case starlark.Bool:
		asWords = asWords && f.ReturnsBool
	case starlark.Int:
		_, ok := compile.WordOf(w)
		asWords = asWords && ok && !f.ReturnsBool && f.Results == 0 && !f.ReturnsNone
	case starlark.Tuple:
		asWords = asWords && f.Results == len(w) && !f.ReturnsList
		for _, x := range w {
			_, isBool := x.(starlark.Bool)
			_, ok := compile.WordOf(x)
			asWords = asWords && ok && !isBool
		}
	case *starlark.List:
		if f.ReturnsParam > 0 {
			asWords = asWords && w == lists[f.ReturnsParam-1]
			break
		}
		asWords = asWords && f.ReturnsList && f.Results >= w.Len()
		for i := 0; asWords && i < w.Len(); i++ {
			_, isBool := w.Index(i).(starlark.Bool)
			asWords = !isBool && inRange(w.Index(i), f.Scratch[f.Arrays-1].Bias)
		}
	default:
		asWords = false
	}
	for a, l := range lists {
		for i := 0; i < l.Len(); i++ {
			asWords = asWords && inRange(l.Index(i), f.Scratch[a].Bias)
		}
	}
	for engine, run := range runLists(t, f, coded) {
		word, tuple, got, err := run()
		if err != nil {
			fails++
			continue
		}
		if !asWords {
			t.Fatalf("%s%v on %s gives %d %v; plain Starlark gives %v (%v) and leaves %v\n%s\n%s", name, args, engine, word, tuple, want, perr, lists, src, f)
		}
		var as starlark.Value
		switch {
		case f.ReturnsParam > 0:
			as = want // the list given, whose words are compared below
		case f.ReturnsNone:
			as = starlark.None
		case f.Results > 0:
			var tv starlark.Tuple
			if f.ReturnsList {
				tuple = tuple[:word] // the list's length
			}
			for _, x := range tuple {
				tv = append(tv, decode(x, f.Scratch[f.Arrays-1].Bias))
			}
			as = tv
			if f.ReturnsList {
				as = starlark.NewList(tv)
			}
		case f.ReturnsBool:
			as = starlark.Bool(word != 0)
		default:
			as = starlark.MakeUint64(word)
		}
		if eq, _ := starlark.Equal(as, want); !eq {
			t.Fatalf("%s%v on %s = %v; plain Starlark gives %v\n%s\n%s", name, args, engine, as, want, src, f)
		}
		for i, l := range lists {
			var ws []string
			for _, x := range got[i] {
				ws = append(ws, decode(x, f.Scratch[i].Bias).String())
			}
			if g := "[" + strings.Join(ws, ", ") + "]"; g != l.String() {
				t.Fatalf("%s%v on %s leaves list %d %s; plain Starlark %s\n%s", name, args, engine, i, g, l, src)
			}
		}
		words++
	}
	return words, fails
}

// listsOf gives Options.Lists and ListBias for args.
func listsOf(args []any) (lens []int, bias []uint64) {
	for _, a := range args {
		var k uint64
		switch l := a.(type) {
		case []uint64:
			lens = append(lens, len(l))
		case []int64:
			lens = append(lens, len(l))
			for _, x := range l {
				if x < 0 {
					k = max(k, uint64(-x))
				}
			}
		default:
			lens = append(lens, -1)
		}
		bias = append(bias, k)
	}
	return lens, bias
}

// TestExactLists: functions that write the lists they are given, return
// None or return tuples give what plain Starlark gives, lists included,
// on the evaluator and the x86-64 code; where Starlark's ints leave the
// words, the run fails.
func TestExactLists(t *testing.T) {
	s, err := fusescript.Load(listsScript)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		fn   string
		args []any
		fail bool // the ints leave the words
	}{
		{"isenberg", []any{[]uint64{1 << 32, 0, 1000}, uint64(0), uint64(58), uint64(0), uint64(6)}, false},
		{"isenberg", []any{[]uint64{1 << 32, 0, 1500}, uint64(0), uint64(58), uint64(0), uint64(6)}, false},
		{"bump", []any{[]uint64{5, 7}, uint64(9)}, false},
		{"bump", []any{[]uint64{1<<64 - 1, 7}, uint64(1)}, true},
		{"twice", []any{[]uint64{5, 7, 0}, uint64(3)}, false},
		{"twice", []any{[]uint64{5, 7, 0}, uint64(8)}, false},
		{"only_list", []any{[]uint64{5, 7, 11}}, false},
		{"divmod2", []any{uint64(100), uint64(7)}, false},
		{"divmod2", []any{uint64(100), uint64(0)}, false},
		{"divmod2", []any{uint64(1<<64 - 1), uint64(1<<63 + 1)}, true}, // (x % y) * 3 leaves the words
		{"sum_into", []any{[]uint64{1, 2, 3}, []uint64{10, 20, 30}, uint64(3)}, false},
		{"sum_into", []any{[]uint64{1, 2, 3}, []uint64{10, 20, 30}, uint64(4)}, true}, // index out of range
		{"moved", []any{[]int64{5, -1, 9}, uint64(1)}, false},
		{"moved", []any{[]int64{-1, -1, 9}, uint64(0)}, false},
		{"moved", []any{[]int64{-1, 4, -1}, uint64(2)}, false},
		{"moved", []any{[]int64{3, 4, -1}, uint64(5)}, false},
		{"doubled", []any{[]uint64{1, 2, 3}}, false},
		{"doubled", []any{[]uint64{1, 1 << 63, 3}}, true},
		{"build", []any{uint64(17), uint64(0x5a5a5)}, false},
		{"build", []any{uint64(0), uint64(7)}, false},
		{"gen_bits", []any{uint64(0x8000000000000101)}, false},
		{"gen_bits", []any{uint64(0)}, false},
		{"count_moves", []any{uint64(0xff00ff), uint64(3)}, false},
		{"first_two", []any{uint64(0x1234)}, false},
		{"first_two", []any{uint64(1)}, false},
		{"nth_move", []any{uint64(0x1234), uint64(3)}, false},
		{"nth_move", []any{uint64(0x1234), uint64(10)}, true}, // past the list's length, within its capacity
		{"use_bump", []any{[]uint64{1, 2, 3}, uint64(10)}, false},
		{"use_bump", []any{[]uint64{1<<64 - 5, 2, 3}, uint64(10)}, true},
		{"chain", []any{[]uint64{4, 5, 6}, uint64(1)}, false},
		{"filled", []any{uint64(1000)}, false},
		{"filled", []any{uint64(compile.ListCap)}, false},
		{"filled", []any{uint64(compile.ListCap + 1)}, true}, // past ListCap: the interpreter builds it
		// [V] * N of a length known at run time: len, loops, reads and
		// stores use that length; an index past it, or a length of the
		// capacity or more, goes back to the interpreter.
		{"run_len", []any{uint64(3), uint64(2)}, false},
		{"run_len", []any{uint64(0), uint64(0)}, false},
		{"run_len", []any{uint64(15), uint64(32767)}, false},
		{"run_len", []any{uint64(3), uint64(8)}, true},  // past the length, within the capacity
		{"run_len", []any{uint64(16), uint64(0)}, true}, // ListCap elements: the interpreter makes them
		{"run_len", []any{uint64(70), uint64(0)}, true}, // too long for memory
		{"run_len_again", []any{uint64(0)}, false},
		{"run_len_again", []any{uint64(9)}, false},
		{"run_len_sentinel", []any{uint64(5), uint64(3)}, false},
		{"run_len_sentinel", []any{uint64(5), uint64(5)}, true},
		{"run_len_sentinel", []any{uint64(0), uint64(0)}, true},
		{"run_len_append", []any{uint64(0)}, false},
		{"run_len_append", []any{uint64(6)}, false},
		{"run_len_append", []any{uint64(compile.ListCap - 1)}, false}, // the append fills the capacity
		{"given_back", []any{[]uint64{1, 2, 3}, uint64(5)}, false},
		{"given_back", []any{[]uint64{1 << 62, 2, 3}, uint64(5)}, true},
		{"longer", []any{[]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}}, false},
	}
	for _, c := range cases {
		f, err := s.CompileWith(c.fn, func(o *compile.Options) { o.Exact = true; o.Lists, o.ListBias = listsOf(c.args) })
		if err != nil {
			t.Fatalf("%s%v does not compile: %v", c.fn, c.args, err)
		}
		words, fails := listsAgree(t, s, f, listsScript, c.fn, c.args)
		if c.fail && words > 0 || !c.fail && fails > 0 {
			t.Errorf("%s%v: %d results, %d failures; want %v", c.fn, c.args, words, fails, map[bool]string{true: "failures", false: "results"}[c.fail])
		}
	}
}

// listify turns f(x, y) of a random script into f(x, y, a): its first
// scratch array a, assigned once at the top of its body, becomes a list
// parameter (the assignment a pass), and each return gives a tuple of its
// value and a's last element. It returns the new script and a's length,
// or ok false where f has no such array.
func listify(src string) (out string, n int, ok bool) {
	file, err := syntax.Parse("r.star", src, 0)
	if err != nil {
		return "", 0, false
	}
	var f *syntax.DefStmt
	for _, st := range file.Stmts {
		if d, ok := st.(*syntax.DefStmt); ok && d.Name.Name == "f" {
			f = d
		}
	}
	if f == nil {
		return "", 0, false
	}
	assigned := map[string]int{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if a, ok := n.(*syntax.AssignStmt); ok && a.Op == syntax.EQ {
			if id, ok := a.LHS.(*syntax.Ident); ok {
				assigned[id.Name]++
			}
		}
		return true
	})
	var name string
	var line int32
	for _, st := range f.Body {
		a, ok := st.(*syntax.AssignStmt)
		if !ok || a.Op != syntax.EQ {
			continue
		}
		id, ok := a.LHS.(*syntax.Ident)
		if !ok || assigned[id.Name] != 1 {
			continue
		}
		switch r := a.RHS.(type) {
		case *syntax.ListExpr:
			n = len(r.List)
		case *syntax.BinaryExpr:
			k, isInt := r.Y.(*syntax.Literal)
			if !isInt || r.Op != syntax.STAR || k.Token != syntax.INT {
				continue
			}
			n = int(k.Value.(int64))
		default:
			continue
		}
		if n > 0 {
			name, line = id.Name, a.OpPos.Line
			break
		}
	}
	if name == "" {
		return "", 0, false
	}
	lines := strings.Split(src, "\n")
	def := int(f.Def.Line) - 1
	lines[def] = strings.Replace(lines[def], "def f(x, y):", "def f(x, y, "+name+"):", 1)
	lines[line-1] = "    pass"
	for i := def + 1; i < len(lines); i++ {
		if t := strings.TrimLeft(lines[i], " "); strings.HasPrefix(t, "return ") {
			ind := lines[i][:len(lines[i])-len(t)]
			lines[i] = fmt.Sprintf("%sreturn (%s), %s[%d]", ind, strings.TrimPrefix(t, "return "), name, n-1)
		}
	}
	return strings.Join(lines, "\n"), n, true
}

// TestExactRandomLists: random functions whose first scratch array is a
// list the caller passes (written in place) and that return tuples agree
// with plain Starlark, lists included, wherever they give a result, and
// fail wherever plain Starlark fails or leaves the words.
func TestExactRandomLists(t *testing.T) {
	n := 40 // functions that compile exactly (about one seed in 25)
	if testscale.Short() {
		n = 10
	}
	words, fails, compiled := 0, 0, 0
	for seed := uint64(0); compiled < n && seed < uint64(100*n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x115))
		src := randfunc.Source(r)
		if seed%2 == 1 {
			src = randfunc.RecursiveSource(r)
		}
		if seed%4 != 0 {
			src = dropSomeMasks(r, src)
		}
		src, k, ok := listify(src)
		if !ok {
			continue
		}
		s := load(t, src)
		lens := []int{-1, -1, k}
		f, err := s.CompileWith("f", func(o *compile.Options) { o.Exact, o.Lists = true, lens })
		if err != nil {
			continue
		}
		compiled++
		in := rand.New(rand.NewPCG(seed, 2))
		for _, xy := range randomInputs(in, 8) {
			list := make([]uint64, k)
			for i := range list {
				list[i] = randomInputs(in, 1)[0][0]
			}
			w, f := listsAgree(t, s, f, src, "f", []any{xy[0], xy[1], list})
			words += w
			fails += f
		}
	}
	t.Logf("%d functions compiled: %d results equal, %d failures", compiled, words, fails)
	if compiled < n || words < 4*n {
		t.Errorf("%d compiled, %d results, %d failures: the test tests little", compiled, words, fails)
	}
}

// TestExactListsRefused: returns the exact compilation cannot give.
func TestExactListsRefused(t *testing.T) {
	for src, want := range map[string]string{
		"def f(x):\n    if x:\n        return 1, 2\n    return 3":                                                                                                           "a tuple on some paths and another value",
		"def f(x):\n    if x:\n        return 1, 2\n    return":                                                                                                             "a tuple on some paths and None",
		"def f(x):\n    if x:\n        return 1, 2\n    return 1, 2, 3":                                                                                                     "tuples of 2 and of 3 values",
		"def g(x):\n    x += 1\ndef f(x):\n    return g(x) + 1":                                                                                                             "g returns None",
		"def g(x):\n    return x, x\ndef f(x):\n    return g(x)":                                                                                                            "returns one word, not a tuple",
		"def f(x):\n    a = []\n    a.append(x)\n    for v in a:\n        a.append(v)\n    return len(a)":                                                                   "while a loop iterates",
		"def f(x):\n    a = [0] * 3\n    for v in a:\n        a[0] = v\n    return a[0]":                                                                                    "being iterated over",
		"def g(p):\n    p = [0] * 2\n    return p[0]\ndef f(x):\n    a = [1, 2]\n    return g(a) + x":                                                                       "passed by the caller",
		"def g(x):\n    a = [x, 1]\n    return a\ndef f(x):\n    return g(x) + 1":                                                                                           "g returns a list",
		"def g(a, n):\n    return g(a, n - 1) if n else len(a)\ndef f(x):\n    a = []\n    a.append(x)\n    return g(a, 3)":                                                 "only to a helper it inlines",
		"def g(a, n):\n    a[0] = n\n    return g(a, n - 1) if n else 0\ndef f(x):\n    a = [0] * 2\n    x += g(a, 1)\n    for v in a:\n        x += g(a, 2)\n    return x": "does not pass it to a helper that recurses",
		"def f(x):\n    a = [1, 2]\n    for v in a:\n        a = [v, x]\n    return a[0]":                                                                                   "does not rebind it there",
		"def f(x):\n    a = [1, 2]\n    b = [3, 4]\n    for v in a:\n        a = list(b)\n    return a[0]":                                                                  "does not rebind it there",
		"def f(x):\n    n = 0\n    for i, v in enumerate(x):\n        n += v\n    return n":                                                                                 "enumerate of x is not allowed",
		"def f(x):\n    q = [0] * 2\n    if x:\n        return q\n    return 3":                                                                                             "a list on some paths and another value",
		"def f(x):\n    q = [0] * 2\n    r = [0] * 3\n    if x:\n        return q\n    return r":                                                                            "lists of 2 and of 3 elements",
	} {
		s, err := fusescript.Load(src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.CompileWith("f", exactly)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error saying %q", src, err, want)
		}
	}
}
