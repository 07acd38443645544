package builtins

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/starlark"
)

// calloutLoopScript is a function f whose loop calls h, which stays
// interpreted (it compares with a string), with body around the call,
// called calls times with n iterations (by main, which stays interpreted:
// it makes a string).
func calloutLoopScript(body string, calls, n int) string {
	return fmt.Sprintf(`def h(x):
    return 1 if x == "a" else 2
def f(n):
    s = 0
    for i in range(n):
        s += %s
    return s
def main():
    t = 0
    for k in range(%d):
        t += f(%d)
    return str(t)
print(main())
`, body, calls, n)
}

// TestNativeCalloutBound: a function whose loop does little but call a
// helper that stays interpreted is left to the interpreter once its calls
// have made calloutGrace such calls, calloutsPerCall a call or more, with
// the reason in the report; one that does more around the call, or calls
// it a few times a call, stays code. The answers are the interpreter's.
func TestNativeCalloutBound(t *testing.T) {
	requireNative(t)
	const off = "its loops do little but call helpers left to the interpreter"
	perCall := calloutsPerCall * 4
	calls := calloutGrace/perCall + 8 // past the grace by 8 calls
	for _, c := range []struct {
		name, body string
		calls, n   int
		off        bool
	}{
		{"light", "h(i)", calls, perCall, true},
		{"light_plus", "h(i) + 1", calls, perCall, true},
		{"heavier", "h(i) + (i * 3 + 1) % 13", calls, perCall, false},
		{"few_a_call", "h(i)", calloutGrace / 2, calloutsPerCall / 2, false},
		{"before_grace", "h(i)", calls - 16, perCall, false},
	} {
		got := diffScript(t, c.name+".star", calloutLoopScript(c.body, c.calls, c.n))
		var f *NativeFunc
		for i := range got.funcs {
			if got.funcs[i].Name == "f" {
				f = &got.funcs[i]
			}
		}
		if f == nil {
			t.Fatalf("%s: f not offered: %+v", c.name, got.funcs)
		}
		switched := false
		for _, r := range f.Reasons {
			switched = switched || strings.Contains(r.Why, off)
		}
		if switched != c.off {
			t.Errorf("%s: switched off %v, want %v: %+v", c.name, switched, c.off, *f)
		}
		if c.off {
			// Off at the call that made the grace's callouts: the
			// calls after it are the interpreter's.
			if f.Code != int64(calloutGrace/c.n) || f.Interpreted != int64(c.calls-calloutGrace/c.n) {
				t.Errorf("%s: %d calls as code, %d interpreted; want %d and %d", c.name, f.Code, f.Interpreted, calloutGrace/c.n, c.calls-calloutGrace/c.n)
			}
		} else if f.Code != int64(c.calls) {
			t.Errorf("%s: %d of %d calls as code: %+v", c.name, f.Code, c.calls, *f)
		}
	}
}

// BenchmarkNativeCalloutLoop: a script whose function's loop calls a
// cheap helper that stays interpreted (200 calls of 1000 iterations),
// interpreted and with the hook, for a loop that does little but the call
// ("light": left to the interpreter after calloutGrace calls of the
// helper), one that does a few operations more ("heavier": code), and
// that one failing at a call in four ("heavier_failing": left to the
// interpreter after calloutFailGrace+1 failures).
func BenchmarkNativeCalloutLoop(b *testing.B) {
	requireNative(b)
	for _, body := range []struct{ name, src string }{
		{"light", calloutLoopScript("h(i)", 200, 1000)},
		{"heavier", calloutLoopScript("h(i) + (i * 3 + 1) % 13", 200, 1000)},
		{"heavier_failing", calloutFailScript("h(i) + (i * 3 + 1) % 13", 4, 200, 1000)},
	} {
		src := body.src
		for _, mode := range []string{"interpreted", "hook"} {
			b.Run(body.name+"/"+mode, func(b *testing.B) {
				for b.Loop() {
					thread := &starlark.Thread{Name: "bench", Print: func(*starlark.Thread, string) {}}
					SetEnv(thread, Env{Sources: testSources{"bench.star": src}, Context: context.Background(), Interpreted: mode == "interpreted", waitForCode: true})
					if _, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "bench.star", src, Predeclared()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// calloutFailScript is calloutLoopScript's f, which fails in the code
// (returns a negative int) at every every-th call, called calls times with
// n iterations.
func calloutFailScript(body string, every, calls, n int) string {
	return fmt.Sprintf(`def h(x):
    return 1 if x == "a" else 2
def f(n, k):
    s = 0
    for i in range(n):
        s += %s
    return s - k
def main():
    t = 0
    for k in range(%d):
        t += f(%d, 1000000 if k %% %d == 1 else 0)
    return str(t)
print(main())
`, body, calls, n, every)
}

// TestNativeCalloutFails: a function whose loop makes callouts and saves
// little around them is left to the interpreter once calloutFailGrace+1
// of its calls have failed, where they are more than the share its code
// saves; one that does much more around the call stays code as often.
func TestNativeCalloutFails(t *testing.T) {
	requireNative(t)
	const off = "its calls that failed in the code"
	const heavy = "h(i) + (i * 3 + 1) % 13 + (i * 5 + 2) % 17 + (i * 7 + 3) % 19 + (i * 11 + 1) % 23"
	for _, c := range []struct {
		name, body string
		every      int
		code       int64 // calls run as code; -1: all but the failures
	}{
		// Every other call fails: off at the 17th failure, the 34th call.
		{"halves", "h(i) + (i * 3 + 1) % 13", 2, calloutFailGrace + 1},
		// The 17th failure is the call k = 1 + 16*16, after 15*16 + 1 that succeeded.
		{"sixteenth", "h(i) + (i * 3 + 1) % 13", 16, 15*calloutFailGrace + 1},
		{"heavy_quarter", heavy, 4, -1},
	} {
		const calls = 800
		got := diffScript(t, c.name+".star", calloutFailScript(c.body, c.every, calls, 50))
		var f *NativeFunc
		for i := range got.funcs {
			if got.funcs[i].Name == "f" {
				f = &got.funcs[i]
			}
		}
		if f == nil {
			t.Fatalf("%s: f not offered: %+v", c.name, got.funcs)
		}
		switched := false
		for _, r := range f.Reasons {
			switched = switched || strings.Contains(r.Why, off)
		}
		want := c.code
		if want < 0 {
			want = int64(calls - calls/c.every)
		}
		if switched != (c.code >= 0) || f.Code != want {
			t.Errorf("%s: switched off %v, %d calls as code; want %v, %d: %+v", c.name, switched, f.Code, c.code >= 0, want, *f)
		}
	}
}
