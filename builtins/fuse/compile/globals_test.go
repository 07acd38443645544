package compile_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"go.starlark.net/starlark"
)

// globalsScript holds plain functions that write module-level lists, as
// Python programmers write module state: by index, through helpers and
// recursion, and by append.
const globalsScript = `
pow2 = [1 << i for i in range(64)]
state = [1 << 32, 0, 0]
found = []
seed = [0x9E3779B97F4A7C15]
MASK64 = (1 << 64) - 1
signed = [-1, 5]
acc = [0, 0]

# Isenberg's generator with its lock word and count in a module's list,
# stopping at the limit-th sequence, which it keeps.
def find(seq, depth, vtx, nz, limit):
    if state[1] >= limit:
        return
    if (state[0] & pow2[vtx]) == 0 and nz <= 32:
        if depth == 0:
            state[1] += 1
            if state[1] == limit:
                found.append(seq)
        else:
            state[0] ^= pow2[vtx]
            if vtx == 31 and depth > 2:
                find(seq | pow2[depth - 1], depth - 2, 62, nz + 1, limit)
            else:
                find(seq, depth - 1, (2 * vtx) & 63, nz + 1, limit)
                find(seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz, limit)
            state[0] ^= pow2[vtx]

def rand64():
    x = seed[0]
    x ^= (x << 13) & MASK64
    x ^= x >> 7
    x ^= (x << 17) & MASK64
    seed[0] = x
    return x

def draws(n):
    m = MASK64
    for _ in range(n):
        m &= rand64()
    return m

def bump(k):
    acc[k % 2] += k

def bumps(n):
    for i in range(n):
        bump(i)
    return acc[0] * 3 + acc[1]

def add_to(a, k):
    a[0] += k

def through_param(n):
    add_to(acc, n)
    return acc[0]

def flip(x):
    if signed[0] == -1:
        signed[0] = x
    else:
        signed[0] = -1
    return signed[1] + x

def squares(n):
    for i in range(n):
        found.append(i * i)

def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def tally(n):
    acc[0] += 1
    return fib(n) + acc[0]

# Loops over a list in a recursion, never writing it.
weights = [3, 1, 4]

def walk(n):
    if n == 0:
        return 0
    s = 0
    for w in weights:
        s += w * n
    return walk(n - 1) + s

def walk_from(n):
    return walk(n) + 1

def reads_log(x):
    found.append(x)
    return len(found)
`

// loadGlobals runs globalsScript without freezing its globals, as a
// module is while its top level runs: its lists can be written.
func loadGlobals(t *testing.T) starlark.StringDict {
	t.Helper()
	_, prog, err := starlark.SourceProgramOptions(dialect.FileOptions(), "globals.star", globalsScript, builtins.Predeclared().Has)
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Init(&starlark.Thread{Name: "globals"}, builtins.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// compileGlobals compiles name of s exactly as the binding does: again with
// each module's list it writes among Options.Globals, until it compiles
// or fails for another reason.
func compileGlobals(s *fusescript.Script, name string) (*fuse.Func, []compile.Global, error) {
	var globals []compile.Global
	for {
		f, err := s.CompileWith(name, func(o *compile.Options) { o.Exact, o.Globals = true, globals })
		var gw *compile.GlobalArray
		if !errors.As(err, &gw) {
			return f, globals, err
		}
		g := compile.Global{Name: gw.Name, List: gw.List, Log: gw.Append}
		for _, h := range globals {
			if h.List == gw.List {
				return nil, globals, err
			}
		}
		if !g.Log {
			g.Len = gw.List.Len()
			for i := 0; i < g.Len; i++ {
				if v, ok := gw.List.Index(i).(starlark.Int).Int64(); ok && v < 0 {
					g.Bias = max(g.Bias, uint64(-v))
				}
			}
		}
		globals = append(globals, g)
	}
}

// TestExactGlobals: a function that writes module-level lists (by index,
// through an inlined helper, a recursive one or a helper given the list,
// by append) compiles with each list an array parameter, and gives what
// plain Starlark gives, the lists included, on the evaluator and the
// x86-64 code.
func TestExactGlobals(t *testing.T) {
	s, err := fusescript.Load(globalsScript)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		fn      string
		args    []uint64
		globals string // the lists taken as arrays, in the order the compiler reports them
		written string // WrittenArrays
	}{
		{"find", []uint64{0, 58, 0, 6, 500}, "state found", "[true true]"},
		{"find", []uint64{0, 58, 0, 6, 1}, "state found", "[true true]"},
		{"rand64", nil, "seed", "[true]"},
		{"draws", []uint64{3}, "seed", "[true]"},
		{"bumps", []uint64{7}, "acc", "[true]"},
		{"through_param", []uint64{9}, "acc", "[true]"},
		{"flip", []uint64{12}, "signed", "[true]"},
		{"squares", []uint64{30}, "found", "[true]"},
		{"tally", []uint64{15}, "acc", "[true]"},
		{"walk_from", []uint64{6}, "weights", "[false]"},
	}
	for _, c := range cases {
		f, globals, err := compileGlobals(s, c.fn)
		if err != nil {
			t.Fatalf("%s does not compile: %v", c.fn, err)
		}
		var names []string
		for _, g := range globals {
			names = append(names, g.Name)
		}
		if got := strings.Join(names, " "); got != c.globals {
			t.Errorf("%s writes %q; want %q", c.fn, got, c.globals)
		}
		if got := fmt.Sprint(f.WrittenArrays()); got != c.written {
			t.Errorf("%s writes its arrays %s; want %s", c.fn, got, c.written)
		}
		if f.Arrays != len(globals) {
			t.Errorf("%s has %d array parameters; want its %d lists", c.fn, f.Arrays, len(globals))
		}
		// A Proc takes the lists it reaches: find's recursion both, fib's
		// none.
		for _, p := range f.Procs {
			if want, ok := map[string]int{"find": 2, "fib": 0}[p.Name]; ok && p.Arrays != want {
				t.Errorf("%s: the Proc %s takes %d arrays; want %d", c.fn, p.Name, p.Arrays, want)
			}
		}
		// The oracle: plain Starlark on a module of its own.
		g := loadGlobals(t)
		var sargs starlark.Tuple
		var args []any
		for _, a := range c.args {
			sargs = append(sargs, starlark.MakeUint64(a))
			args = append(args, a)
		}
		want, err := starlark.Call(&starlark.Thread{}, g[c.fn], sargs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, gl := range globals {
			if gl.Log {
				args = append(args, make([]uint64, compile.LogLen))
				continue
			}
			var ws []uint64
			for i := 0; i < gl.Len; i++ {
				x := gl.List.Index(i).(starlark.Int)
				w, ok := x.Uint64()
				if !ok {
					v, _ := x.Int64()
					w = uint64(v)
				}
				ws = append(ws, w+gl.Bias)
			}
			args = append(args, ws)
		}
		for engine, run := range runLists(t, f, args) {
			word, _, lists, err := run()
			if err != nil {
				t.Fatalf("%s%v on %s: %v", c.fn, c.args, engine, err)
			}
			got := starlark.Value(starlark.MakeUint64(word))
			if f.ReturnsNone {
				got = starlark.None
			}
			if got.String() != want.String() {
				t.Errorf("%s%v on %s = %v; plain Starlark gives %v", c.fn, c.args, engine, got, want)
			}
			for i, gl := range globals {
				var vs []string
				if gl.Log {
					// The values appended, after those the list held.
					for k := 0; k < gl.List.Len(); k++ {
						vs = append(vs, gl.List.Index(k).String())
					}
					for _, w := range lists[i][1 : 1+lists[i][0]] {
						vs = append(vs, starlark.MakeUint64(w).String())
					}
				} else {
					for _, w := range lists[i] {
						vs = append(vs, starlark.MakeInt64(int64(w-gl.Bias)).String())
						if w >= gl.Bias {
							vs[len(vs)-1] = starlark.MakeUint64(w - gl.Bias).String()
						}
					}
				}
				if got, want := "["+strings.Join(vs, ", ")+"]", g[gl.Name].String(); got != want {
					t.Errorf("%s%v on %s leaves %s = %s; plain Starlark %s", c.fn, c.args, engine, gl.Name, got, want)
				}
			}
		}
	}

	// An append log set up by its count alone (Worker.SetElem), run after
	// run on one worker: each run logs its own values.
	f, globals, err := compileGlobals(s, "squares")
	if err != nil || len(globals) != 1 || !globals[0].Log {
		t.Fatalf("squares: %v, %+v", err, globals)
	}
	for _, e := range []native.Engine{native.Eval, native.AMD64} {
		p, err := native.CompileWith(f, e)
		if err != nil {
			if e == native.Eval {
				t.Fatal(err)
			}
			continue
		}
		w, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []uint64{5, 3, 0, 7} {
			w.SetElem(0, 0, 0)
			w.Params(0)[0] = n
			if _, _, err := w.Run(1, false); err != nil {
				t.Fatal(err)
			}
			log := make([]uint64, 1+n)
			w.Array(0, log)
			// The same words where they lie (x86-64 only), and past
			// the log's end, where it gives them, Array's words too.
			if v, ok := w.ArrayView(0, len(log)); ok != (e == native.AMD64) || ok && fmt.Sprint(v) != fmt.Sprint(log) {
				t.Fatalf("squares(%d) on %s: ArrayView = %v, %v; want %v (Array's)", n, e, v, ok, log)
			}
			// ArrayWords: the view, or (Eval) a copy after what buf holds.
			buf, words := w.ArrayWords(0, len(log), []uint64{42})
			if fmt.Sprint(words) != fmt.Sprint(log) || e == native.Eval && (len(buf) != 1+len(log) || buf[0] != 42) {
				t.Fatalf("squares(%d) on %s: ArrayWords = %v, %v; want %v (Array's) after [42]", n, e, buf, words, log)
			}
			more := make([]uint64, len(log)+3)
			w.Array(0, more)
			if v, ok := w.ArrayView(0, len(more)); ok && fmt.Sprint(v) != fmt.Sprint(more) {
				t.Fatalf("squares(%d) on %s: ArrayView of %d words = %v; want %v (Array's)", n, e, len(more), v, more)
			}
			for i := range n {
				if log[0] != n || log[1+i] != i*i {
					t.Fatalf("squares(%d) on %s logs %v; want %d values, the squares", n, e, log, n)
				}
			}
		}
		w.Close()
		p.Close()
	}

	// A list it appends to and reads is not a log.
	if _, _, err := compileGlobals(s, "reads_log"); err == nil || !strings.Contains(err.Error(), "may only append to it") {
		t.Errorf("reads_log compiles (%v); want the error of a log read", err)
	}
	// Without Exact, a write is the error it was.
	_, err = s.Compile("bump")
	var gw *compile.GlobalArray
	if err == nil || errors.As(err, &gw) || !strings.Contains(err.Error(), "read-only table") {
		t.Errorf("fused bump: %v; want the read-only table's error", err)
	}
}
