package compile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"go.starlark.net/starlark"
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

def sum_into(a, b, n):
    for i in range(n):
        b[i] = a[i] + b[i]
    return b[0], n
`

// runLists runs f on the engines that take array parameters: args are
// words or []uint64 (a list, written back in place). It returns the
// result word, the tuple where f returns one, and the lists after the run.
func runLists(t *testing.T, f *fuse.Func, args []any) map[string]func() (uint64, []uint64, [][]uint64, error) {
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

// TestExactLists: functions that write the lists they are given, return
// None or return tuples give what plain Starlark gives, lists included,
// on the evaluator and the x86-64 code; where Starlark's ints leave the
// words, the run fails.
func TestExactLists(t *testing.T) {
	s, err := fusescript.Load(listsScript)
	if err != nil {
		t.Fatal(err)
	}
	thread := &starlark.Thread{}
	cases := []struct {
		fn   string
		args []any
		fail bool // the ints leave the words
	}{
		{"isenberg", []any{[]uint64{1 << 32, 0, 1000}, uint64(0), uint64(58), uint64(0), uint64(6)}, false},
		{"isenberg", []any{[]uint64{1 << 32, 0, 3000}, uint64(0), uint64(58), uint64(0), uint64(6)}, false},
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
	}
	for _, c := range cases {
		var lens []int
		var sargs starlark.Tuple
		var lists []*starlark.List
		for _, a := range c.args {
			switch a := a.(type) {
			case uint64:
				lens = append(lens, -1)
				sargs = append(sargs, starlark.MakeUint64(a))
			case []uint64:
				lens = append(lens, len(a))
				var elems []starlark.Value
				for _, x := range a {
					elems = append(elems, starlark.MakeUint64(x))
				}
				l := starlark.NewList(elems)
				lists = append(lists, l)
				sargs = append(sargs, l)
			}
		}
		name := fmt.Sprintf("%s%v", c.fn, c.args)
		f, err := s.CompileWith(c.fn, func(o *compile.Options) { o.Exact, o.Lists = true, lens })
		if err != nil {
			t.Fatalf("%s does not compile: %v", name, err)
		}
		want, perr := starlark.Call(thread, s.Globals[c.fn], sargs, nil)
		for engine, run := range runLists(t, f, c.args) {
			word, tuple, got, err := run()
			if err != nil {
				if !c.fail {
					t.Errorf("%s on %s fails: %v; plain Starlark gives %v (%v)\n%s", name, engine, err, want, perr, f)
				}
				continue
			}
			if c.fail || perr != nil {
				t.Errorf("%s on %s gives %d %v; want a failure (plain Starlark: %v, %v)", name, engine, word, tuple, want, perr)
				continue
			}
			var as starlark.Value
			switch {
			case f.ReturnsNone:
				as = starlark.None
			case f.Results > 0:
				var tv starlark.Tuple
				for _, x := range tuple {
					tv = append(tv, starlark.MakeUint64(x))
				}
				as = tv
			default:
				as = starlark.MakeUint64(word)
			}
			if eq, _ := starlark.Equal(as, want); !eq {
				t.Errorf("%s on %s = %v; plain Starlark gives %v", name, engine, as, want)
			}
			for i, l := range lists {
				var ws []string
				for _, x := range got[i] {
					ws = append(ws, fmt.Sprint(x))
				}
				if g := "[" + strings.Join(ws, ", ") + "]"; g != l.String() {
					t.Errorf("%s on %s leaves list %d %s; plain Starlark %s", name, engine, i, g, l)
				}
			}
		}
	}
}

// TestExactListsRefused: returns the exact compilation cannot give.
func TestExactListsRefused(t *testing.T) {
	for src, want := range map[string]string{
		"def f(x):\n    if x:\n        return 1, 2\n    return 3":       "a tuple on some paths and another value",
		"def f(x):\n    if x:\n        return 1, 2\n    return":         "a tuple on some paths and None",
		"def f(x):\n    if x:\n        return 1, 2\n    return 1, 2, 3": "tuples of 2 and of 3 values",
		"def g(x):\n    x += 1\ndef f(x):\n    return g(x) + 1":         "g returns None",
		"def g(x):\n    return x, x\ndef f(x):\n    return g(x)":        "returns one word, not a tuple",
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
