// bitsh fork: tests of the native hook (native.go; README.bitsh.md).

package starlark

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"go.starlark.net/syntax"
)

// A fakeNative is a native hook written in Go: for the functions named in
// impls it installs a Go implementation, for others it declines. It
// counts the offers and the native runs by function name.
type fakeNative struct {
	impls map[string]func(fn *Function) func(*Thread, Tuple) (Value, bool)

	mu     sync.Mutex
	offers map[string]int
	runs   map[string]int
	frames map[string]string // the top frame's function during the last run
}

func newFakeNative() *fakeNative {
	h := &fakeNative{
		offers: make(map[string]int),
		runs:   make(map[string]int),
		frames: make(map[string]string),
	}
	h.impls = map[string]func(fn *Function) func(*Thread, Tuple) (Value, bool){
		"fib": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			if fn.Module().Globals()["fib"] != Value(fn) {
				return nil // fib's recursive calls call another function
			}
			return intFunc(func(n int64) (int64, bool) {
				if n < 0 || n > 90 {
					return 0, false
				}
				a, b := int64(0), int64(1)
				for ; n > 0; n-- {
					a, b = b, a+b
				}
				return a, true
			})
		},
		"loopy": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return intFunc(func(n int64) (int64, bool) {
				if n > 1<<20 {
					return 0, false
				}
				var t int64
				for i := int64(0); i < n; i++ {
					t += i * i
				}
				return t, true
			})
		},
		"spin": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return intFunc(func(n int64) (int64, bool) {
				if n > 1<<20 {
					return 0, false
				}
				return max(n, 0) * (max(n, 0) + 1) / 2, true
			})
		},
		"g": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return intFunc(func(x int64) (int64, bool) { return x + 1, x < 1<<30 && x > -1<<30 })
		},
		"even": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return func(thread *Thread, args Tuple) (Value, bool) {
				n, ok := intArg(args)
				return Bool(n%2 == 0), ok && n >= 0
			}
		},
		"div": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return func(thread *Thread, args Tuple) (Value, bool) {
				if len(args) != 2 {
					return nil, false
				}
				a, ok1 := args[0].(Int)
				b, ok2 := args[1].(Int)
				if !ok1 || !ok2 || b.Sign() <= 0 || a.Sign() < 0 {
					return nil, false // the plain run reports the error
				}
				return a.Div(b), true
			}
		},
		// Compiled against the globals at the offer: K read through
		// helper, and later, unassigned at the first offer.
		"hsum": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			k, _ := AsInt32(fn.Module().Globals()["K"])
			return intFunc(func(n int64) (int64, bool) {
				if n < 0 || n > 1<<20 {
					return 0, false
				}
				return n * (n - 1) / 2 * int64(k), true
			})
		},
		"f": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			later := fn.Module().Globals()["later"]
			return intFunc(func(n int64) (int64, bool) {
				if n < 0 {
					return n, true
				}
				if later == nil {
					return -999, true // a stale form: must not run once later is set
				}
				return n * 10, true
			})
		},
		"decline": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return func(*Thread, Tuple) (Value, bool) { return nil, false }
		},
		"nilresult": func(fn *Function) func(*Thread, Tuple) (Value, bool) {
			return func(*Thread, Tuple) (Value, bool) { return nil, true }
		},
	}
	return h
}

func intArg(args Tuple) (int64, bool) {
	if len(args) != 1 {
		return 0, false
	}
	x, ok := args[0].(Int)
	if !ok {
		return 0, false
	}
	return x.Int64()
}

func intFunc(f func(int64) (int64, bool)) func(*Thread, Tuple) (Value, bool) {
	return func(thread *Thread, args Tuple) (Value, bool) {
		n, ok := intArg(args)
		if !ok {
			return nil, false
		}
		r, ok := f(n)
		if !ok {
			return nil, false
		}
		return MakeInt64(r), true
	}
}

func (h *fakeNative) hook(thread *Thread, fn *Function, args Tuple) func(*Thread, Tuple) (Value, bool) {
	name := fn.Name()
	h.mu.Lock()
	h.offers[name]++
	h.mu.Unlock()
	mk := h.impls[name]
	if mk == nil {
		return nil
	}
	call := mk(fn)
	if call == nil {
		return nil
	}
	return func(thread *Thread, args Tuple) (Value, bool) {
		v, ok := call(thread, args)
		if ok && v != nil { // a nil result is not used
			h.mu.Lock()
			h.runs[name]++
			if thread.CallStackDepth() > 0 {
				h.frames[name] = thread.CallFrame(0).Name
			}
			h.mu.Unlock()
		}
		return v, ok
	}
}

func (h *fakeNative) count(m map[string]int, name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return m[name]
}

// builtins lets a program read the counts: offers(name), runs(name).
func (h *fakeNative) builtins() StringDict {
	get := func(m map[string]int) func(*Thread, *Builtin, Tuple, []Tuple) (Value, error) {
		return func(thread *Thread, b *Builtin, args Tuple, kwargs []Tuple) (Value, error) {
			var name string
			if err := UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			return MakeInt(h.count(m, name)), nil
		}
	}
	return StringDict{
		"offers": NewBuiltin("offers", get(h.offers)),
		"runs":   NewBuiltin("runs", get(h.runs)),
	}
}

func (h *fakeNative) thread() *Thread {
	thread := new(Thread)
	thread.SetLocal(nativeKey, h.hook)
	return thread
}

const nativeSrc = `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def loopy(n):
    t = 0
    for i in range(n):
        t += i * i
    return t

def spin(n):
    t = 0
    while n > 0:
        t += n
        n -= 1
    return t

def g(x):
    return x + 1

def h(x):
    return x

def decline(x):
    return x * 2

def nilresult(x):
    return x * 3

def drive(f, n):
    r = None
    for i in range(n):
        r = f(i)
    return r

def use():
    return ([fib(i) for i in range(20)] + [loopy(i) for i in range(30)] +
            [spin(i) for i in range(30)] + [g(i) for i in range(1200)] +
            [decline(i) for i in range(1200)] + [nilresult(i) for i in range(1200)] +
            [g(1 << 40), spin(-3), fib(0)])

squares = [i * i for i in range(3)]  # a loop at top level
`

var nativeOpts = &syntax.FileOptions{Recursion: true, While: true, GlobalReassign: true, TopLevelControl: true}

func execNative(t *testing.T, thread *Thread, src string, h *fakeNative) StringDict {
	t.Helper()
	var predeclared StringDict
	if h != nil {
		predeclared = h.builtins()
	}
	globals, err := ExecFileOptions(nativeOpts, thread, "native.star", src, predeclared)
	if err != nil {
		t.Fatal(err)
	}
	return globals
}

// call calls globals[name](args...) and returns its result's text and the
// steps it took.
func callNative(t *testing.T, thread *Thread, globals StringDict, name string, args ...Value) (string, uint64) {
	t.Helper()
	steps := thread.Steps
	v, err := Call(thread, globals[name], args, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v.String(), thread.Steps - steps
}

// TestNativeResults: functions run by a native form give the results of
// the plain run, their steps are not counted, and no frame is pushed for
// a call from the loop.
func TestNativeResults(t *testing.T) {
	plain := new(Thread)
	pg := execNative(t, plain, nativeSrc, nil)
	want, plainSteps := callNative(t, plain, pg, "use")

	h := newFakeNative()
	thread := h.thread()
	globals := execNative(t, thread, nativeSrc, h)
	for i := range 3 {
		got, steps := callNative(t, thread, globals, "use")
		if got != want {
			t.Fatalf("round %d: with the hook\n%s\nwithout\n%s", i, got, want)
		}
		if steps >= plainSteps {
			t.Errorf("round %d: %d steps with native forms, %d without", i, steps, plainSteps)
		}
	}
	for _, name := range []string{"fib", "loopy", "spin", "g"} {
		if h.count(h.runs, name) == 0 {
			t.Errorf("%s never ran native", name)
		}
		if h.frames[name] != "use" {
			t.Errorf("%s ran native under frame %q, want use's (no frame pushed)", name, h.frames[name])
		}
	}
	// From Go: the frame Call pushes.
	for _, c := range []struct {
		name string
		arg  int
		want string
	}{{"fib", 30, "832040"}, {"loopy", 100, "328350"}, {"spin", 100, "5050"}, {"g", 7, "8"}} {
		runs := h.count(h.runs, c.name)
		if got, _ := callNative(t, thread, globals, c.name, MakeInt(c.arg)); got != c.want {
			t.Errorf("%s(%d) = %s, want %s", c.name, c.arg, got, c.want)
		}
		if h.count(h.runs, c.name) != runs+1 || h.frames[c.name] != c.name {
			t.Errorf("%s from Go: runs %d -> %d, frame %q", c.name, runs, h.count(h.runs, c.name), h.frames[c.name])
		}
	}
	if n := h.count(h.runs, "decline") + h.count(h.runs, "nilresult"); n != 0 {
		t.Errorf("declining native forms counted %d runs", n)
	}
}

// TestNativeOffers: a function with a loop is offered at its first call,
// one without at its 1000th, once; a hook's nil is final; module top-level
// code is never offered; counting stops once offered.
func TestNativeOffers(t *testing.T) {
	h := newFakeNative()
	thread := h.thread()
	globals := execNative(t, thread, nativeSrc, h)
	fn := func(name string) *Function { return globals[name].(*Function) }
	if n := h.count(h.offers, "<toplevel>"); n != 0 {
		t.Errorf("top level offered %d times", n)
	}

	// A for loop: at the first call, from Go, and used there.
	callNative(t, thread, globals, "loopy", MakeInt(10))
	if o, r := h.count(h.offers, "loopy"), h.count(h.runs, "loopy"); o != 1 || r != 1 {
		t.Errorf("loopy after 1 call: %d offers, %d runs; want 1, 1", o, r)
	}
	if s := fn("loopy").native.state.Load(); s != nativeInstalled {
		t.Errorf("loopy's state %#x, want installed", s)
	}
	// A while loop: at the first call, from the loop (drive has a loop too:
	// offered at its first call, declined).
	callNative(t, thread, globals, "drive", fn("spin"), MakeInt(1))
	if o, r := h.count(h.offers, "spin"), h.count(h.runs, "spin"); o != 1 || r != 1 {
		t.Errorf("spin after 1 call: %d offers, %d runs; want 1, 1", o, r)
	}
	if o := h.count(h.offers, "drive"); o != 1 {
		t.Errorf("drive offered %d times at its first call", o)
	}
	if s := fn("drive").native.state.Load(); s != nativeNever {
		t.Errorf("drive's state %#x after its hook declined, want never", s)
	}

	// No loop: the 1000th call, from the loop.
	callNative(t, thread, globals, "drive", fn("g"), MakeInt(999))
	if o, s := h.count(h.offers, "g"), fn("g").native.state.Load(); o != 0 || s != 999 {
		t.Errorf("g after 999 calls: %d offers, state %d; want 0, 999", o, s)
	}
	callNative(t, thread, globals, "drive", fn("g"), MakeInt(1))
	if o, r := h.count(h.offers, "g"), h.count(h.runs, "g"); o != 1 || r != 1 {
		t.Errorf("g after 1000 calls: %d offers, %d runs; want 1, 1", o, r)
	}
	callNative(t, thread, globals, "drive", fn("g"), MakeInt(5000))
	if o, r := h.count(h.offers, "g"), h.count(h.runs, "g"); o != 1 || r != 5001 {
		t.Errorf("g after 6000 calls: %d offers, %d runs; want 1, 5001", o, r)
	}

	// No loop, declined: the 1000th call from Go, then never again.
	for i := range 5000 {
		callNative(t, thread, globals, "h", MakeInt(i))
		want := 0
		if i >= 999 {
			want = 1
		}
		if o := h.count(h.offers, "h"); o != want {
			t.Fatalf("h after %d calls: %d offers, want %d", i+1, o, want)
		}
	}
	if s := fn("h").native.state.Load(); s != nativeNever {
		t.Errorf("h's state %#x after its hook declined, want never", s)
	}

	// Keyword arguments neither count nor use the native form.
	for range 10 {
		if _, err := Call(thread, fn("g"), nil, []Tuple{{String("x"), MakeInt(1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if r := h.count(h.runs, "g"); r != 5001 {
		t.Errorf("g called with keywords ran native: %d runs", r)
	}
}

// TestNativeNoRecursion: the functions of a program compiled without
// FileOptions.Recursion are not offered: their calls check that they are
// not on the stack already, which a native form would skip.
func TestNativeNoRecursion(t *testing.T) {
	const src = `
def g(x):
    if x > 5:
        return g(0)
    return x + 1

def loopy(n):
    t = 0
    for i in range(n):
        t += i * i
    return t

r = [g(0) for i in range(1500)] + [g(7)]
`
	h := newFakeNative()
	thread := h.thread()
	globals, err := ExecFileOptions(&syntax.FileOptions{}, thread, "native.star", src, nil)
	if err == nil || !strings.Contains(err.Error(), "function g called recursively") {
		t.Fatalf("got %v, want g's recursion error", err)
	}
	_, err = Call(thread, globals["loopy"], Tuple{MakeInt(3)}, nil)
	if err != nil || len(h.offers) != 0 {
		t.Errorf("offers %v (%v)", h.offers, err)
	}
}

// TestNativeNoHook: without a hook, or with a value of another type under
// the key, nothing changes, and a function reaching its threshold there is
// never offered.
func TestNativeNoHook(t *testing.T) {
	h := newFakeNative()
	for _, c := range []struct {
		name  string
		setup func(*Thread)
	}{
		{"no hook", func(*Thread) {}},
		{"a string", func(th *Thread) { th.SetLocal(nativeKey, "hook") }},
		{"a func of another type", func(th *Thread) {
			th.SetLocal(nativeKey, func(*Thread, *Function) any { return nil })
		}},
		{"hook removed", func(th *Thread) {
			th.SetLocal(nativeKey, h.hook)
			th.SetLocal(nativeKey, nil)
		}},
	} {
		plain := new(Thread)
		pg := execNative(t, plain, nativeSrc, nil)
		want, wantSteps := callNative(t, plain, pg, "use")
		thread := new(Thread)
		c.setup(thread)
		globals := execNative(t, thread, nativeSrc, nil)
		if got, steps := callNative(t, thread, globals, "use"); got != want || steps != wantSteps {
			t.Errorf("%s: %d steps, upstream %d; equal results: %v", c.name, steps, wantSteps, got == want)
		}
		for _, name := range []string{"fib", "loopy", "g"} {
			if s := globals[name].(*Function).native.state.Load(); s != nativeNever {
				t.Errorf("%s: %s's state %#x, want never", c.name, name, s)
			}
		}
		// A thread with the hook then never offers them.
		callNative(t, h.thread(), globals, "use")
	}
	for name, n := range h.offers {
		t.Errorf("%s offered %d times after its threshold on a thread without hook", name, n)
	}
}

// TestNativeIneligible: a thread with a step limit, an OnMaxSteps, a
// profile running or cancelled runs no native form: results and steps as
// upstream's.
func TestNativeIneligible(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(*Thread)
	}{
		{"SetMaxExecutionSteps", func(th *Thread) { th.SetMaxExecutionSteps(1 << 40) }},
		{"OnMaxSteps", func(th *Thread) { th.OnMaxSteps = func(th *Thread) { th.Cancel("steps") } }},
		{"OnMaxSteps with a limit", func(th *Thread) {
			th.SetMaxExecutionSteps(1 << 40)
			th.OnMaxSteps = func(th *Thread) { th.Cancel("steps") }
		}},
		{"profile", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setup == nil {
				if err := StartProfile(io.Discard); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := StopProfile(); err != nil {
						t.Fatal(err)
					}
				}()
			}
			plain := new(Thread)
			h := newFakeNative()
			thread := h.thread()
			if c.setup != nil {
				c.setup(plain)
				c.setup(thread)
			}
			pg := execNative(t, plain, nativeSrc, nil)
			globals := execNative(t, thread, nativeSrc, h)
			if plain.Steps != thread.Steps {
				t.Errorf("module: %d steps, upstream %d", thread.Steps, plain.Steps)
			}
			for range 3 {
				want, wantSteps := callNative(t, plain, pg, "use")
				got, steps := callNative(t, thread, globals, "use")
				if got != want || steps != wantSteps {
					t.Errorf("%d steps, upstream %d; equal results: %v", steps, wantSteps, got == want)
				}
				want, wantSteps = callNative(t, plain, pg, "loopy", MakeInt(100))
				got, steps = callNative(t, thread, globals, "loopy", MakeInt(100))
				if got != want || steps != wantSteps {
					t.Errorf("loopy: %s in %d steps, upstream %s in %d", got, steps, want, wantSteps)
				}
			}
			if len(h.runs) != 0 {
				t.Errorf("native runs: %v", h.runs)
			}
			if h.count(h.offers, "loopy") != 1 {
				t.Errorf("loopy offered %d times, want 1 (offers do not depend on the thread's limits)", h.count(h.offers, "loopy"))
			}
		})
	}

	// Cancelled: the error of the plain call, not the native result.
	h := newFakeNative()
	thread := h.thread()
	globals := execNative(t, thread, nativeSrc, h)
	callNative(t, thread, globals, "loopy", MakeInt(3)) // installed
	thread.Cancel("stop")
	_, err := Call(thread, globals["loopy"], Tuple{MakeInt(3)}, nil)
	if err == nil || !strings.Contains(err.Error(), "cancelled: stop") {
		t.Errorf("cancelled thread: %v", err)
	}
}

// TestNativeDeclines: a native form that returns false, or a nil value,
// leaves the call to the function's body: results and steps as upstream.
func TestNativeDeclines(t *testing.T) {
	plain := new(Thread)
	pg := execNative(t, plain, nativeSrc, nil)
	h := newFakeNative()
	thread := h.thread()
	globals := execNative(t, thread, nativeSrc, h)
	for _, name := range []string{"decline", "nilresult"} {
		for i := range 1500 {
			want, wantSteps := callNative(t, plain, pg, name, MakeInt(i))
			got, steps := callNative(t, thread, globals, name, MakeInt(i))
			if got != want || steps != wantSteps {
				t.Fatalf("%s(%d) = %s in %d steps, upstream %s in %d", name, i, got, steps, want, wantSteps)
			}
		}
		if h.count(h.offers, name) != 1 {
			t.Errorf("%s offered %d times", name, h.count(h.offers, name))
		}
	}
	// Arguments a native form declines (out of its range, not ints).
	want, _ := callNative(t, plain, pg, "use")
	got, _ := callNative(t, thread, globals, "use")
	if got != want {
		t.Errorf("use:\n%s\nupstream\n%s", got, want)
	}
}

// TestNativeErrors: errors and tracebacks of calls a native form declines
// are upstream's, from Go and from the loop.
func TestNativeErrors(t *testing.T) {
	const src = `
def div(a, b):
    return a // b

def top(a, b):
    x = [div(i, 3) for i in range(2000)]
    return div(a, b)
`
	plain := new(Thread)
	pg := execNative(t, plain, src, nil)
	h := newFakeNative()
	thread := h.thread()
	globals := execNative(t, thread, src, h)
	for _, c := range []struct {
		fn   string
		args Tuple
	}{
		{"top", Tuple{MakeInt(7), MakeInt(0)}},
		{"top", Tuple{MakeInt(7), String("a")}},
		{"div", Tuple{MakeInt(7), MakeInt(0)}},
		{"top", Tuple{MakeInt(-7), MakeInt(2)}},
	} {
		_, wantErr := Call(plain, pg[c.fn], c.args, nil)
		v, err := Call(thread, globals[c.fn], c.args, nil)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s%v: %v, upstream %v", c.fn, c.args, err, wantErr)
		}
		if err == nil {
			if want, _ := Call(plain, pg[c.fn], c.args, nil); v.String() != want.String() {
				t.Errorf("%s%v = %v, upstream %v", c.fn, c.args, v, want)
			}
			continue
		}
		got, want := err.(*EvalError).Backtrace(), wantErr.(*EvalError).Backtrace()
		if got != want {
			t.Errorf("%s%v:\n%s\nupstream:\n%s", c.fn, c.args, got, want)
		}
	}
	if h.count(h.runs, "div") < 2000 {
		t.Errorf("div ran native %d times", h.count(h.runs, "div"))
	}
}

// TestNativeDependencies: a native form is dropped when a global its
// function, or a helper of the same module, reads is assigned a new value;
// the function is then offered again at its threshold. A function reading
// a global not assigned yet is not offered.
func TestNativeDependencies(t *testing.T) {
	const src = `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

ofib = fib
a = ofib(20)
a_runs = runs("fib")
fib = lambda n: 100
b = ofib(5)
c = [ofib(5) for _ in range(998)]
c_runs, c_offers = runs("fib"), offers("fib")
d = ofib(5)
d_runs, d_offers = runs("fib"), offers("fib")

K = 3
def helper(x):
    return x * K
def hsum(n):
    t = 0
    for i in range(n):
        t += helper(i)
    return t
h1 = hsum(4)
K = 5
h2 = hsum(4)
h_offers, h_runs = offers("hsum"), runs("hsum")

def f(n):
    if n < 0:
        return n
    return later(n)
x = [f(-1) for _ in range(1000)]
x_runs = runs("f")
def later(n):
    return n * 10
y = f(3)
y_runs = runs("f")

def even(n):
    if n == 0:
        return True
    return odd(n - 1)
def odd(n):
    if n == 0:
        return False
    return even(n - 1)
e = [even(i) for i in range(1100)]
e_offers, e_runs = offers("even"), runs("even")
`
	h := newFakeNative()
	globals := execNative(t, h.thread(), src, h)
	get := func(name string) string { return globals[name].String() }
	for _, c := range []struct{ name, want string }{
		{"a", "6765"},
		{"b", "200"},
		{"d", "200"},
		{"c_offers", "1"}, // 999 calls since the rebinding: not offered again
		{"d_offers", "2"}, // the 1000th: offered again, declined
		{"h1", "18"},
		{"h2", "30"},
		{"h_offers", "2"},
		{"h_runs", "2"},
		{"x_runs", "0"}, // later is not assigned: not installed
		{"y", "30"},
		{"y_runs", "0"},
		{"e_offers", "1"},
	} {
		if got := get(c.name); got != c.want {
			t.Errorf("%s = %s, want %s", c.name, got, c.want)
		}
	}
	if get("a_runs") == "0" || get("a_runs") != get("c_runs") || get("c_runs") != get("d_runs") {
		t.Errorf("fib's native runs: %s after a, %s after c, %s after d; want the same, not 0",
			get("a_runs"), get("c_runs"), get("d_runs"))
	}
	if c := globals["c"].(*List); c.Len() != 998 || c.Index(0).String() != "200" || c.Index(997).String() != "200" {
		t.Errorf("c = %s", c)
	}
	e := globals["e"].(*List)
	for i := range e.Len() {
		if e.Index(i) != Bool(i%2 == 0) {
			t.Fatalf("e[%d] = %s", i, e.Index(i))
		}
	}
	if n, _ := AsInt32(globals["e_runs"]); n < 1000 {
		t.Errorf("even ran native %d times, want at least 1000 of its 1100 calls from the loop", n)
	}
}

// TestNativeParallel: threads that call a shared frozen function at once
// (for go test -race).
func TestNativeParallel(t *testing.T) {
	plain := new(Thread)
	want, _ := callNative(t, plain, execNative(t, plain, nativeSrc, nil), "use")
	h := newFakeNative()
	globals := execNative(t, h.thread(), nativeSrc, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread := h.thread()
			for i := range 5 {
				v, err := Call(thread, globals["use"], nil, nil)
				if err != nil || v.String() != want {
					errs <- fmt.Errorf("worker %d, round %d: %v", w, i, err)
					return
				}
				v, err = Call(thread, globals["fib"], Tuple{MakeInt(25)}, nil)
				if err != nil || v.String() != "75025" {
					errs <- fmt.Errorf("worker %d, round %d: fib(25) = %v, %v", w, i, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, name := range []string{"fib", "loopy", "spin", "g"} {
		if o := h.count(h.offers, name); o != 1 {
			t.Errorf("%s offered %d times", name, o)
		}
	}
}

// TestNativeRebindsGiveUp: a function whose global is rebound before each
// of its calls is offered again after each of the first nativeDrops
// rebindings only, then runs in the interpreter, with its results.
func TestNativeRebindsGiveUp(t *testing.T) {
	const src = `
K = 3
def helper(x):
    return x * K
def hsum(n):
    t = 0
    for i in range(n):
        t += helper(i)
    return t
r = []
for i in range(20):
    K = i
    r.append(hsum(4))
h_offers, h_runs = offers("hsum"), runs("hsum")
`
	h := newFakeNative()
	globals := execNative(t, h.thread(), src, h)
	want := fmt.Sprint(nativeDrops)
	if got := globals["h_offers"].String(); got != want {
		t.Errorf("hsum offered %s times, want %s", got, want)
	}
	if got := globals["h_runs"].String(); got != want {
		t.Errorf("hsum ran native %s times, want %s", got, want)
	}
	r := globals["r"].(*List)
	for i := 0; i < r.Len(); i++ {
		if got := r.Index(i).String(); got != fmt.Sprint(6*i) {
			t.Errorf("hsum(4) with K = %d gave %s, want %d", i, got, 6*i)
		}
	}
}

// TestNativeGivesUp: a native form that returns false with a value gives
// its function up: that call and every later one run in the interpreter,
// with no further call of the form, and the function is not offered
// again.
func TestNativeGivesUp(t *testing.T) {
	const src = `
def quit(n):
    t = 0
    for i in range(n):
        t += i
    return t
r = [quit(i) for i in range(100)]
q_offers, q_runs = offers("quit"), runs("quit")
`
	h := newFakeNative()
	tried := 0
	h.impls["quit"] = func(fn *Function) func(*Thread, Tuple) (Value, bool) {
		return func(thread *Thread, args Tuple) (Value, bool) {
			tried++
			n, ok := intArg(args)
			if !ok || n >= 10 {
				return None, false // give up
			}
			return MakeInt64(n * (n - 1) / 2), true
		}
	}
	globals := execNative(t, h.thread(), src, h)
	if tried != 11 {
		t.Errorf("the form was called %d times; want 11 (10 runs, then the call that gives up)", tried)
	}
	if got := globals["q_offers"].String(); got != "1" {
		t.Errorf("quit offered %s times, want 1", got)
	}
	if got := globals["q_runs"].String(); got != "10" {
		t.Errorf("quit ran native %s times, want 10", got)
	}
	r := globals["r"].(*List)
	for i := 0; i < r.Len(); i++ {
		if got := r.Index(i).String(); got != fmt.Sprint(i*(i-1)/2) {
			t.Errorf("quit(%d) = %s, want %d", i, got, i*(i-1)/2)
		}
	}
}

// TestNativeMiss: the function under nativeMissKey hears of the calls of
// a function with a native form that the interpreter runs for reasons of
// its own (keyword arguments, a thread with a step limit, a rebound
// global until the next offer), and of no other call.
func TestNativeMiss(t *testing.T) {
	const src = `
def g(x):
    return x + 1

K = 3
def k(x):
    return x + K

a = [g(i) for i in range(1000)]   # the 1000th call installs g's form
b = [g(x = i) for i in range(5)]  # keyword arguments
c = [k(i) for i in range(1000)]   # k's form installed
K = 4
d = [k(i) for i in range(10)]     # counted towards the next offer
`
	h := newFakeNative()
	h.impls["k"] = func(fn *Function) func(*Thread, Tuple) (Value, bool) {
		K, _ := fn.Module().Globals()["K"].(Int).Int64()
		return intFunc(func(n int64) (int64, bool) { return n + K, true })
	}
	misses := map[string]int{}
	thread := h.thread()
	thread.SetLocal(nativeMissKey, func(_ *Thread, fn *Function, why string) {
		misses[fn.Name()+": "+why]++
	})
	globals := execNative(t, thread, src, h)
	want := map[string]int{
		"g: keyword arguments":                 5,
		"k: the global K it reads was rebound": 10, // the 1st drops the form and is the 1st of the new round
	}
	if fmt.Sprint(misses) != fmt.Sprint(want) {
		t.Errorf("misses %v, want %v", misses, want)
	}
	if got := globals["d"].String(); got != "[4, 5, 6, 7, 8, 9, 10, 11, 12, 13]" {
		t.Errorf("d = %s", got)
	}

	// A thread with a step limit runs no form: each call is a miss.
	limited := h.thread()
	limited.SetMaxExecutionSteps(1 << 40)
	n := 0
	limited.SetLocal(nativeMissKey, func(_ *Thread, fn *Function, why string) {
		if fn.Name() == "g" && strings.HasPrefix(why, "the thread runs no native code") {
			n++
		}
	})
	if _, err := Call(limited, globals["g"], Tuple{MakeInt(1)}, nil); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("a thread with a step limit: %d misses, want 1", n)
	}
}

// TestNativeMissGivenUp: with a nativeMiss, a function given up (by its
// form, or after nativeDrops rebindings) is left installed with no call,
// and nativeMiss hears of each of its later calls; results are the
// interpreter's.
func TestNativeMissGivenUp(t *testing.T) {
	const src = `
def quit(n):
    t = 0
    for i in range(n):
        t += i
    return t
r = [quit(i) for i in range(100)]

K = 3
def helper(x):
    return x * K
def hsum(n):
    t = 0
    for i in range(n):
        t += helper(i)
    return t
s = []
for i in range(20):
    K = i
    s.append(hsum(4))
`
	h := newFakeNative()
	h.impls["quit"] = func(fn *Function) func(*Thread, Tuple) (Value, bool) {
		return func(thread *Thread, args Tuple) (Value, bool) {
			n, ok := intArg(args)
			if !ok || n >= 10 {
				return None, false // give up
			}
			return MakeInt64(n * (n - 1) / 2), true
		}
	}
	misses := map[string]int{}
	thread := h.thread()
	thread.SetLocal(nativeMissKey, func(_ *Thread, fn *Function, why string) {
		misses[fn.Name()+": "+why]++
	})
	globals := execNative(t, thread, src, h)
	want := map[string]int{
		"quit: " + nativeGaveUp:  89, // quit(11) to quit(99); quit(10) gave it up
		"hsum: " + nativeRebound: 20 - nativeDrops,
	}
	if fmt.Sprint(misses) != fmt.Sprint(want) {
		t.Errorf("misses %v, want %v", misses, want)
	}
	if got := globals["r"].(*List).Index(99).String(); got != "4851" {
		t.Errorf("quit(99) = %s", got)
	}
	if got := globals["s"].(*List).Index(19).String(); got != "114" {
		t.Errorf("hsum(4) with K = 19 gave %s, want 114", got)
	}
}

// TestNativeUnassignedLoop: a function with a loop (offered at its first
// call) that reads a global not assigned yet is not offered, and its call
// fails in the interpreter where it reads the global, as without a hook
// (the hook's slot once looped, offering it again and again).
func TestNativeUnassignedLoop(t *testing.T) {
	const src = `
def loopy(n):
    t = 0
    for i in range(n):
        t += i * later
    return t
x = loopy(3)
later = 1
`
	h := newFakeNative()
	_, err := ExecFileOptions(nativeOpts, h.thread(), "native.star", src, h.builtins())
	const want = "global variable later referenced before assignment"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if h.offers["loopy"] != 0 || h.runs["loopy"] != 0 {
		t.Errorf("loopy offered %d times, run native %d times; want 0 and 0", h.offers["loopy"], h.runs["loopy"])
	}
}
