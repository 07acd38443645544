package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// runStarCtx runs src as runStar does, under ctx.
func runStarCtx(ctx context.Context, src string, workers int) (starlark.StringDict, error) {
	thread := &starlark.Thread{Name: "fuse"}
	SetEnv(thread, Env{Sources: testSources{"fuse.star": src}, Workers: workers, Context: ctx})
	go func() {
		<-ctx.Done()
		thread.Cancel("cancelled")
	}()
	opts := dialect.FileOptions()
	return starlark.ExecFileOptions(opts, thread, "fuse.star", src, Predeclared())
}

// TestFusedSearchAgrees fuses random functions with loops, tables, scratch
// arrays and helpers and checks every method on 1, 2 and 3 workers against
// the plain function.
func TestFusedSearchAgrees(t *testing.T) {
	n := 40
	if testscale.Short() {
		n = 10
	}
	checked := 0
	for seed := 0; seed < n; seed++ {
		src := randfunc.Source(rand.New(rand.NewPCG(uint64(seed), 7)))
		check := `
xs = [x * 0x9e3779b97f4a7c15 & U64 if x % 3 else x for x in range(300)]
ys = [(x * 7 + 3) % 64 for x in range(300)]
plain = []
ok = True
for i in range(300):
    plain.append(f(xs[i], ys[i]))
g = fuse(f)
got = list(g.map(words(xs), words(ys)))
nz = [xs[i] for i in range(300) if plain[i]]
res = (got == plain, g.count(words(xs), words(ys)) == len(nz), list(g.filter(words(xs), words(ys))) == nz,
       g.first(words(xs), words(ys)) == (nz + [None])[0])
`
		// Random functions fail on some items on purpose: keep those
		// whose plain function runs on every item of this space.
		plainOnly := src + "\nxs = [x * 0x9e3779b97f4a7c15 & U64 if x % 3 else x for x in range(300)]\nys = [(x * 7 + 3) % 64 for x in range(300)]\n[f(xs[i], ys[i]) for i in range(300)]\n"
		if _, err := runStar(t, plainOnly, 1); err != nil {
			continue
		}
		checked++
		for _, w := range []int{1, 2, 3} {
			g, err := runStar(t, src+check, w)
			if err != nil {
				t.Fatalf("seed %d, %d workers: %v\n%s", seed, w, err, src)
			}
			if got := g["res"].String(); got != "(True, True, True, True)" {
				t.Fatalf("seed %d, %d workers: map, count, filter, first agree: %s\n%s", seed, w, got, src)
			}
		}
	}
	if checked < n/4 {
		t.Errorf("only %d of %d random functions ran on every item", checked, n)
	}
	t.Logf("%d of %d random functions checked", checked, n)
}

// TestFusedSearchStops: a loop that never ends stops when the run is
// cancelled (a timeout, Ctrl-C), on every method, in a call and over a
// space, on several workers.
func TestFusedSearchStops(t *testing.T) {
	src := `
def forever(s):
    n = 0
    while s >= 0:
        n += 1
    return n
f = fuse(forever)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
g = fuse(lambda x: fib(x))
`
	for _, call := range []string{"f(1)", "f.count(range(10))", "f.first(range(1 << 40))", "f.map(range(1000))", "g(200)", "g.sum(range(190, 200))"} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		_, err := runStarCtx(ctx, src+call+"\n", 2)
		cancel()
		elapsed := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("%s: %v; want cancelled", call, err)
		}
		// Generous: the bound is on stopping at all, not on the latency
		// (bench/fuse_search.sh measures that).
		if elapsed > 5*time.Second {
			t.Errorf("%s: stopped %v after a 100ms timeout", call, elapsed)
		}
	}
}

// TestFusedFirstEndsTheRun: first over a huge range returns at the first
// hit without visiting the rest.
func TestFusedFirstEndsTheRun(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		g, err := runStar(t, `
def hit(i):
    n = 0
    for j in range(100):
        n += j
    return i == 1000000 + n - 4950
r = fuse(hit).first(range(1 << 40))
`, w)
		if err != nil {
			t.Fatal(err)
		}
		if got := g["r"].String(); got != "1000000" {
			t.Errorf("%d workers: first = %s, want 1000000", w, got)
		}
	}
}

// TestFusedScratchBudget: the memory budget counts scratch arrays and
// tables, once per worker.
func TestFusedScratchBudget(t *testing.T) {
	src := `
def f(s):
    a = [0] * (1 << 20)
    b = [0] * (1 << 20)
    a[s] = 1
    return a[s] + b[s]
`
	for _, tc := range []struct {
		budget int64
		ok     bool
	}{{1 << 30, true}, {16 << 20, false}} {
		thread := &starlark.Thread{Name: "fuse"}
		SetEnv(thread, Env{Sources: testSources{"fuse.star": src + "g = fuse(f)\n"}, Workers: 2, Context: context.Background(), MaxMemory: tc.budget})
		opts := dialect.FileOptions()
		_, err := starlark.ExecFileOptions(opts, thread, "fuse.star", src+"g = fuse(f)\n", Predeclared())
		if (err == nil) != tc.ok {
			t.Errorf("budget %d: %v; want ok %v", tc.budget, err, tc.ok)
		}
	}
}

// TestFusedRecursion: recursive helpers fuse and agree with the plain
// function on every method and number of workers; runaway recursion is an
// error naming the chain and the item; exponential and deep recursion stop
// when the run is cancelled.
func TestFusedRecursion(t *testing.T) {
	src := `
def walk(x, d):
    if d == 0:
        return x & 3
    moves = [0] * 4
    n = gen(x, moves)
    s = 0
    for j in range(n):
        s += walk((x >> 2) ^ moves[j], d - 1)
    return s + n
def gen(x, moves):
    n = 0
    for b in bits(x & 0xf):
        moves[n] = b + 1
        n += 1
    return n
def f(x):
    return walk(x, x % 5)
xs = [x * 0x9e3779b97f4a7c15 & U64 for x in range(200)]
plain = [f(x) for x in xs]
g = fuse(f)
res = (list(g.map(words(xs))) == plain, g.sum(words(xs)) == sum(plain), g.count(words(xs)) == len([p for p in plain if p]))
`
	for _, w := range []int{1, 2} {
		g, err := runStar(t, src, w)
		if err != nil {
			t.Fatal(err)
		}
		if got := g["res"].String(); got != "(True, True, True)" {
			t.Errorf("%d workers: map, sum, count agree: %s", w, got)
		}
	}
	_, err := runStar(t, `
def spin(x):
    return spin(x + 1) + 1
f = fuse(lambda i: spin(i) if i == 3 else i)
f.sum(range(10))
`, 2)
	want := "recursion deeper than 10000 calls (spin -> spin -> ...), for i = 0x3 (position 3 in the space)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("runaway recursion: %v; want %q", err, want)
	}
	for _, call := range []string{"fuse(lambda x: exp(x, 60))(1)", "fuse(lambda x: deep(x, 0))(0)", "fuse(lambda x: exp(x, 60)).sum(range(4))"} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		_, err := runStarCtx(ctx, `
def exp(x, d):
    if d == 0:
        return x & 1
    return exp(x + 1, d - 1) + exp(x ^ 5, d - 1)
def deep(x, d):
    if d == 9000:
        return exp(x, 60)
    return deep(x, d + 1)
`+call+"\n", 2)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("%s: %v; want cancelled", call, err)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("%s: stopped %v after a 100ms timeout", call, elapsed)
		}
	}
}

// TestFuseMessages: errors that once named the wrong thing.
func TestFuseMessages(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"T = [1, 2, 1 << 64]\nfuse(lambda s: T[s])\n", "T[2] = 18446744073709551616 does not fit in a word"},
		{"T = [[1], [2, 1 << 64]]\nfuse(lambda s: T[s][0])\n", "T[1][1] = 18446744073709551616 does not fit in a word"},
		{"def h(x, y = 2):\n    return x + y\nfuse(lambda s: h(s, 3))\n", "h: parameter y has a default value"},
		{"def f(s):\n    return chess.rook_attacks(64, s)\nfuse(f)\n", "chess.rook_attacks: sq = 64 is not a square 0..63"},
		{"X = pow(2, 4000000)\nfuse(lambda s: s + X)\n", "X = 0x8000000000000000... (an int of 4000001 bits) does not fit in 64 bits"},
	} {
		_, err := runStar(t, tc.src, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.src, err, tc.want)
		}
	}
}

// TestFuseCompilingStops: compiling a fused function polls the run's
// context, so a cancelled run does not go on compiling.
func TestFuseCompilingStops(t *testing.T) {
	var b strings.Builder
	b.WriteString("def f(x):\n    s = x\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "    s = (s * 3 + %d) & U64\n", i)
	}
	b.WriteString("    return s\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	thread := &starlark.Thread{Name: "fuse"}
	SetEnv(thread, Env{Sources: testSources{"fuse.star": b.String()}, Workers: 1, Context: ctx})
	opts := dialect.FileOptions()
	_, err := starlark.ExecFileOptions(opts, thread, "fuse.star", b.String()+"g = fuse(f)\n", Predeclared())
	if err == nil || !strings.Contains(err.Error(), "compiling stopped: context canceled") {
		t.Errorf("fuse in a cancelled run: %v; want compiling stopped", err)
	}
}

// TestFusedWorkersReused: a fused value's workers serve its later runs;
// a run over an array after one over a range (which the code computes
// itself) and a run after a stopped one give the plain function's answers.
func TestFusedWorkersReused(t *testing.T) {
	src := `
def f(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n
def r(x, d):
    return x & 7 if d == 0 else r(x >> 1, d - 1) + r(x ^ d, d - 1)
g = fuse(f)
a = list(g.map(range(5000, 9000)))
b = list(g.map(words([x * 7 for x in range(4000)])))
c = g.first(range(1 << 20, 1 << 40))
d = list(g.map(range(5000, 9000)))
h = fuse(lambda x: r(x, x % 5))
e = [list(h.map(words([x * 3 for x in range(300)]))) for _ in range(3)]
res = (a == [f(x) for x in range(5000, 9000)], b == [f(x * 7) for x in range(4000)], c == 1 << 20, a == d,
       e[0] == [r(x * 3, x * 3 % 5) for x in range(300)] and e[1] == e[0] and e[2] == e[0])
`
	for _, w := range []int{1, 2} {
		g, err := runStar(t, src, w)
		if err != nil {
			t.Fatal(err)
		}
		if got := g["res"].String(); got != "(True, True, True, True, True)" {
			t.Errorf("%d workers: %s", w, got)
		}
	}
}

// TestFilterLimitOrError: a filter past its limit and an item that fails
// are reported as one worker going through the items in order would find
// them, whichever workers reach first: the limit where more than limit
// items pass before the failing one, else the failing item.
func TestFilterLimitOrError(t *testing.T) {
	// The odd items pass; the items from 0x3000 to 0x30ff fail: 6144 pass
	// before the first failing one from 0, 128 from 0x2f00.
	def := "def f(s):\n    d = 1000 // ((s >> 8) ^ 0x30)\n    return (d | 1) & s & 1\n"
	for _, tc := range []struct {
		call, want string
	}{
		{"f.filter(range(1 << 16), limit = 100)", "more than limit = 100 items"},
		{"f.filter(range(1 << 16), limit = 0x17ff)", "more than limit = 6143 items"},
		{"f.filter(range(1 << 16), limit = 0x1800)", "division by zero"},
		{"f.filter(range(0x2f00, 1 << 16), limit = 128)", "division by zero"},
		{"f.filter(range(0x2f00, 1 << 16), limit = 127)", "more than limit = 127 items"},
	} {
		for _, w := range []int{1, 2, 3} {
			for round := 0; round < 5; round++ {
				_, err := runStar(t, def+"f = fuse(f)\nr = "+tc.call+"\n", w)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%s on %d workers: %v; want %q", tc.call, w, err, tc.want)
				}
			}
		}
	}
}

// TestFuseUnassignedLocal: a fused function that reads a local assigned
// only on some paths fails the items that take the others, as Starlark
// does, naming the local and the item (it read 0 there before).
func TestFuseUnassignedLocal(t *testing.T) {
	src := "def g(s):\n    if s & 1:\n        z = s\n    return z\nf = fuse(g)\nodd = f.count(range(1, 9, 2))\n"
	g, err := runStar(t, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := g["odd"].String(); got != "4" {
		t.Errorf("count over odd items = %s, want 4", got)
	}
	_, err = runStar(t, src+"all = f.count(range(4))\n", 2)
	if err == nil || !strings.Contains(err.Error(), "4:12: local variable z referenced before assignment, for s = 0x0 (position 0 in the space)") {
		t.Errorf("count over range(4): got %v, want the item 0 to fail", err)
	}
}

// TestFusedSourceColumnsInRunes: the source a fused value keeps (its
// help text) is cut at go.starlark.net's columns, which count runes, so
// text of several bytes a rune before it on the line moves nothing.
func TestFusedSourceColumnsInRunes(t *testing.T) {
	for _, prefix := range []string{"", "s = \"ééé\"; ", "s = \"日本語の文字\"; "} {
		globals, err := runStar(t, prefix+"f = fuse(lambda x: x + 1)\n", 1)
		if err != nil {
			t.Fatal(err)
		}
		help := globals["f"].(*fusedValue).HelpText()
		if !strings.HasSuffix(help, ":\nlambda x: x + 1") {
			t.Errorf("%q: help text %q; want it to end with the lambda's source", prefix, help)
		}
	}
}
