package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// hashCases are plain functions f(x, y) on local sets and dicts of ints:
// membership, insertion, growth past the first slots, lookups that fail,
// iteration in insertion order, and writes while a loop runs over one.
var hashCases = []string{
	// A visited set: the walk x -> x * 3 + 1 mod y until it repeats.
	`def f(x, y):
    seen = set()
    m = y % 1000 + 1
    x = x % m
    steps = 0
    while x not in seen:
        seen.add(x)
        x = (x * 3 + 1) % m
        steps += 1
    return steps * 1000 + len(seen)`,
	// A memo table in a loop, d.get with a default, d[k] += v.
	`def f(x, y):
    d = {}
    n = x % 300
    for i in range(n):
        k = (i * 7 + y) % 37
        d[k] = d.get(k, 0) + i
    s = 0
    for k, v in d.items():
        s = s * 31 + k * 1000 + v
        s = s % 1000000007
    return s`,
	// d[k] of a missing key fails as in Starlark.
	`def f(x, y):
    d = dict()
    for i in range(x % 10):
        d[i] = i * i
    return d[y % 12]`,
	// d[k] op= v.
	`def f(x, y):
    d = {}
    for i in range(20):
        d[i % 5] = 0
    for i in range(x % 50):
        d[i % 5] += i * y
    t = 0
    for k in d:
        t = t * 7 + d[k]
    for v in d.values():
        t += v
    return t % 1000000007`,
	// Writing a set while looping over it fails as in Starlark.
	`def f(x, y):
    s = set()
    for i in range(x % 4):
        s.add(i)
    c = 0
    for e in s:
        c += e
        if e == y % 5:
            s.add(e + 100)
    return c`,
	// Growth: many keys, then membership of others; clear.
	`def f(x, y):
    s = set()
    for i in range(x % 3000):
        s.add(i * 2654435761 % 1000003)
    c = 0
    for i in range(200):
        if (i * 7919 + y) % 1000003 in s:
            c += 1
    n = len(s)
    s.clear()
    s.add(y)
    return c * 1000000 + n * 10 + len(s)`,
	// A dict literal, whose key given twice is Starlark's error.
	`def f(x, y):
    d = {1: x % 100, y % 4: 7, 5: y}
    t = 0
    for k, v in d.items():
        t = t * 1000 + k * 10 + v
    return t % 1000000007`,
	// Churn: adds and removals past many rebuilds, removals that shift
	// the runs of full slots back, order after removals and re-adds.
	`def f(x, y):
    s = set()
    d = {}
    for i in range(x % 3000):
        k = (i * 40503 + y) % 1021
        if k in s:
            s.remove(k)
            d.pop(k)
        else:
            s.add(k)
            d[k] = i
        s.discard((k * 7) % 1021)
    t = len(s) * 7 + len(d)
    for e in s:
        t = (t * 31 + e) % 1000000007
    for k, v in d.items():
        t = (t * 37 + k * 3 + v) % 1000000007
    return t`,
	// A set cleared, or added to, where it may not be assigned yet.
	`def f(x, y):
    if x > 5:
        s = set()
        d = {}
    if y > 50:
        s.clear()
    else:
        d[x] = y
    return 1`,
	// Sets and a dict passed to a helper that recurses: a backtracking
	// search (queens on an x % 7 + 1 board) that adds and removes, and a
	// memo dict passed down.
	`def place(row, n, cols, d1, d2):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if c in cols or row + c in d1 or row + n - c in d2:
            continue
        cols.add(c)
        d1.add(row + c)
        d2.add(row + n - c)
        count += place(row + 1, n, cols, d1, d2)
        cols.remove(c)
        d1.remove(row + c)
        d2.remove(row + n - c)
    return count

def paths(a, b, memo):
    if a == 0 or b == 0:
        return 1
    k = a * 64 + b
    if k in memo:
        return memo[k]
    r = (paths(a - 1, b, memo) + paths(a, b - 1, memo)) % 1000003
    memo[k] = r
    return r

def f(x, y):
    cols = set()
    d1 = set()
    d2 = set()
    memo = {}
    q = 0
    for i in range(2):
        q = q * 100 + place(0, x % 6 + 1 + i, cols, d1, d2)
    return q * 1000000 + paths(x % 40, y % 40, memo) + len(cols) + len(memo)`,
	// Keys that share their low bits or their high bits (multiples of
	// large powers of two, which a slot taken from the product's bits
	// spreads or not), removed in an order other than their insertion's:
	// the backward shifting of a run, the run wrapping past the last slot.
	`def f(x, y):
    s = set()
    d = {}
    n = x % 700
    for i in range(n):
        k = ((i * 5 + y) % 97) << (40 + i % 17) | (i % 3)
        if k in s:
            s.remove(k)
            d[k] = d.get(k, 0) + 1
        else:
            s.add(k)
            d[k] = i
        if i % 7 == 3 and len(s) > 0:
            j = ((i * 3 + y) % 97) << (40 + (i + 5) % 17)
            if j in s:
                s.remove(j)
    c = 0
    for i in range(400):
        k = ((i * 11 + y) % 97) << (40 + i % 17) | (i % 3)
        if k in s:
            c += 1 + d.get(k, 0) % 13
    t = 0
    for e in s:
        t = (t * 31 + e % 1000003) % 1000000007
    return c * 1000000 + len(s) * 1000 + len(d) + t`,
	// A set in an inlined helper, by reference; insertion order of a set.
	`def mark(s, v):
    if v in s:
        return 0
    s.add(v)
    return 1

def f(x, y):
    s = set()
    t = 0
    for i in range(x % 100):
        t += mark(s, (i * y) % 17)
    o = 0
    for e in s:
        o = o * 17 + e
    return t * 1000000007 + o % 1000000007`,
}

// TestNativeHashes: sets and dicts of ints made in a plain function run as
// code with the interpreter's answers and errors, directly and through the
// fork.
func TestNativeHashes(t *testing.T) {
	needAMD64(t)
	var args []starlark.Tuple
	for _, x := range []int{0, 1, 2, 3, 7, 45, 100, 299, 1000, 2999, 12345} {
		for _, y := range []int{0, 1, 3, 4, 11, 999, 100003} {
			args = append(args, starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(y)})
		}
	}
	for i, src := range hashCases {
		res, err := edgeDiff(src, args, true, true)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.wrong != "" {
			t.Errorf("case %d: %s\n%s", i, res.wrong, src)
		}
		if res.refused || res.coded == 0 {
			t.Errorf("case %d: no call as code (refused: %v)\n%s", i, res.refused, src)
		}
		t.Logf("case %d: %d of %d calls as code, %d through the fork", i, res.coded, len(args), res.forkCoded)
	}
}

// hashGlobalsScript holds plain functions that read and write their
// module's sets and dicts: a memo table of a recursion, a visited set, a
// count by key, and a write that fails after it.
const hashGlobalsScript = `
memo = {}
seen = set()
counts = {}
other = {"a": 1}

def fib(n):
    if n < 2:
        return n
    if n in memo:
        return memo[n]
    r = fib(n - 1) + fib(n - 2)
    memo[n] = r % 1000000007
    return memo[n]

def collatz(n):
    if n == 1:
        return 0
    if n in memo:
        return memo[n]
    if n % 2 == 0:
        r = collatz(n // 2) + 1
    else:
        r = collatz(3 * n + 1) + 1
    memo[n] = r
    return r

def visit(x, m):
    c = 0
    while x not in seen:
        seen.add(x)
        x = (x * x + 1) % m
        c += 1
    return c * 100000 + len(seen)

def tally(n):
    for i in range(n):
        k = (i * i) % 7
        counts[k] = counts.get(k, 0) + 1
    t = 0
    for k, v in counts.items():
        t = t * 10 + k + v
    return t % 1000000007

def then_fails(n):
    counts[n] = 5
    seen.add(n)
    return 100 // (n - 2)

def reads_other(k):
    return len(other) + k
`

// TestNativeHashGlobals: functions that read and write their module's sets
// and dicts run as code and leave them as the interpreter does (entries,
// values and order), call after call; a run that fails, or a set or dict
// the code cannot take, gives the call back with each as it was.
func TestNativeHashGlobals(t *testing.T) {
	needAMD64(t)
	code, thread := globalsModule(t, hashGlobalsScript)
	plain, _ := globalsModule(t, hashGlobalsScript)
	globals := []string{"memo", "seen", "counts", "other"}
	same := func(what string) {
		t.Helper()
		for _, name := range globals {
			if code[name].String() != plain[name].String() {
				t.Fatalf("%s: %s = %v as code, %v interpreted", what, name, code[name], plain[name])
			}
		}
	}
	compiled := func(name string, args starlark.Tuple) *nativeFunc {
		t.Helper()
		nf, _, err := compileNative(thread, code[name].(*starlark.Function), args, nil, nil, false)
		if err != nil {
			t.Fatalf("%s does not compile: %v", name, err)
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatal(nf.pc.Err())
		}
		return nf
	}
	agree := func(name string, nf *nativeFunc, args starlark.Tuple, coded bool) {
		t.Helper()
		got, ok := nf.call(thread, args)
		if ok != coded {
			t.Fatalf("%s%v: as code %v; want %v", name, args, ok, coded)
		}
		if !ok {
			got, _ = starlark.Call(thread, code[name], args, nil)
		}
		want, err := starlark.Call(thread, plain[name], args, nil)
		if err != nil && ok {
			t.Fatalf("%s%v: %v interpreted", name, args, err)
		}
		if err == nil && (got == nil || got.String() != want.String()) {
			t.Errorf("%s%v = %v as code, %v interpreted", name, args, got, want)
		}
		same(fmt.Sprintf("%s%v", name, args))
	}
	fib := compiled("fib", ints(5))
	for _, n := range []int{10, 5, 30, 90, 200} {
		agree("fib", fib, ints(n), true)
	}
	visit := compiled("visit", ints(3, 1000))
	for _, x := range []int{3, 4, 500, 3} {
		agree("visit", visit, ints(x, 1009), true)
	}
	// Past the first slots of the table, and then some.
	agree("visit", visit, ints(17, 70001), true)
	tally := compiled("tally", ints(3))
	agree("tally", tally, ints(10), true)
	agree("tally", tally, ints(100), true)
	// A failure after writes leaves every set and dict as it was.
	thenFails := compiled("then_fails", ints(3))
	agree("then_fails", thenFails, ints(3), true)
	agree("then_fails", thenFails, ints(2), false)
	// A dict of other keys than ints: the function stays interpreted.
	if _, _, err := compileNative(thread, code["reads_other"].(*starlark.Function), ints(1), nil, nil, false); err == nil {
		t.Errorf("reads_other compiles; want a refusal of other's keys")
	}
	// A dict that now holds a string: the call is given back.
	memo := code["memo"].(*starlark.Dict)
	plainMemo := plain["memo"].(*starlark.Dict)
	memo.SetKey(starlark.MakeInt(1000), starlark.String("x"))
	plainMemo.SetKey(starlark.MakeInt(1000), starlark.String("x"))
	agree("fib", fib, ints(10), false)
	memo.Delete(starlark.MakeInt(1000))
	plainMemo.Delete(starlark.MakeInt(1000))
	// Frozen: the call is given back, and the interpreter's error stands.
	collatz := compiled("collatz", ints(6))
	for _, n := range []int{27, 97, 871} {
		agree("collatz", collatz, ints(n), true)
	}
	memo.Freeze()
	if _, ok := collatz.call(thread, ints(1000)); ok {
		t.Errorf("collatz(1000) ran as code on a frozen memo")
	}
}

// randomHashFunc writes a random module whose plain function f(x, y) uses
// sets and dicts of ints as code runs them: its own (s = set(), d = {}),
// made fresh again, and the module's (G, S); adds, stores, updates that
// may miss (a KeyError), membership, get with a default, len, clear,
// loops over them in order, writes inside such a loop (an error in
// Starlark), growth past the first slots, keys past 2^63 and below 0.
func randomHashFunc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("G = {}\nS = set()\n\n")
	b.WriteString("def rec(a, b, k):\n    if k == 0:\n        return len(a) + len(b)\n    a.add(k % 11)\n    if k % 3 == 0:\n        a.discard(k % 5)\n")
	b.WriteString("    b[k % 7] = k\n    return rec(a, b, k - 1) + b.get(k % 4, 1)\n\n")
	b.WriteString("def f(x, y):\n    s = set()\n    d = {}\n    t = 0\n")
	word := func(loopVar string) string {
		opts := []string{"x", "y", "x % 7", "y % 5", "t % 11", "len(s)", "len(d)", "len(G)", fmt.Sprintf("%d", r.IntN(20)),
			"(x + y) % 13", "d.get(x % 7, 2)", "G.get(y % 5, 0)", "(x + y) % 13", "y % 5"}
		if r.IntN(4) == 0 {
			opts = append(opts, "18446744073709551615", "(y - 3)")
		}
		if loopVar != "" {
			opts = append(opts, loopVar, loopVar+" % 4")
		}
		return opts[r.IntN(len(opts))]
	}
	tables := []string{"s", "d", "G", "S"}
	dicts := []string{"d", "G"}
	var stmt func(ind string, depth int, loopVar string, iterating string)
	stmt = func(ind string, depth int, loopVar string, iterating string) {
		set := []string{"s", "S"}[r.IntN(2)]
		dict := dicts[r.IntN(2)]
		switch k := r.IntN(19); {
		case k == 18 && iterating == "":
			fmt.Fprintf(&b, "%st += rec(%s, %s, %s %% 20)\n", ind, set, dict, word(loopVar))
		case k == 0:
			fmt.Fprintf(&b, "%s%s.add(%s)\n", ind, set, word(loopVar))
		case k == 1:
			fmt.Fprintf(&b, "%s%s[%s] = %s\n", ind, dict, word(loopVar), word(loopVar))
		case k == 2:
			fmt.Fprintf(&b, "%s%s[%s] += %s\n", ind, dict, word(loopVar), word(loopVar))
		case k == 3:
			fmt.Fprintf(&b, "%sif %s in %s:\n", ind, word(loopVar), tables[r.IntN(4)])
			stmt(ind+"    ", depth+1, loopVar, iterating)
		case k == 4:
			fmt.Fprintf(&b, "%sif %s not in %s:\n", ind, word(loopVar), tables[r.IntN(4)])
			stmt(ind+"    ", depth+1, loopVar, iterating)
		case k == 5 && depth < 2:
			v := fmt.Sprintf("k%d", depth)
			tb := tables[r.IntN(4)]
			fmt.Fprintf(&b, "%sfor %s in %s:\n", ind, v, tb)
			fmt.Fprintf(&b, "%s    t = (t * 3 + %s) %% 1000003\n", ind, v)
			if r.IntN(3) == 0 {
				stmt(ind+"    ", depth+1, v, tb)
			}
		case k == 6 && depth < 2:
			fmt.Fprintf(&b, "%sfor k%d, v%d in %s.items():\n%s    t = (t * 5 + k%d + v%d) %% 1000003\n", ind, depth, depth, dict, ind, depth, depth)
		case k == 7:
			fmt.Fprintf(&b, "%st += %s[%s]\n", ind, dict, word(loopVar))
		case k == 8 && r.IntN(3) == 0:
			fmt.Fprintf(&b, "%s%s.clear()\n", ind, tables[r.IntN(4)])
		case k == 9 && iterating == "" && r.IntN(2) == 0:
			fmt.Fprintf(&b, "%ss = set()\n", ind)
		case k == 10 && depth == 0:
			fmt.Fprintf(&b, "%sfor i in range(%s %% 150):\n%s    %s.add((i * 2654435761 + y) %% 100003)\n%s    d[i %% 40] = i\n",
				ind, word(loopVar), ind, set, ind)
		case k == 11:
			fmt.Fprintf(&b, "%st += len(%s) + %s.get(%s, %s)\n", ind, tables[r.IntN(4)], dict, word(loopVar), word(loopVar))
		case k == 12:
			fmt.Fprintf(&b, "%s%s.discard(%s)\n", ind, set, word(loopVar))
		case k == 13:
			fmt.Fprintf(&b, "%st += len(%s) + %s.pop(%s, %s) + len(%s)\n", ind, dict, dict, word(loopVar), word(loopVar), dict)
		case k == 14 && r.IntN(3) == 0:
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "%s%s.remove(%s)\n", ind, set, word(loopVar))
			} else {
				fmt.Fprintf(&b, "%st += %s.pop(%s)\n", ind, dict, word(loopVar))
			}
		case k == 15 && depth == 0:
			fmt.Fprintf(&b, "%sfor i in range(%s %% 90):\n%s    %s.add(i %% 37)\n%s    %s.discard((i * 7) %% 37)\n%s    %s[i %% 29] = i\n%s    %s.pop((i * 5) %% 29, 0)\n",
				ind, word(loopVar), ind, set, ind, set, ind, dict, ind, dict)
		default:
			fmt.Fprintf(&b, "%st = (t + %s) %% 1000003\n", ind, word(loopVar))
		}
	}
	for n := 4 + r.IntN(8); n > 0; n-- {
		stmt("    ", 0, "", "")
	}
	b.WriteString("    return t * 1000 + len(s) + len(d)\n")
	return b.String()
}

// TestNativeRandomHashes: random plain functions on sets and dicts give,
// as code, the interpreter's result and leave the module's sets and dicts
// as it does (entries, values, order), call after call; where the
// interpreter fails, the code gives the call back, leaving them as they
// were.
func TestNativeRandomHashes(t *testing.T) {
	needAMD64(t)
	n := 300
	if testscale.Short() {
		n = 80
	}
	coded, given, refused, wasted := 0, 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5e75))
		src := randomHashFunc(r)
		code, thread := globalsModule(t, src)
		plain, _ := globalsModule(t, src)
		nf, _, err := compileNative(thread, code["f"].(*starlark.Function), ints(1, 2), nil, nil, false)
		if err != nil {
			refused++
			t.Logf("seed %d refused: %v", seed, err)
			continue
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatalf("%v\n%s", nf.pc.Err(), src)
		}
		in := rand.New(rand.NewPCG(seed, 1))
		for k := range 8 {
			var x starlark.Value = starlark.MakeInt(in.IntN(300))
			if in.IntN(5) == 0 {
				x = starlark.MakeUint64(in.Uint64())
			}
			args := starlark.Tuple{x, starlark.MakeInt(in.IntN(30))}
			before := code["G"].String() + code["S"].String()
			got, ok := nf.call(thread, args)
			if ok {
				coded++
			} else {
				given++
				if after := code["G"].String() + code["S"].String(); after != before {
					t.Fatalf("seed %d input %d: the code gave the call back but changed G, S from %s to %s\n%s", seed, k, before, after, src)
				}
				got, err = starlark.Call(thread, code["f"], args, nil)
			}
			want, perr := starlark.Call(thread, plain["f"], args, nil)
			if ok && perr != nil {
				t.Fatalf("seed %d input %d: %v as code; the interpreter fails: %v\n%s", seed, k, got, perr, src)
			}
			if !ok && perr == nil {
				wasted++
			}
			if !ok && (err == nil) != (perr == nil) {
				t.Fatalf("seed %d input %d: %v, %v; want %v, %v\n%s", seed, k, got, err, want, perr, src)
			}
			if perr == nil && got.String() != want.String() {
				t.Fatalf("seed %d input %d: f%v = %v (as code: %v); %v interpreted\n%s", seed, k, args, got, ok, want, src)
			}
			for _, g := range []string{"G", "S"} {
				if code[g].String() != plain[g].String() {
					t.Fatalf("seed %d input %d: %s = %v (as code: %v); %v interpreted\n%s", seed, k, g, code[g], ok, plain[g], src)
				}
			}
		}
	}
	t.Logf("%d functions: %d calls as code, %d given back (%d where the interpreter succeeds), %d functions refused", n, coded, given, wasted, refused)
	if coded < 2*n {
		t.Errorf("%d calls as code, %d given back, %d refused: the test tests little", coded, given, refused)
	}
}

// TestNativeHashHelpers: a set passed to a helper that does not recurse
// is the caller's (a module's too), and a helper that rebinds its
// parameter to a new set stays interpreted (the caller's set is not the
// new one in Starlark).
func TestNativeHashHelpers(t *testing.T) {
	needAMD64(t)
	src := `
S = set()

def mark(s, v):
    if v in s:
        return 0
    s.add(v)
    return 1

def f(x, y):
    c = 0
    for i in range(x % 50):
        c += mark(S, (i * y) % 23)
    return c * 1000 + len(S)
`
	code, thread := globalsModule(t, src)
	plain, _ := globalsModule(t, src)
	nf, _, err := compileNative(thread, code["f"].(*starlark.Function), ints(10, 3), nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	<-nf.pc.Ready()
	for _, in := range [][2]int{{10, 3}, {49, 5}, {7, 11}} {
		got, ok := nf.call(thread, ints(in[0], in[1]))
		want, err := starlark.Call(thread, plain["f"], ints(in[0], in[1]), nil)
		if !ok || err != nil || got.String() != want.String() || code["S"].String() != plain["S"].String() {
			t.Errorf("f%v = %v (as code: %v), S = %v; want %v, S = %v (%v)", in, got, ok, code["S"], want, plain["S"], err)
		}
	}
	rebinds := `
def clear(s):
    s = set()
    s.add(1)
    return len(s)

def g(x, y):
    s = set()
    s.add(x)
    s.add(y)
    return clear(s) * 10 + len(s)
`
	code, thread = globalsModule(t, rebinds)
	if _, _, err := compileNative(thread, code["g"].(*starlark.Function), ints(1, 2), nil, nil, false); err == nil || !strings.Contains(err.Error(), "does not rebind it") {
		t.Errorf("g compiles (%v); want the rebinding refused", err)
	}
}

// TestNativeHashFrozen: a function that writes a set of its module that is
// frozen (a loaded module's) gives its calls back, which fail in the
// interpreter as Starlark says, and after a few is given up.
func TestNativeHashFrozen(t *testing.T) {
	needAMD64(t)
	code, thread := globalsModule(t, "S = set()\n\ndef f(x, y):\n    for i in range(x):\n        S.add(i + y)\n    return len(S)\n")
	nf, _, err := compileNative(thread, code["f"].(*starlark.Function), ints(2, 3), nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	<-nf.pc.Ready()
	if v, ok := nf.call(thread, ints(2, 3)); !ok || v.String() != "2" {
		t.Fatalf("f(2, 3) = %v (as code: %v); want 2", v, ok)
	}
	code["S"].Freeze()
	for i := range 20 {
		if v, ok := nf.call(thread, ints(2, 7)); ok {
			t.Fatalf("call %d: f(2, 7) = %v as code on a frozen set", i, v)
		}
	}
	if !nf.off.Load() {
		t.Errorf("f is not given up after 20 calls on a frozen set")
	}
	if _, err := starlark.Call(thread, code["f"], ints(2, 7), nil); err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Errorf("f(2, 7) interpreted: %v; want the frozen set's error", err)
	}
	if code["S"].String() != "set([3, 4])" {
		t.Errorf("S = %v; want set([3, 4])", code["S"])
	}
}

// TestNativeHashBools: a bool is no key or value a set or dict holds as
// code (Starlark's True is not the int 1 there): such a function stays
// interpreted.
func TestNativeHashBools(t *testing.T) {
	needAMD64(t)
	for _, src := range []string{
		"def f(x, y):\n    s = set()\n    s.add(x > 3)\n    return len(s)\n",
		"def f(x, y):\n    d = {}\n    d[0] = x > 3\n    if d[0]:\n        return 1\n    return 2\n",
		"def f(x, y):\n    d = {1: 2}\n    return d.get(1, x > y) + 1\n",
		"def f(x, y):\n    d = {1: 2}\n    return (x > y) in d\n",
	} {
		code, thread := globalsModule(t, src)
		if _, _, err := compileNative(thread, code["f"].(*starlark.Function), ints(5, 3), nil, nil, false); err == nil {
			t.Errorf("compiles; want it interpreted\n%s", src)
		}
	}
}

// TestNativeHashParams: sets and dicts passed as arguments run as code and
// are left as the interpreter leaves them (entries, values, order); a call
// passing another kind of value, or one set twice, is interpreted.
func TestNativeHashParams(t *testing.T) {
	needAMD64(t)
	src := `
def place(row, n, cols, d1, d2):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if c in cols or row + c in d1 or row + n - c in d2:
            continue
        cols.add(c)
        d1.add(row + c)
        d2.add(row + n - c)
        count += place(row + 1, n, cols, d1, d2)
        cols.remove(c)
        d1.remove(row + c)
        d2.remove(row + n - c)
    return count

def tally(d, s, n):
    for i in range(n):
        k = (i * i) % 11
        d[k] = d.get(k, 0) + i
        if k % 2 == 0:
            s.add(k)
        else:
            s.discard(k + 1)
    return len(d) * 100 + len(s)
`
	code, thread := globalsModule(t, src)
	plain, _ := globalsModule(t, src)
	compiled := func(name string, args starlark.Tuple) *nativeFunc {
		t.Helper()
		nf, _, err := compileNative(thread, code[name].(*starlark.Function), args, nil, nil, false)
		if err != nil {
			t.Fatalf("%s does not compile: %v", name, err)
		}
		<-nf.pc.Ready()
		return nf
	}
	set := func(xs ...int) *starlark.Set {
		s := starlark.NewSet(len(xs))
		for _, x := range xs {
			s.Insert(starlark.MakeInt(x))
		}
		return s
	}
	dict := func(kv ...int) *starlark.Dict {
		d := starlark.NewDict(len(kv))
		for i := 0; i+1 < len(kv); i += 2 {
			d.SetKey(starlark.MakeInt(kv[i]), starlark.MakeInt(kv[i+1]))
		}
		return d
	}
	place := compiled("place", starlark.Tuple{starlark.MakeInt(0), starlark.MakeInt(4), set(), set(), set()})
	for n := 1; n <= 8; n++ {
		args := starlark.Tuple{starlark.MakeInt(0), starlark.MakeInt(n), set(), set(), set()}
		got, ok := place.call(thread, args)
		want, err := starlark.Call(thread, plain["place"], starlark.Tuple{starlark.MakeInt(0), starlark.MakeInt(n), set(), set(), set()}, nil)
		if !ok || err != nil || got.String() != want.String() || args[2].String() != "set([])" {
			t.Errorf("place(0, %d) = %v (as code: %v), cols %v; want %v (%v)", n, got, ok, args[2], want, err)
		}
	}
	tally := compiled("tally", starlark.Tuple{dict(), set(), starlark.MakeInt(3)})
	for _, c := range []struct {
		d    []int
		s    []int
		n    int
		code bool
	}{
		{nil, nil, 5, true},
		{[]int{3, 1, 100, 2}, []int{7, 4, 9}, 40, true},
		{[]int{5, 5}, []int{1}, 0, true},
	} {
		cd, cs, pd, ps := dict(c.d...), set(c.s...), dict(c.d...), set(c.s...)
		got, ok := tally.call(thread, starlark.Tuple{cd, cs, starlark.MakeInt(c.n)})
		want, err := starlark.Call(thread, plain["tally"], starlark.Tuple{pd, ps, starlark.MakeInt(c.n)}, nil)
		if ok != c.code || err != nil || got.String() != want.String() || cd.String() != pd.String() || cs.String() != ps.String() {
			t.Errorf("tally(%v, %v, %d) = %v (as code: %v) leaving %v, %v; want %v leaving %v, %v (%v)", dict(c.d...), set(c.s...), c.n, got, ok, cd, cs, want, pd, ps, err)
		}
	}
	// Another kind, the same set twice, a string key: the interpreter.
	s := set(1)
	for _, args := range []starlark.Tuple{
		{set(), set(), starlark.MakeInt(3)},
		{dict(), starlark.NewList(nil), starlark.MakeInt(3)},
	} {
		if v, ok := tally.call(thread, args); ok {
			t.Errorf("tally%v = %v as code; want the interpreter", args, v)
		}
	}
	d := dict(1, 2)
	d.SetKey(starlark.String("x"), starlark.MakeInt(1))
	if v, ok := tally.call(thread, starlark.Tuple{d, set(), starlark.MakeInt(3)}); ok {
		t.Errorf("tally with a string key = %v as code; want the interpreter", v)
	}
	if v, ok := place.call(thread, starlark.Tuple{starlark.MakeInt(0), starlark.MakeInt(4), s, s, set()}); ok {
		t.Errorf("place with one set twice = %v as code; want the interpreter", v)
	}
	_ = code
}
