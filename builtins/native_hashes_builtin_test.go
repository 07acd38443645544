package builtins

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeHashBuiltinArg: a local set or dict passed to a builtin
// (len, max of its len) keeps its state in variables, and one also given
// to a helper that recurses keeps it in a header array; every call's
// answer is the interpreter's.
func TestNativeHashBuiltinArg(t *testing.T) {
	needAMD64(t)
	src := `
def walk(s, v, depth):
    if depth == 0 or v in s:
        return 0
    s.add(v)
    return 1 + walk(s, (v * 7 + 3) % 31, depth - 1)

def f(x, y):
    seen = set()
    seen.add(x)
    for i in range(y % 40):
        u = (x * i + y) % 97
        if u not in seen:
            seen.add(u)
        if i % 5 == 4:
            seen.discard((u * 3) % 97)
    return len(seen) * 1000 + max(len(seen), y % 7)

def g(x, y):
    seen = set()
    n = walk(seen, x % 31, y % 20)
    return n * 1000 + len(seen)

def h(x, y):
    d = {}
    for i in range(y % 30):
        d[(i * x) % 17] = i
        if i % 4 == 3:
            d.pop((i * y) % 17, 0)
    t = 0
    for k in d:
        t = t * 3 + k * 7 + d[k]
    return len(d) * 100000 + t % 99991
`
	code, thread := globalsModule(t, src)
	plain, _ := globalsModule(t, src)
	for _, name := range []string{"f", "g", "h"} {
		nf, _, err := compileNative(thread, code[name].(*starlark.Function), ints(10, 3), nil, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		<-nf.pc.Ready()
		for x := 0; x < 12; x++ {
			for _, y := range []int{0, 1, 7, 19, 38, 39, 57, 1234} {
				got, ok := nf.call(thread, ints(x*13+1, y))
				want, err := starlark.Call(thread, plain[name], ints(x*13+1, y), nil)
				if !ok || err != nil || got.String() != want.String() {
					t.Errorf("%s(%d, %d) = %v (as code: %v); want %v (%v)", name, x*13+1, y, got, ok, want, err)
				}
			}
		}
	}
}

// TestNativeHashNotInAdd: `if k not in s: s.add(k)` (the add taking the
// condition's probe) and its near forms, which probe again, give the
// interpreter's answers: the add first in the body or after another
// statement, a key changed between, a set a loop runs over (Starlark's
// error, the call given back), and a module's set.
func TestNativeHashNotInAdd(t *testing.T) {
	needAMD64(t)
	src := `
G = set()

def f(x, y):
    s = set()
    t = 0
    for i in range(y % 60):
        u = (x * i + y) % 37
        if u not in s:
            s.add(u)
            t += u
        else:
            t += 1000
        if (u + 1) not in s:
            s.add(u + 1)
        v = u * 3 % 41
        if v not in s:
            t += 7
            s.add(v)
        w = u + 2
        if w not in s:
            w = w + 1
            s.add(w)
        if u not in G:
            G.add(u)
        if i % 9 == 8:
            s.discard(u)
    return t * 1000 + len(s) * 10 + len(G) % 10

def g(x, y):
    s = set()
    s.add(x % 5)
    s.add(y % 5)
    for k in s:
        if k + 1 not in s:
            s.add(k + 1)
    return len(s)
`
	code, thread := globalsModule(t, src)
	plain, _ := globalsModule(t, src)
	for _, name := range []string{"f", "g"} {
		nf, _, err := compileNative(thread, code[name].(*starlark.Function), ints(10, 3), nil, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		<-nf.pc.Ready()
		for x := 0; x < 10; x++ {
			for _, y := range []int{0, 1, 7, 19, 38, 59, 1234} {
				args := ints(x*13+1, y)
				got, ok := nf.call(thread, args)
				if !ok {
					got, err = starlark.Call(thread, code[name], args, nil)
				}
				want, perr := starlark.Call(thread, plain[name], args, nil)
				if (err == nil) != (perr == nil) || perr == nil && got.String() != want.String() {
					t.Errorf("%s%v = %v, %v (as code: %v); want %v, %v", name, args, got, err, ok, want, perr)
				}
				if code["G"].String() != plain["G"].String() {
					t.Fatalf("%s%v: G = %v; want %v", name, args, code["G"], plain["G"])
				}
			}
		}
	}
}
