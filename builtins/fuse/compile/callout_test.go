package compile_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"go.starlark.net/starlark"
)

// calloutScript has functions that print, plain, in loops, from a
// recursion, with sep and formats, and then fail or return.
const calloutScript = `
K = "k="
def flat(n):
    print(n, "found", n * 3, n > 2, sep=", ")
    return n + 1

def loop(n):
    t = 0
    for i in range(n):
        if i % 7 == 3:
            print("%d: %x %X %o %s%%" % (i, i * 255, i * 255, i, i), K, i < 10, "%r %s %r" % (K, K, i))
        t += i
    return t

def fails(n):
    for i in range(n):
        print("step", i)
        if i == 5:
            return 1 // (i - 5)
    return 0

def rec(n, d):
    if n == 0:
        print("leaf at depth", d)
        return 1
    print("enter", n, d)
    return rec(n - 1, d + 1) + rec(n // 2, d + 1)

def top(n):
    return rec(n, 0)
`

// plainLines runs name on args in plain Starlark and returns its printed
// lines, each ending in a newline, and its result (ok false: it failed).
func plainLines(t *testing.T, s *fusescript.Script, name string, args ...uint64) (string, uint64, bool) {
	t.Helper()
	var out strings.Builder
	thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") }}
	in := make(starlark.Tuple, len(args))
	for i, a := range args {
		in[i] = starlark.MakeUint64(a)
	}
	v, err := starlark.Call(thread, s.Globals[name], in, nil)
	if err != nil {
		return out.String(), 0, false
	}
	w, _ := v.(starlark.Int).Uint64()
	return out.String(), w, true
}

func TestCalloutPrint(t *testing.T) {
	s, err := fusescript.Load(calloutScript)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []uint64
	}{{"flat", []uint64{1}}, {"flat", []uint64{7}}, {"loop", []uint64{40}}, {"fails", []uint64{3}}, {"fails", []uint64{9}}, {"top", []uint64{5}}}
	for _, c := range cases {
		f, err := s.CompileWith(c.name, exactly)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(f.Callouts) == 0 {
			t.Fatalf("%s: no callouts", c.name)
		}
		want, wantRes, wantOK := plainLines(t, s, c.name, c.args...)
		if want == "" {
			t.Fatalf("%s%v prints nothing in plain Starlark", c.name, c.args)
		}
		engines := 0
		for _, e := range []native.Engine{native.Eval, native.AMD64} {
			if native.Ready(e) != nil {
				continue
			}
			engines++
			p, err := native.CompileWith(f, e)
			if err != nil {
				t.Fatalf("%s on %v: %v", c.name, e, err)
			}
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			w.SetCallout(func(k int, ops []uint64) error {
				got.WriteString(f.Callouts[k].Text(ops) + f.Callouts[k].End)
				return nil
			})
			for i, a := range c.args {
				w.Params(i)[0] = a
			}
			_, res, err := w.Run(1, false)
			if (err == nil) != wantOK || err == nil && res[0] != wantRes {
				t.Errorf("%s%v on %v: %v, %v; plain Starlark %d, %v", c.name, c.args, e, res, err, wantRes, wantOK)
			}
			if got.String() != want {
				t.Errorf("%s%v on %v printed\n%s\nplain Starlark\n%s", c.name, c.args, e, got.String(), want)
			}
			w.Close()
			p.Close()
		}
		if engines == 0 {
			t.Fatal("no engine ran")
		}
	}
}

// TestCalloutNone: a run that meets a callout with nobody to do it ends
// with fuse.ErrNoCallout; WebAssembly takes no callouts.
func TestCalloutNone(t *testing.T) {
	s, err := fusescript.Load(calloutScript)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.CompileWith("flat", exactly)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewState(nil).Eval([]uint64{1}); err != fuse.ErrNoCallout {
		t.Errorf("eval: %v, want fuse.ErrNoCallout", err)
	}
	// WebAssembly refuses callouts; Auto then takes the evaluator where
	// the x86-64 engine does not run.
	if _, err := native.CompileWith(f, native.WebAssembly); err == nil || !strings.Contains(err.Error(), "callouts") {
		t.Errorf("WebAssembly: %v, want a refusal of the callouts", err)
	}
	if native.Ready(native.AMD64) != nil {
		p, err := native.CompileWith(f, native.Auto)
		if err != nil {
			t.Fatalf("Auto: %v", err)
		}
		if p.Engine() != native.Eval {
			t.Errorf("Auto: %v, want the evaluator", p.Engine())
		}
	}
}

// callScript has functions whose helpers the compiler cannot take
// (strings): called for an int, for a bool, as a statement, from a loop
// and from a recursion (a Proc), with bool and nested arguments.
const callScript = `
def lab(x):
    return len("v" + str(x))

def odd(x):
    return str(x)[-1] in "13579"

def say(x, flag):
    print("say", str(x), flag)

def rec(n, x):
    if n == 0:
        return lab(x)
    if odd(x):
        say(x, n > 1)
    return rec(n - 1, x + 1) + lab(lab(x) + n)

def top(n):
    t = 0
    for i in range(n):
        if odd(i * 7):
            t += lab(i * 1000)
        t += rec(i % 4, i)
    return t
`

// TestCalloutCall: a helper left to the runner (Options.CallOut) is a
// callout whose operands are its arguments and whose result the code
// reads (fuse.OpResult); the evaluator and the x86-64 code give plain
// Starlark's result and lines where the runner calls the helper.
func TestCalloutCall(t *testing.T) {
	s, err := fusescript.Load(callScript)
	if err != nil {
		t.Fatal(err)
	}
	// Without CallOut, the translation fails in a helper's body, which
	// the error names.
	_, err = s.CompileWith("top", exactly)
	var he *compile.HelperError
	if !errors.As(err, &he) || he.Fn.Name() != "lab" && he.Fn.Name() != "odd" {
		t.Fatalf("top: %v, want a HelperError of lab or odd", err)
	}
	f, err := s.CompileWith("top", func(o *compile.Options) {
		exactly(o)
		o.CallOut = func(fn *starlark.Function) bool { return fn.Name() != "rec" }
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]fuse.CalloutResult{}
	for _, c := range f.Callouts {
		kinds[c.Name] = c.Result
	}
	if kinds["lab"] != fuse.ResultWord || kinds["odd"] != fuse.ResultBool || kinds["say"] != fuse.ResultAny || len(f.Procs) == 0 {
		t.Fatalf("callouts %v, procs %d: want lab an int, odd a bool, say a statement, rec a Proc", kinds, len(f.Procs))
	}
	for _, n := range []uint64{0, 1, 9, 30} {
		want, wantRes, wantOK := plainLines(t, s, "top", n)
		for _, e := range []native.Engine{native.Eval, native.AMD64} {
			if native.Ready(e) != nil {
				continue
			}
			p, err := native.CompileWith(f, e)
			if err != nil {
				t.Fatalf("%v: %v", e, err)
			}
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			thread := &starlark.Thread{Print: func(_ *starlark.Thread, msg string) { got.WriteString(msg + "\n") }}
			calls := 0
			w.SetCallout(func(k int, ops []uint64) error {
				c := &f.Callouts[k]
				args := make(starlark.Tuple, c.Operands)
				for i := range args {
					args[i] = starlark.MakeUint64(ops[i])
					if c.Parts[i].Bool {
						args[i] = starlark.Bool(ops[i] != 0)
					}
				}
				calls++
				v, err := starlark.Call(thread, c.Callee.(*starlark.Function), args, nil)
				if err != nil {
					return err
				}
				switch c.Result {
				case fuse.ResultWord:
					ops[0], _ = v.(starlark.Int).Uint64()
				case fuse.ResultBool:
					ops[0] = 0
					if v.(starlark.Bool) {
						ops[0] = 1
					}
				}
				return nil
			})
			w.Params(0)[0] = n
			_, res, err := w.Run(1, false)
			if (err == nil) != wantOK || err == nil && res[0] != wantRes || got.String() != want {
				t.Errorf("top(%d) on %v: %v, %v, printed\n%s; plain Starlark %d, %v, printed\n%s", n, e, res, err, got.String(), wantRes, wantOK, want)
			}
			if n > 0 && calls == 0 {
				t.Errorf("top(%d) on %v: no helper called", n, e)
			}
			w.Close()
			p.Close()
		}
	}
}
