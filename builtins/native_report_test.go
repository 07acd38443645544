package builtins

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// reportScript has a function for each way a call goes back to the
// interpreter; drive (reportDrive) calls them from Go, a known number of
// times, and the report must count exactly those calls.
const reportScript = `
def total(xs):
    s = 0
    for x in xs:
        s += x
    return s

def square(x):
    for i in range(1):
        x = x * x
    return x

def at(i):
    t = [0] * 4
    for k in range(1):
        t[i] = 1
    return i

def down(n):
    for i in range(1):
        pass
    if n == 0:
        return 0
    return 1 + down(n - 1)

K = 3

def addk(x):
    for i in range(1):
        x += K
    return x

def plusk(x):
    return x + K

def neg(x):
    for i in range(3):
        x -= i
    return ~x

drive("first", total, square, at, down, addk, plusk, neg)
K = 4
drive("rebound", addk, plusk)
`

// reportAt returns "report.star:L:C", where the L-th line of reportScript holds
// text, C its first column.
func reportAt(t *testing.T, text string) string {
	t.Helper()
	for i, line := range strings.Split(reportScript, "\n") {
		if c := strings.Index(line, text); c >= 0 {
			return fmt.Sprintf("report.star:%d:%d", i+1, c+1)
		}
	}
	t.Fatalf("reportScript has no %q", text)
	return ""
}

// TestNativeReportCounts: each kind of call the interpreter runs (a list
// of another length, keyword arguments, an int past 64 bits, an error
// raised in the code, a recursion too deep for it, a rebound global, a
// function not compiled) is in the report with the number of calls made,
// and a rebound global makes a function with a loop compiled again.
func TestNativeReportCounts(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	stats := NewNativeStats()
	// waitReady waits until every function compiled so far has its code.
	waitReady := func() {
		stats.mu.Lock()
		tallies := stats.tallies
		stats.mu.Unlock()
		for _, tl := range tallies {
			if nf := tl.nf.Load(); nf != nil {
				<-nf.pc.Ready()
			}
		}
	}
	depth := 0 // the deepest recursion down's code allows
	drive := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		fns := map[string]starlark.Value{}
		for _, a := range args[1:] {
			fns[a.(*starlark.Function).Name()] = a
		}
		call := func(name string, times int, args ...starlark.Value) error {
			var err error
			for range times {
				_, err = starlark.Call(thread, fns[name], args, nil)
			}
			return err
		}
		callKw := func(name string, times int, param string, arg starlark.Value) error {
			var err error
			for range times {
				_, err = starlark.Call(thread, fns[name], nil, []starlark.Tuple{{starlark.String(param), arg}})
			}
			return err
		}
		word := func(x uint64) starlark.Value { return starlark.MakeUint64(x) }
		list := func(xs ...int) starlark.Value {
			l := make([]starlark.Value, len(xs))
			for i, x := range xs {
				l[i] = starlark.MakeInt(x)
			}
			return starlark.NewList(l)
		}
		if args[0] == starlark.String("rebound") {
			call("addk", 1, word(1)) // offered again, compiled again
			waitReady()
			if err := call("plusk", 10, word(1)); err != nil { // counted towards plusk's next offer
				return nil, err
			}
			return starlark.None, call("addk", 8, word(1))
		}
		// One call each, to compile them, then the code is waited for:
		// these calls run as code or, while it is generated, interpreted.
		call("total", 1, list(1, 2, 3))
		call("square", 1, word(3))
		call("at", 1, word(1))
		call("down", 1, word(0))
		call("addk", 1, word(1))
		call("neg", 1, word(1))
		call("plusk", 1000, word(1)) // offered at its 1000th call
		waitReady()
		stats.mu.Lock()
		for _, tl := range stats.tallies {
			if tl.fn.Name() == "down" {
				depth = tl.nf.Load().f.Depth
			}
		}
		stats.mu.Unlock()
		for _, err := range []error{
			call("total", 5, list(1, 2, 3)),
			callKw("total", 2, "xs", list(1, 2, 3)), // keyword arguments
			call("plusk", 3, word(1)),
			call("total", 7, list(1, 2)), // another length
			call("square", 20, word(3)),
			call("square", 10, word(1<<40)), // 2^80
			call("at", 4, word(1)),
			call("addk", 6, word(1)),
			call("neg", 5, word(1)),
			call("down", 1, word(uint64(depth+5))), // too deep for the code at first
		} {
			if err != nil {
				t.Error(err)
			}
		}
		if err := call("at", 3, word(9)); err == nil || !strings.Contains(err.Error(), "list index 9 out of range") {
			t.Errorf("at(9): %v, want the interpreter's index error", err)
		}
		return starlark.None, nil
	}
	thread := &starlark.Thread{Name: "report"}
	SetEnv(thread, Env{Sources: testSources{"report.star": reportScript}, Context: context.Background(), NativeStats: stats})
	pre := Predeclared()
	pre["drive"] = starlark.NewBuiltin("drive", drive)
	if _, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "report.star", reportScript, pre); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	stats.WriteReport(&b)
	t.Logf("report:\n%s", b.String())

	got := map[string]NativeFunc{}
	for _, f := range stats.Funcs() {
		got[f.Name] = f
	}
	notReady := "its machine code was still being generated"
	// check says that name's calls are code as code (the calls made before
	// its code was ready, at most warm of them, interpreted instead) and
	// the others interpreted for the reasons of want, no others.
	check := func(name string, compiled int, code int64, warm int64, want map[string]int64) {
		t.Helper()
		f, ok := got[name]
		if !ok {
			t.Errorf("%s: not in the report", name)
			return
		}
		if f.Compiled != compiled {
			t.Errorf("%s: compiled %d times, want %d", name, f.Compiled, compiled)
		}
		reasons := map[string]int64{}
		var sum int64
		for _, r := range f.Reasons {
			reasons[r.Why] = r.Calls
			sum += r.Calls
		}
		if sum != f.Interpreted {
			t.Errorf("%s: %d calls interpreted, the reasons count %d", name, f.Interpreted, sum)
		}
		late := reasons[notReady]
		delete(reasons, notReady)
		if late > warm || f.Code+late != code {
			t.Errorf("%s: %d calls as code and %d before its code was ready, want %d in all (at most %d before)", name, f.Code, late, code, warm)
		}
		for why, n := range want {
			if reasons[why] != n {
				t.Errorf("%s: %d calls for %q, want %d", name, reasons[why], why, n)
			}
			delete(reasons, why)
		}
		for why, n := range reasons {
			t.Errorf("%s: %d calls for %q, want none", name, n, why)
		}
	}
	check("total", 1, 1+5, 1, map[string]int64{"argument xs a list of another length than 3": 7, "a call with keyword arguments": 2})
	// plusk: the 1000th call and 3 more, then 10 after K is rebound.
	check("plusk", 1, 1+3, 1, map[string]int64{"the global K it reads was rebound": 10})
	check("square", 1, 1+20, 1, map[string]int64{"an int beyond 64 bits (*) at " + reportAt(t, "x * x"): 10})
	check("at", 1, 1+4, 1, map[string]int64{"index out of range of the scratch array t at " + reportAt(t, "[i] = 1"): 3})
	deep := fmt.Sprintf("recursion deeper than %d calls (down -> down -> ...) at %s", depth, reportAt(t, "(n - 1)"))
	// down(n) for n above depth fails in the code: down(depth + 5) to
	// down(depth + 1) are interpreted, down(depth) runs as code.
	check("down", 1, 1+1, 1, map[string]int64{deep: 5})
	check("addk", 2, 1+6+1+8, 2, nil)
	if f := got["neg"]; f.Refused == "" || f.Code != 0 || f.Interpreted != 1+5 {
		t.Errorf("neg: refused %q, %d calls as code, %d interpreted; want refused, 0, 6", f.Refused, f.Code, f.Interpreted)
	}
}
