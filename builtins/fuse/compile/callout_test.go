package compile_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
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
