package builtins

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse/native"
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
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
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
