package builtins

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
)

// TestNativeHashGrowCap: a local set grows up to its most entries as
// code, and one more gives the call back, which the interpreter runs; a
// module's set grows past a local's most to its own, where the growth
// stops at its most slots. Each answer, and the module's set, is the
// interpreter's.
func TestNativeHashGrowCap(t *testing.T) {
	needAMD64(t)
	src := `
S = set()

def f(n, y):
    s = set()
    for i in range(n):
        s.add(i * 2654435761 + y)
    t = 0
    for i in range(0, n, 997):
        if i * 2654435761 + y in s:
            t += 1
    return len(s) * 1000 + t

def g(n, y):
    for i in range(n):
        S.add(i * 40503 + y)
    return len(S)
`
	code, thread := globalsModule(t, src)
	plain, _ := globalsModule(t, src)
	for _, c := range []struct {
		name string
		n    int
		ok   bool
	}{
		{"f", compile.HashCap, true},
		{"f", compile.HashCap + 1, false},
		{"f", 1000, true},
		{"g", compile.HashCap + 5000, true},
	} {
		nf, _, err := compileNative(thread, code[c.name].(*starlark.Function), ints(10, 3), nil, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		<-nf.pc.Ready()
		args := ints(c.n, 7)
		got, ok := nf.call(thread, args)
		if !ok {
			got, err = starlark.Call(thread, code[c.name], args, nil)
			if err != nil {
				t.Fatalf("%s(%d): %v", c.name, c.n, err)
			}
		}
		want, err := starlark.Call(thread, plain[c.name], args, nil)
		if err != nil {
			t.Fatalf("%s(%d) interpreted: %v", c.name, c.n, err)
		}
		if ok != c.ok || got.String() != want.String() {
			t.Errorf("%s(%d) = %v (as code: %v); want %v (as code: %v)", c.name, c.n, got, ok, want, c.ok)
		}
		if code["S"].String() != plain["S"].String() {
			t.Errorf("%s(%d): S differs from the interpreter's (%d entries, want %d)", c.name, c.n,
				code["S"].(*starlark.Set).Len(), plain["S"].(*starlark.Set).Len())
		}
	}
}
