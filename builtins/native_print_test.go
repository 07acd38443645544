package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/shard"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// printScript has plain functions that print: in a loop of 10^5, then
// fail and go back to the interpreter, from a recursion at every depth,
// with sep, end and formats, around lists they write, and one that calls
// another printing function whose code fails too.
const printScript = `
K = "k="

def many(n):
    t = 0
    for i in range(n):
        print(i, i * i % 7 == 3)
        t += i
    return t

def grow(n):
    # Prints, then leaves the words: the interpreter runs it again.
    x = 1
    for i in range(n):
        print("step", i, x, sep=":")
        x = x * 1000003
    return x

def divide(n, k):
    for i in range(k):
        print("%d/%d" % (i, n - i - 1), end=" ")
        if n // (n - i - 1) > n:
            print("big", K, n)
    return 0

def rec(n, d):
    if n == 0:
        print("leaf at", d)
        return 1
    print("in", n, "at", d)
    return rec(n - 1, d + 1) + rec(n // 2, d + 1)

def top(n):
    for _ in range(1):
        pass
    return rec(n, 0)

def fill(xs, n):
    for i in range(n):
        xs[i % 8] += i
        print("fill %x %X %o %s %r" % (i, xs[i % 8], i, xs[i % 8] > 10, i), "%%", n)
    return xs[0]

def inner(n):
    x = 3
    for i in range(n):
        print("inner", i)
        x = x * x
    return x

def emits(n):
    # Emits as it goes, then leaves the words where n > 6.
    x = 1
    for i in range(n):
        if i % 3 == 0:
            emit("found", i, op="append")
            emit("count", 1)
            emit("best", i * i, "max")
            emit(key="flag", value=i > 4, op="union")
        x = x * 1000
    print("emitted", n)
    return x

def outer(n):
    t = 0
    for i in range(n):
        print("outer", i)
        t += inner(i)
    return t
`

// printCalls are the calls the tests make of printScript's functions, in
// order: each function first with arguments that print little (the call
// that offers it), then with those under test.
var printCalls = []struct {
	fn   string
	args []int
}{
	{"many", []int{1}}, {"many", []int{100_000}}, {"many", []int{3}},
	{"grow", []int{1}}, {"grow", []int{3}}, {"grow", []int{9}}, {"grow", []int{2}},
	{"divide", []int{1, 0}}, {"divide", []int{6, 5}}, {"divide", []int{4, 4}}, {"divide", []int{9, 7}},
	{"top", []int{1}}, {"top", []int{6}}, {"top", []int{12}},
	{"fill", []int{0}}, {"fill", []int{20}}, {"fill", []int{3000}},
	{"inner", []int{1}}, {"outer", []int{1}}, {"outer", []int{3}}, {"outer", []int{7}}, {"inner", []int{8}},
	{"emits", []int{1}}, {"emits", []int{5}}, {"emits", []int{9}}, {"emits", []int{4}}, {"emits", []int{13}},
}

// printRun runs src, interpreted or with the hook, then calls: each call's
// outcome and the whole output (Print and standard output, in order).
// With the hook, each function's first call waits for its code.
func printRun(t *testing.T, src string, interpreted bool, calls func(call func(fn string, args ...starlark.Value) string)) (outcomes []string, out string, stats *NativeStats) {
	t.Helper()
	var b strings.Builder
	stats = NewNativeStats()
	offers := make(chan string, 64)
	thread := &starlark.Thread{Name: "print", Print: func(_ *starlark.Thread, msg string) { b.WriteString(msg + "\n") }}
	results := &shard.Results{}
	SetEnv(thread, Env{Sources: testSources{"print.star": src}, Context: context.Background(), Interpreted: interpreted, Stdout: &b,
		NativeStats: stats, NativeReport: func(fn *starlark.Function, err error) { offers <- fn.Name() }, Results: results})
	defer func() {
		// The results emitted, after the output.
		for _, k := range results.Keys() {
			e, _ := results.Get(k)
			out += fmt.Sprintf("emitted %s %s %v\n", k, e.Op, e.Value)
		}
	}()
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "print.star", src, Predeclared())
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	seen := map[string]bool{}
	calls(func(fn string, args ...starlark.Value) string {
		o := edgeOutcome(starlark.Call(thread, g[fn], args, nil))
		if !interpreted && !seen[fn] {
			seen[fn] = true
			select {
			case <-offers:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: no report of its offer", fn)
			}
		}
		outcomes = append(outcomes, o)
		return o
	})
	return outcomes, b.String(), stats
}

func intVals(xs []int) []starlark.Value {
	var vs []starlark.Value
	for _, x := range xs {
		vs = append(vs, starlark.MakeInt(x))
	}
	return vs
}

// TestNativePrint: the functions of printScript print, through the fork,
// exactly what the interpreter prints, results and errors alike, and the
// printing ones run as code (a call that prints and then fails included).
func TestNativePrint(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	run := func(interpreted bool) ([]string, string, *NativeStats) {
		return printRun(t, printScript, interpreted, func(call func(string, ...starlark.Value) string) {
			for _, c := range printCalls {
				if c.fn == "fill" {
					call(c.fn, starlark.NewList(intVals([]int{0, 1, 2, 3, 4, 5, 6, 7})), starlark.MakeInt(c.args[0]))
					continue
				}
				call(c.fn, intVals(c.args)...)
			}
		})
	}
	want, wantOut, _ := run(true)
	got, gotOut, stats := run(false)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s%v: %s; the interpreter gives %s", printCalls[i].fn, printCalls[i].args, got[i], want[i])
		}
	}
	if gotOut != wantOut {
		t.Errorf("the output differs from the interpreter's (%d and %d bytes): %s", len(gotOut), len(wantOut), firstDiff(gotOut, wantOut))
	}
	code := map[string]int64{}
	for _, f := range stats.Funcs() {
		code[f.Name] += f.Code
		if f.Refused != "" {
			t.Errorf("%s refused: %s", f.Name, f.Refused)
		}
	}
	if !strings.Contains(wantOut, "emitted found append [0 0 3 0 3 6 0 3 0 3 6 9 12]") {
		t.Errorf("the interpreter's results are not the ones expected:\n%s", wantOut[strings.Index(wantOut, "emitted best"):])
	}
	for _, fn := range []string{"many", "grow", "divide", "top", "fill", "inner", "outer", "emits"} {
		if code[fn] == 0 {
			t.Errorf("%s: no call ran as code", fn)
		}
	}
}

// firstDiff describes where a and b first differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %q, want %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(al), len(bl))
}

// TestNativePrintCancel: a search that prints as code, cancelled after
// some lines, stops with the cancellation; what it printed is the
// interpreter's first lines, each once.
func TestNativePrintCancel(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	src := "def search(n):\n    t = 0\n    for i in range(n):\n        if i % 3 == 1:\n            print('found', i)\n        t += i\n    return t\n"
	for _, after := range []int{1, 50, 5000} {
		ctx, cancel := context.WithCancel(context.Background())
		var lines []string
		thread := &starlark.Thread{Name: "cancel"}
		thread.Print = func(th *starlark.Thread, msg string) {
			lines = append(lines, msg)
			if len(lines) == after {
				cancel()
				th.Cancel("cancelled")
			}
		}
		stats := NewNativeStats()
		offered := make(chan struct{}, 1)
		SetEnv(thread, Env{Sources: testSources{"cancel.star": src}, Context: ctx, NativeStats: stats,
			NativeReport: func(*starlark.Function, error) { offered <- struct{}{} }})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "cancel.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := starlark.Call(thread, g["search"], starlark.Tuple{starlark.MakeInt(0)}, nil); err != nil {
			t.Fatal(err)
		}
		<-offered
		_, err = starlark.Call(thread, g["search"], starlark.Tuple{starlark.MakeInt(1 << 40)}, nil)
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("after %d lines: %v, want the cancellation", after, err)
		}
		if len(lines) < after {
			t.Errorf("after %d lines: %d printed", after, len(lines))
		}
		for i, l := range lines {
			if want := fmt.Sprintf("found %d", 3*i+1); l != want {
				t.Fatalf("after %d lines: line %d is %q, want %q", after, i+1, l, want)
			}
		}
		if f := stats.Funcs(); len(f) != 1 || f[0].Code+f[0].Interpreted < 2 || f[0].Refused != "" {
			t.Errorf("after %d lines: %+v", after, f)
		}
		cancel()
	}
}

// randomPrintFunc writes a random plain function f(x, y) that prints in a
// loop: ints, bools, strings, formats, sep and end; that emits; and now and then an
// int that leaves the words or an error, before or after its prints.
func randomPrintFunc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("S = \"s\"\n\ndef f(x, y):\n    a = x\n")
	fmt.Fprintf(&b, "    for i in range(%d):\n", 1+r.IntN(40))
	vals := []string{"a", "i", "x", "y", "a & 0xff", "i * y", "a > y", "i == 3", "not a", "S", "\"t\"", "a % 7 < 3", "a + i"}
	val := func() string { return vals[r.IntN(len(vals))] }
	for n := 1 + r.IntN(4); n > 0; n-- {
		switch r.IntN(9) {
		case 7:
			fmt.Fprintf(&b, "        emit(%q, %s, op=%q)\n", []string{"a", "b"}[r.IntN(2)], val(), []string{"append", "union", "max"}[r.IntN(3)])
		case 0:
			fmt.Fprintf(&b, "        print(%s, %s, sep=%q)\n", val(), val(), []string{"", ", ", "-"}[r.IntN(3)])
		case 1:
			fmt.Fprintf(&b, "        print(\"%%d:%%x %%s\" %% (i, a & 0xffff, %s))\n", val())
		case 2:
			fmt.Fprintf(&b, "        if %s:\n            print(%s, end=%q)\n", val(), val(), []string{"", ";", "\n", "!\n"}[r.IntN(4)])
		case 3:
			fmt.Fprintf(&b, "        a = a * %d + i\n", 1+r.IntN(1<<20))
		case 4:
			fmt.Fprintf(&b, "        a = (a ^ (a >> %d)) & 0xffffffffff\n", 1+r.IntN(20))
		case 5:
			b.WriteString("        if i == y:\n            a = a // (x - y)\n")
		case 6:
			b.WriteString("        print(i)\n")
		default:
			fmt.Fprintf(&b, "        a -= %d\n", r.IntN(5))
		}
	}
	b.WriteString("    return a\n")
	return b.String()
}

// TestNativePrintRandom: random printing functions (randomPrintFunc)
// print, through the fork, exactly what the interpreter prints, on calls
// whose code succeeds and calls it gives back.
func TestNativePrintRandom(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	r := rand.New(rand.NewPCG(7, 11))
	n := 40
	if testscale.Long() {
		n = 400
	}
	args := [][2]uint64{{0, 0}, {1, 2}, {5, 3}, {1 << 40, 7}, {3, 3}, {17, 0}, {1<<64 - 1, 1}, {2, 9}}
	coded := 0
	for k := 0; k < n; k++ {
		src := randomPrintFunc(r)
		calls := func(call func(string, ...starlark.Value) string) {
			for _, a := range args {
				call("f", starlark.MakeUint64(a[0]), starlark.MakeUint64(a[1]))
			}
		}
		want, wantOut, _ := printRun(t, src, true, calls)
		got, gotOut, stats := printRun(t, src, false, calls)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("f%v: %s; the interpreter gives %s\n%s", args[i], got[i], want[i], src)
			}
		}
		if gotOut != wantOut {
			t.Fatalf("the output differs from the interpreter's: %s\n%s", firstDiff(gotOut, wantOut), src)
		}
		for _, f := range stats.Funcs() {
			if f.Code > 0 {
				coded++
			}
			if f.Refused != "" {
				t.Logf("refused: %s", f.Refused)
			}
		}
	}
	t.Logf("%d of %d functions ran as code", coded, n)
	if coded < n/2 {
		t.Errorf("%d of %d functions ran as code", coded, n)
	}
}

// TestPrintReplay: the account of printed lines skips, after a failed
// run, the lines it wrote, each checked; a line that is not the one
// expected ends the replay, and an account with nothing to replay and no
// run is empty.
func TestPrintReplay(t *testing.T) {
	var rp printReplay
	p0 := rp.start()
	for i := range 3 {
		if rp.skip(fmt.Sprint("line ", i), "\n") {
			t.Fatalf("line %d skipped during the run", i)
		}
		rp.wrote(fmt.Sprint("line ", i), "\n")
	}
	rp.end(p0, true)
	if rp.pos != 0 || rp.lines != 3 {
		t.Fatalf("after the failed run: pos %d, lines %d; want 0, 3", rp.pos, rp.lines)
	}
	// The rerun: a nested run that replays one line and fails rewinds to
	// it.
	p1 := rp.start()
	if !rp.skip("line 0", "\n") {
		t.Fatal("line 0 not skipped")
	}
	rp.end(p1, true)
	for i := range 2 {
		if !rp.skip(fmt.Sprint("line ", i), "\n") {
			t.Fatalf("line %d not skipped in the rerun", i)
		}
	}
	// Not the line expected: the replay ends, and the line is printed.
	if rp.skip("other", "\n") {
		t.Fatal("a line not written was skipped")
	}
	if rp.pos != 0 || rp.lines != 0 || len(rp.hashes) != 0 || rp.runs != 0 {
		t.Errorf("after the replay: %+v, want an empty account", rp)
	}
	if rp.skip("line 2", "\n") {
		t.Error("a line skipped after the replay ended")
	}
	// A run that succeeds leaves nothing to replay.
	p2 := rp.start()
	rp.wrote("x", "\n")
	rp.end(p2, false)
	if rp.pos != 0 || rp.lines != 0 || rp.skip("x", "\n") {
		t.Errorf("after a successful run: %+v", rp)
	}
}
