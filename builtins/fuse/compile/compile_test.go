package compile_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

var dialect = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// script runs src as plain Starlark and compiles its function name.
type script struct {
	file    *syntax.File
	globals starlark.StringDict
	thread  *starlark.Thread
}

func load(t testing.TB, src string) *script {
	t.Helper()
	file, err := dialect.Parse("test.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	thread := &starlark.Thread{Name: "test"}
	pre := builtins.Predeclared()
	globals, err := starlark.ExecFileOptions(dialect, thread, "test.star", src, pre)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range pre {
		if _, ok := globals[k]; !ok {
			globals[k] = v
		}
	}
	return &script{file: file, globals: globals, thread: thread}
}

func (s *script) source(fn *starlark.Function) (*compile.Source, error) {
	for _, st := range s.file.Stmts {
		d, ok := st.(*syntax.DefStmt)
		if ok && d.Name.Name == fn.Name() {
			var params []*syntax.Ident
			for _, p := range d.Params {
				params = append(params, p.(*syntax.Ident))
			}
			_, end := d.Span()
			return &compile.Source{Name: fn.Name(), Params: params, Body: d.Body, End: end,
				Free: func(name string) (starlark.Value, bool) {
					v, ok := s.globals[name]
					return v, ok
				},
				Builtin: func(name string) bool {
					v, ok := s.globals[name]
					b, isB := v.(*starlark.Builtin)
					return !ok || isB && b.Name() == name
				},
			}, nil
		}
	}
	return nil, fmt.Errorf("no def %s", fn.Name())
}

func (s *script) compile(name string) (*fuse.Func, error) {
	fn, ok := s.globals[name].(*starlark.Function)
	if !ok {
		return nil, fmt.Errorf("no function %s", name)
	}
	src, err := s.source(fn)
	if err != nil {
		return nil, err
	}
	return compile.Func(src, compile.Options{Helper: s.source, Words: func(starlark.Value) ([]uint64, bool) { return nil, false }})
}

// plain calls the Starlark function name on words; ok is false when it
// fails or returns something else than a word.
func (s *script) plain(name string, args ...uint64) (uint64, bool) {
	targs := make(starlark.Tuple, len(args))
	for i, a := range args {
		targs[i] = starlark.MakeUint64(a)
	}
	v, err := starlark.Call(s.thread, s.globals[name], targs, nil)
	if err != nil {
		return 0, false
	}
	w, ok := compile.WordOf(v)
	return w, ok
}

// agree checks the Func against the plain function on the inputs.
func agree(t *testing.T, src, name string, inputs [][]uint64) {
	t.Helper()
	s := load(t, src)
	f, err := s.compile(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	st := f.NewState(nil)
	for _, in := range inputs {
		want, ok := s.plain(name, in...)
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

func randInputs(n, params int, small bool) [][]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	var out [][]uint64
	for i := 0; i < n; i++ {
		in := make([]uint64, params)
		for j := range in {
			switch {
			case small:
				in[j] = r.Uint64N(40)
			case i%3 == 0:
				in[j] = r.Uint64N(1 << 12)
			default:
				in[j] = r.Uint64()
			}
		}
		out = append(out, in)
	}
	return out
}

func TestConstructsAgreeWithStarlark(t *testing.T) {
	cases := []struct {
		name, src string
		params    int
		small     bool
	}{
		{"while_bits", `
def f(b):
    n = 0
    while b:
        n += bsf(b)
        b &= b - 1
    return n
`, 1, false},
		{"break_continue", `
def f(x):
    s = 0
    for i in range(64):
        if i % 3 == 0:
            continue
        if (x >> i) & 1:
            s += i
        if s > 200:
            break
    return s
`, 1, false},
		{"range_forms", `
def f(a, b):
    s = 0
    for i in range(a % 7, b % 50, 3):
        s += i
    for j in range(b % 20, 0, -2):
        s = s * 3 + j
    for k in range(a % 9):
        s ^= k << k
    return s & U64
`, 2, false},
		{"subsets_and_bits", `
def f(m):
    m &= 0x3f5
    c = 0
    for s in subsets(m):
        c = (c * 31 + s) & U64
    for s in subsets(m, 3):
        c = (c * 7 + s) & U64
    for s in subsets(m, 0):
        c += 1 + s
    for i in bits(m):
        c = c * 5 + i
    return c & U64
`, 1, false},
		{"tables", `
T = [3, 1, 4, 1, 5, 9, 2, 6]
R = [[1, 2], [3], [], [4, 5, 6]]
def f(i, j):
    s = T[i % 8] + T[-1] + len(T) + len(R)
    row = R[i % 4]
    for k in range(len(row)):
        s += row[k] * (j + 1)
    s += R[3][j % 3] + len(R[i % 4])
    return s & U64
`, 2, false},
		{"scratch_fresh", `
def f(x):
    seen = [0] * 64
    n = 0
    for i in range(16):
        k = (x >> (i * 4)) & 15
        if seen[k]:
            n += 1
        seen[k] = 1
        seen[k + 16] += i
    return n * 1000 + seen[16 + (x & 15)]
`, 1, false},
		{"scratch_literal", `
def f(x):
    a = [x, 2, 0, x + 1]
    a[-1] += 5
    return a[0] + a[1] * 3 + a[3] * 7 + len(a)
`, 1, true},
		{"helpers", `
def mix(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & U64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & U64
    return x ^ (x >> 31)

def low(x, n):
    for i in range(n):
        if (x >> i) & 1:
            return i
    return n

def f(x):
    return mix((3 * x) & U64) & mix(low(x, 10) + 1)
`, 1, false},
		{"tuple_min_max_abs", `
def f(a, b):
    x, y = a % 1000, b % 1000
    for i in range(10):
        x, y = y, (x + y) % 1000
    return max(x, y, 7) * 10000 + min(x, y) + abs(x - y) * 1000000
`, 2, false},
		{"lazy_and_or_cond", `
def g(x):
    return 100 // x
def f(x):
    a = x and g(x)
    b = (x - x) or g(x + 1)
    c = g(x) if x else 5
    return a + b * 1000 + c * 1000000
`, 1, true},
		{"return_anywhere", `
def f(x):
    if x & 1:
        return 1
    for i in range(5):
        if x == i:
            return 10 + i
    while x > 100:
        x //= 3
        if x == 55:
            return 7
    return x
`, 1, true},
		{"spec_builtins", `
def f(x, y):
    return rotl(x, y % 64) ^ pdep(x, y) ^ pext(y, x) ^ reverse_bits(x) ^ swap_bytes(y) ^ parity(x) ^ gray(y) ^ gray_inverse(x) ^ popcount(x & y) ^ lsb(x)
`, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agree(t, tc.src, "f", randInputs(300, tc.params, tc.small))
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
	f, err := s.compile("f")
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
	g, err := s.compile("g")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.NewState(nil).Eval([]uint64{8}); err == nil {
		t.Errorf("g(8): no error for an index out of range of the scratch array")
	}
	h, err := s.compile("h")
	if err != nil {
		t.Fatal(err)
	}
	polls := 0
	if _, err := h.NewState(func() bool { polls++; return polls == 3 }).Eval([]uint64{1}); err != fuse.ErrStopped || polls != 3 {
		t.Errorf("h: endless loop gave %v after %d polls; want ErrStopped after 3", err, polls)
	}
	k, err := s.compile("k")
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
		{"def f(x):\n    return f(x - 1)\n", "recursion is not allowed in a fused function: f -> f"},
		{"def g(x):\n    return h(x)\ndef h(x):\n    return g(x)\ndef f(x):\n    return g(x)\n", "4:12: recursion is not allowed in a fused function: g -> h -> g"},
		{"def f(x):\n    a = [0] * (1 << 21)\n    return 1\n", "at most 1048576 elements"},
		{"def f(x):\n    a = [0] * x\n    return 1\n", "must be a constant"},
		{"T = [1]\ndef f(x):\n    T[0] = x\n    return 1\n", "read-only table"},
		{"def f(x):\n    for c in 'abc':\n        pass\n    return 1\n", "loop over range(...)"},
		{"def f(x):\n    print(x)\n    return 1\n", "print is not allowed"},
		{"def f(x):\n    return x.bit_length()\n", "not allowed"},
		{"def f(x):\n    return [v for v in range(3)]\n", "comprehension"},
	} {
		s := load(t, tc.src)
		_, err := s.compile("f")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want an error containing %q", tc.src, err, tc.want)
		}
	}
}
