package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// globalsScript holds plain functions that write the lists of their module,
// as Python programmers keep module state: a generator's seed, a lock word
// and a count, the sequences found.
const globalsScript = `
MASK64 = (1 << 64) - 1
pow2 = [1 << i for i in range(64)]
seed = [0x9E3779B97F4A7C15]
state = [1 << 32, 0]
found = []
acc = [0, 0, 0]
signed = [-1, 3]
T = [acc]

def rand64():
    x = seed[0]
    x ^= (x << 13) & MASK64
    x ^= x >> 7
    x ^= (x << 17) & MASK64
    seed[0] = x
    return x

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

def squares(n):
    for i in range(n):
        found.append(i * i)

def bump(k):
    acc[k % 3] += k

def bumps(n):
    for i in range(n):
        bump(i)
    return acc[0]

def with_list(a, n):
    a[0] += n
    acc[1] += n
    return a[0]

def then_fails(n):
    acc[0] += 1
    found.append(n)
    return 100 // (n - 7)

def flip(x):
    if signed[0] == -1:
        signed[0] = x
    else:
        signed[0] = -1
    return signed[1] + x

def reads_t(n):
    acc[2] = n
    return T[0][2]

weights = [3, 1, 4]

def walk(n):
    if n == 0:
        return 0
    s = 0
    for w in weights:
        s += w * n
    return walk(n - 1) + s

def down(n):
    if n == 0:
        return 0
    r = down(n - 1)
    acc[n % 3] += 1
    return r

def loop_down(n):
    s = 0
    for v in acc:
        s += v + down(n)
    return s
`

// globalsModule runs src without freezing its globals (as a module is while
// its top level runs), on a thread whose calls are interpreted.
func globalsModule(t testing.TB, src string) (starlark.StringDict, *starlark.Thread) {
	t.Helper()
	thread := &starlark.Thread{Name: "globals", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"globals.star": src}, Context: context.Background(), Interpreted: true})
	_, prog, err := starlark.SourceProgramOptions(dialect.FileOptions(), "globals.star", src, Predeclared().Has)
	if err != nil {
		t.Fatal(err)
	}
	g, err := prog.Init(thread, Predeclared())
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return g, thread
}

// TestNativeGlobals: functions that write their module's lists run as code
// and leave the lists as the interpreter does, call after call; where the
// code cannot (a list of another length, frozen, being iterated, passed as
// well, read as a table's row, an append past the log's capacity, a
// failure after a write), the call is given back with every list as it
// was.
func TestNativeGlobals(t *testing.T) {
	needAMD64(t)
	code, thread := globalsModule(t, globalsScript)
	plain, _ := globalsModule(t, globalsScript)
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
	globals := []string{"seed", "state", "found", "acc", "signed"}
	same := func(what string) {
		t.Helper()
		for _, name := range globals {
			if code[name].String() != plain[name].String() {
				t.Fatalf("%s: %s = %v as code, %v interpreted", what, name, code[name], plain[name])
			}
		}
	}
	// agree runs name as code in one module and interpreted in the other.
	agree := func(name string, nf *nativeFunc, args starlark.Tuple) {
		t.Helper()
		got, ok := nf.call(thread, args)
		if !ok {
			t.Fatalf("%s%v: the code gave the call back", name, args)
		}
		want, err := starlark.Call(thread, plain[name], args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || got.Type() != want.Type() {
			t.Errorf("%s%v = %v (%s) as code, %v (%s) interpreted", name, args, got, got.Type(), want, want.Type())
		}
		same(fmt.Sprintf("%s%v", name, args))
	}
	gaveBack := func(what, name string, nf *nativeFunc, args starlark.Tuple) {
		t.Helper()
		var before []string
		for _, g := range globals {
			before = append(before, code[g].String())
		}
		if v, ok := nf.call(thread, args); ok {
			t.Errorf("%s: %v as code; want the interpreter", what, v)
		}
		for i, g := range globals {
			if code[g].String() != before[i] {
				t.Errorf("%s: the code changed %s from %s to %v", what, g, before[i], code[g])
			}
		}
	}

	// A recursion that writes a list while a loop runs over it is an
	// error in Starlark: the function stays interpreted, which says so.
	if _, _, err := compileNative(thread, code["loop_down"].(*starlark.Function), nil, nil, nil, false); err == nil || !strings.Contains(err.Error(), "a loop over acc is running") {
		t.Errorf("loop_down compiles (%v); want the loop's refusal", err)
	}
	if _, err := starlark.Call(thread, plain["loop_down"], ints(2), nil); err == nil {
		t.Errorf("loop_down(2) interpreted: no error")
	}

	rand64 := compiled("rand64", nil)
	for range 5 {
		agree("rand64", rand64, nil)
	}
	find := compiled("find", ints(0, 58, 0, 6, 300))
	if len(find.pc.Globals) != 2 || find.pc.Globals[0].Name != "state" || !find.pc.Globals[1].Log {
		t.Errorf("find's globals: %+v; want state, then found appended to", find.pc.Globals)
	}
	agree("find", find, ints(0, 58, 0, 6, 300))
	agree("find", find, ints(0, 58, 0, 6, 300)) // stops at once: the count is at the limit
	agree("find", find, ints(0, 58, 0, 6, 400)) // goes on from the count (the lock word is back)
	squares := compiled("squares", ints(3))
	agree("squares", squares, ints(10))
	agree("squares", squares, ints(0))
	bumps := compiled("bumps", ints(4))
	agree("bumps", bumps, ints(9))
	flip := compiled("flip", ints(4))
	agree("flip", flip, ints(4)) // -1 becomes 4
	agree("flip", flip, ints(6)) // and -1 again
	withList := compiled("with_list", starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(5)}), starlark.MakeInt(1)})
	a := starlark.NewList([]starlark.Value{starlark.MakeInt(5)})
	if v, ok := withList.call(thread, starlark.Tuple{a, starlark.MakeInt(2)}); !ok || v.String() != "7" || a.String() != "[7]" {
		t.Errorf("with_list([5], 2) = %v (as code: %v), leaving %v; want 7 leaving [7]", v, ok, a)
	}
	if _, err := starlark.Call(thread, plain["with_list"], starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(5)}), starlark.MakeInt(2)}, nil); err != nil {
		t.Fatal(err)
	}
	same("with_list")
	thenFails := compiled("then_fails", ints(10))
	agree("then_fails", thenFails, ints(10))

	// A list only read (looped over), also by a recursion, needs not be
	// mutable: a frozen one runs as code.
	walk := compiled("walk", ints(3))
	if walk.pc.Written[0] {
		t.Errorf("walk's list is taken as written")
	}
	code["weights"].Freeze()
	agree("walk", walk, ints(5))

	gaveBack("a failure after the writes", "then_fails", thenFails, ints(7))
	gaveBack("an append past the log's capacity", "squares", squares, ints(2000))
	gaveBack("a global list passed as well", "with_list", withList, starlark.Tuple{code["acc"], starlark.MakeInt(2)})
	readsT := compiled("reads_t", ints(1))
	gaveBack("a global list that is a table's row", "reads_t", readsT, ints(1))
	it := code["acc"].(*starlark.List).Iterate()
	gaveBack("a global list being iterated", "bumps", bumps, ints(3))
	it.Done()
	agree("bumps", bumps, ints(3))
	acc := code["acc"].(*starlark.List)
	if err := acc.Append(starlark.MakeInt(0)); err != nil {
		t.Fatal(err)
	}
	gaveBack("a global list of another length", "bumps", bumps, ints(3))
	seed := code["seed"].(*starlark.List)
	seed.Freeze()
	gaveBack("a frozen global list", "rand64", rand64, nil)
}

// TestNativeGlobalsThroughTheFork: bench/natural's De Bruijn generator and
// xorshift generator, whose state lives in lists of their module, give
// the interpreter's answers with their calls run as code, also where the
// module's top level changes the lists between calls or binds their names
// to new lists.
func TestNativeGlobalsThroughTheFork(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = globalsScript + `
find(0, 64 - 6, 0, 6, 3000)
first = (state[1], found[0])
state[1] = 0
find(1, 64 - 6, 0, 6, 2000)
second = (state[1], found[1])
old_state, old_found = state, found
state = [1 << 32, 0]
found = []
find(0, 64 - 6, 0, 6, 1000)
third = (state[1], found[0], old_state[1], len(old_found))
draws = [rand64() for _ in range(3000)]
seed[0] = 12345
draws2 = [rand64() for _ in range(3000)]
squares(20)
squares(5)
sums = [bumps(i % 9) for i in range(3000)]
`
	run := func(interpreted bool) (starlark.StringDict, uint64) {
		thread := &starlark.Thread{Name: "fork"}
		SetEnv(thread, Env{Sources: testSources{"fork.star": src}, Context: context.Background(), Interpreted: interpreted, waitForCode: true})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "fork.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g, thread.ExecutionSteps()
	}
	code, codeSteps := run(false)
	plain, plainSteps := run(true)
	for _, name := range []string{"first", "second", "third", "state", "found", "draws", "draws2", "seed", "sums", "acc"} {
		if eq, err := starlark.Equal(code[name], plain[name]); err != nil || !eq {
			t.Errorf("%s = %v with code, %v interpreted", name, code[name], plain[name])
		}
	}
	if codeSteps*4 > plainSteps {
		t.Errorf("%d steps with code, %d interpreted: the code did not run", codeSteps, plainSteps)
	}
}

// randomGlobalsFunc writes a random module whose function f(x) and helpers
// write the module's lists G (4 ints, words or -1) and L (appended to):
// by index, through a helper that bumps G, a recursive helper that writes
// G and appends to L, reads of G, loops over G, and, now and then, a read
// of L, which keeps f interpreted.
func randomGlobalsFunc(r *rand.Rand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "G = [")
	for i := range 4 {
		if i > 0 {
			b.WriteString(", ")
		}
		switch r.IntN(4) {
		case 0:
			b.WriteString("-1")
		case 1:
			fmt.Fprintf(&b, "%d", r.Uint64())
		default:
			fmt.Fprintf(&b, "%d", r.IntN(100))
		}
	}
	b.WriteString("]\nL = []\n\n")
	b.WriteString("def bump(k):\n    G[k % 4] += 1\n\n")
	b.WriteString("def rec(n, x):\n    if n == 0:\n        return x\n    G[n % 4] = x & 1023\n")
	b.WriteString("    if x % 3 == 0:\n        L.append(x)\n    return rec(n - 1, x // 2 + 1)\n\n")
	b.WriteString("def f(x):\n    s = 0\n")
	word := func(loopVar string) string {
		i := r.IntN(4)
		opts := []string{"x", "x % 7", fmt.Sprintf("G[%d]", i), "s", "(x + 3)", fmt.Sprintf("%d", r.IntN(50)),
			fmt.Sprintf("(G[%d] & 255)", i), fmt.Sprintf("(G[%d] ^ x)", i), "(x - 1)"}
		if loopVar != "" {
			opts = append(opts, loopVar, "("+loopVar+" & 7)")
		}
		return opts[r.IntN(len(opts))]
	}
	var stmt func(ind string, depth int, loopVar string, iterating bool)
	stmt = func(ind string, depth int, loopVar string, iterating bool) {
		switch k := r.IntN(12); {
		case k == 0:
			fmt.Fprintf(&b, "%sL.append(%s)\n", ind, word(loopVar))
		case k == 1 && !iterating:
			fmt.Fprintf(&b, "%sG[%d] = %s\n", ind, r.IntN(4), word(loopVar))
		case k == 2 && !iterating:
			fmt.Fprintf(&b, "%sG[%d] %s= %s\n", ind, r.IntN(4), []string{"+", "^", "|"}[r.IntN(3)], word(loopVar))
		case k == 3 && !iterating:
			fmt.Fprintf(&b, "%sbump(%s)\n", ind, word(loopVar))
		case k == 4 && !iterating:
			fmt.Fprintf(&b, "%ss += rec(x %% 6, %s)\n", ind, word(loopVar))
		case k == 5 && depth < 2 && !iterating:
			v := fmt.Sprintf("v%d", depth)
			fmt.Fprintf(&b, "%sfor %s in G:\n", ind, v)
			stmt(ind+"    ", depth+1, v, true)
		case k == 6 && depth < 2:
			v := fmt.Sprintf("i%d", depth)
			fmt.Fprintf(&b, "%sfor %s in range(x %% 4):\n", ind, v)
			stmt(ind+"    ", depth+1, v, iterating)
			stmt(ind+"    ", depth+1, v, iterating)
		case k == 7:
			fmt.Fprintf(&b, "%sif G[%d] == -1:\n", ind, r.IntN(4))
			stmt(ind+"    ", depth+1, loopVar, iterating)
		case k == 8 && r.IntN(8) == 0:
			fmt.Fprintf(&b, "%ss += len(L)\n", ind)
		default:
			fmt.Fprintf(&b, "%ss += %s\n", ind, word(loopVar))
		}
	}
	for n := 3 + r.IntN(6); n > 0; n-- {
		stmt("    ", 0, "", false)
	}
	b.WriteString("    return s\n")
	return b.String()
}

// TestNativeRandomGlobals: random functions that write their module's lists
// give, as code, the interpreter's result and leave its lists, call after
// call; a call the code gives back leaves them as they were, and the
// interpreter then runs it, as the fork does.
func TestNativeRandomGlobals(t *testing.T) {
	needAMD64(t)
	n := 150
	if testscale.Short() {
		n = 40
	}
	coded, given, refused := 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x610b))
		src := randomGlobalsFunc(r)
		code, thread := globalsModule(t, src)
		plain, _ := globalsModule(t, src)
		thread.SetMaxExecutionSteps(1 << 20)
		nf, _, err := compileNative(thread, code["f"].(*starlark.Function), nil, nil, nil, false)
		if err != nil {
			refused++
			continue
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatalf("%v\n%s", nf.pc.Err(), src)
		}
		in := rand.New(rand.NewPCG(seed, 7))
		for k := range 6 {
			x := starlark.Tuple{starlark.MakeUint64(in.Uint64N(1 << uint(1+in.IntN(63))))}
			before := code["G"].String() + code["L"].String()
			got, ok := nf.call(thread, x)
			want, perr := starlark.Call(thread, plain["f"], x, nil)
			if !ok {
				given++
				if after := code["G"].String() + code["L"].String(); after != before {
					t.Fatalf("seed %d input %d: the code gave the call back but changed G, L from %s to %s\n%s", seed, k, before, after, src)
				}
				// The interpreter runs it, as the fork would.
				got, err = starlark.Call(thread, code["f"], x, nil)
				if (err == nil) != (perr == nil) {
					t.Fatalf("seed %d input %d: %v, then %v\n%s", seed, k, err, perr, src)
				}
				if err != nil {
					continue
				}
			} else {
				coded++
				if perr != nil {
					t.Fatalf("seed %d input %d: %v as code; the interpreter fails: %v\n%s", seed, k, got, perr, src)
				}
			}
			if got.String() != want.String() || code["G"].String() != plain["G"].String() || code["L"].String() != plain["L"].String() {
				t.Fatalf("seed %d input %d: %v leaving G = %v, L = %v as code (%v); %v leaving %v, %v interpreted\n%s",
					seed, k, got, code["G"], code["L"], ok, want, plain["G"], plain["L"], src)
			}
		}
	}
	t.Logf("%d functions: %d calls as code, %d given back, %d functions refused", n, coded, given, refused)
	if coded < 2*n {
		t.Errorf("%d calls as code, %d given back, %d refused: the test tests little", coded, given, refused)
	}
}
