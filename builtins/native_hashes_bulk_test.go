package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// hashBulkScript fills its module's dict and set, and one passed to it,
// with many entries a call (the write-back makes room for them at once,
// where the fork offers it): removals among the old entries and the new,
// values set again, re-added keys, a clear.
const hashBulkScript = `
G = {1: 0}
S = set([5])

def fill(x, y, d):
    m = x * 7 + 13
    k = y
    for i in range(x):
        k = (k * 40503 + 12345) % m
        if k % 11 == 3 and k in G:
            G.pop(k)
            S.discard(k)
        else:
            G[k] = i
            S.add(k * 3)
        d[k % 97 + i] = k
    if y % 7 == 6:
        G.clear()
        S.clear()
        for i in range(x // 2):
            G[(i * 31 + y) % m] = i
            S.add(i)
    return len(G) * 1000 + len(S)
`

// TestNativeHashBulk: calls that add hundreds or thousands of entries to
// their module's dict and set, and to a dict passed to them, leave them as
// the interpreter does (entries, values, order), call after call; on a
// dict being iterated the call is given back and fails as interpreted.
func TestNativeHashBulk(t *testing.T) {
	needAMD64(t)
	rounds := 40
	if testscale.Short() {
		rounds = 12
	}
	code, thread := globalsModule(t, hashBulkScript)
	plain, _ := globalsModule(t, hashBulkScript)
	cd, pd := starlark.NewDict(0), starlark.NewDict(0)
	nf, _, err := compileNative(thread, code["fill"].(*starlark.Function), starlark.Tuple{starlark.MakeInt(3), starlark.MakeInt(1), cd}, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	<-nf.pc.Ready()
	if nf.pc.Err() != nil {
		t.Fatal(nf.pc.Err())
	}
	r := rand.New(rand.NewPCG(7, 11))
	coded := 0
	for round := range rounds {
		x, y := r.IntN(3000), r.IntN(1000)
		if round%5 == 4 {
			cd, pd = starlark.NewDict(0), starlark.NewDict(0) // a fresh dict passed
		}
		args := func(d *starlark.Dict) starlark.Tuple {
			return starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(y), d}
		}
		got, ok := nf.call(thread, args(cd))
		if ok {
			coded++
		} else if got, err = starlark.Call(thread, code["fill"], args(cd), nil); err != nil {
			t.Fatal(err)
		}
		want, err := starlark.Call(thread, plain["fill"], args(pd), nil)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("round %d: fill(%d, %d)", round, x, y)
		if got.String() != want.String() {
			t.Fatalf("%s = %v (as code: %v); %v interpreted", what, got, ok, want)
		}
		for _, g := range []string{"G", "S"} {
			if c, p := starlark.Len(code[g]), starlark.Len(plain[g]); c != p {
				t.Fatalf("%s: len(%s) = %d (as code: %v); %d interpreted", what, g, c, ok, p)
			}
			if c, p := code[g].String(), plain[g].String(); c != p {
				t.Fatalf("%s: %s = %.200s... (as code: %v); %.200s... interpreted", what, g, c, ok, p)
			}
		}
		if c, p := cd.String(), pd.String(); c != p {
			t.Fatalf("%s: the dict passed = %.200s... (as code: %v); %.200s... interpreted", what, c, ok, p)
		}
	}
	if coded < rounds/2 {
		t.Errorf("%d of %d calls ran as code: the test tests little", coded, rounds)
	}

	// G being iterated: the call is given back, G untouched, and the
	// interpreter's error stands.
	g := code["G"].(*starlark.Dict)
	before := g.String()
	iter := g.Iterate()
	defer iter.Done()
	if v, ok := nf.call(thread, starlark.Tuple{starlark.MakeInt(500), starlark.MakeInt(3), cd}); ok {
		t.Fatalf("fill(500, 3) = %v as code on a dict being iterated", v)
	}
	if after := g.String(); after != before {
		t.Fatalf("a call given back changed G: %.200s... to %.200s...", before, after)
	}
	if _, err := starlark.Call(thread, code["fill"], starlark.Tuple{starlark.MakeInt(500), starlark.MakeInt(3), cd}, nil); err == nil || !strings.Contains(err.Error(), "during iteration") {
		t.Errorf("fill(500, 3) interpreted on G being iterated: %v; want the iteration's error", err)
	}
}

// hashPopScript removes the last entries of its module's dict and set,
// and of one passed to it (an entry the code drops rather than flags),
// in every order against the entries it was given: those the call added,
// the last of those it was given, the same key added again with another
// value, another key after it, a removal among them first.
const hashPopScript = `
G = {1: 10, 2: 20, 3: 30}
S = set([1, 2, 3])

def back(row, n):
    if row == n:
        return 1
    count = 0
    for c in range(n):
        if c + 200 in S:
            continue
        S.add(c + 200)
        G[c + 100] = row
        count += back(row + 1, n)
        G.pop(c + 100)
        S.remove(c + 200)
    return count

def f(x, y, d):
    k = 0
    first = 0
    seen = 0
    for key in G:
        k = key
        if seen == 0:
            first = key
            seen = 1
    if y == 0:
        G.pop(k)
        S.discard(k)
    elif y == 1:
        G.pop(k)
        G[k] = x
    elif y == 2:
        G.pop(k)
        G[k + x + 1] = x
        S.add(k + x + 1)
    elif y == 3:
        G.pop(first)
        G.pop(k, 0)
        G[x + 50] = 1
    elif y == 4:
        d[x] = 1
        d.pop(x)
        d[x + 1] = 2
    elif y == 5:
        d.clear()
    t = 0
    for e in S:
        t = t * 7 + e
    for key, v in G.items():
        t = (t * 31 + key * 3 + v) % 1000000007
    return t * 100 + back(0, x % 5 + 1) + len(d)
`

// TestNativeHashPopLast: removals of a table's last entry (dropped, not
// flagged: the entries one fewer) leave the module's dict and set, and one
// passed, as the interpreter does, whichever entries they drop.
func TestNativeHashPopLast(t *testing.T) {
	needAMD64(t)
	code, thread := globalsModule(t, hashPopScript)
	plain, _ := globalsModule(t, hashPopScript)
	cd, pd := starlark.NewDict(0), starlark.NewDict(0)
	for _, d := range []*starlark.Dict{cd, pd} {
		for k := range 4 {
			d.SetKey(starlark.MakeInt(k), starlark.MakeInt(k*k))
		}
	}
	nf, _, err := compileNative(thread, code["f"].(*starlark.Function), starlark.Tuple{starlark.MakeInt(3), starlark.MakeInt(1), cd}, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	<-nf.pc.Ready()
	if nf.pc.Err() != nil {
		t.Fatal(nf.pc.Err())
	}
	r := rand.New(rand.NewPCG(3, 5))
	coded := 0
	for round := range 60 {
		x, y := r.IntN(40), r.IntN(7)
		args := func(d *starlark.Dict) starlark.Tuple {
			return starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(y), d}
		}
		want, perr := starlark.Call(thread, plain["f"], args(pd), nil)
		got, ok := nf.call(thread, args(cd))
		if ok {
			coded++
		} else {
			got, err = starlark.Call(thread, code["f"], args(cd), nil)
		}
		what := fmt.Sprintf("round %d: f(%d, %d)", round, x, y)
		if ok && perr != nil {
			t.Fatalf("%s = %v as code; the interpreter fails: %v", what, got, perr)
		}
		if !ok && (err == nil) != (perr == nil) {
			t.Fatalf("%s: %v, %v; want %v, %v", what, got, err, want, perr)
		}
		if perr == nil && got.String() != want.String() {
			t.Fatalf("%s = %v (as code: %v); %v interpreted", what, got, ok, want)
		}
		for _, g := range []string{"G", "S"} {
			if c, p := code[g].String(), plain[g].String(); c != p || starlark.Len(code[g]) != starlark.Len(plain[g]) {
				t.Fatalf("%s: %s = %v (as code: %v); %v interpreted", what, g, c, ok, p)
			}
		}
		if c, p := cd.String(), pd.String(); c != p || cd.Len() != pd.Len() {
			t.Fatalf("%s: the dict passed = %v (as code: %v); %v interpreted", what, c, ok, p)
		}
	}
	if coded < 30 {
		t.Errorf("%d of 60 calls ran as code: the test tests little", coded)
	}
}
