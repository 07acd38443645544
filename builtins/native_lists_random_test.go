package builtins

import (
	"context"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// TestNativeRandomListOps: random functions of randfunc.ListOps give, as code
// and through the fork's hook, the interpreter's answer or its error on
// every pair of edge ints.
func TestNativeRandomListOps(t *testing.T) {
	needAMD64(t)
	n, forked := 120, 8
	if testscale.Short() {
		n, forked = 40, 4
	}
	sum, refused := edgeSweep(t, 0, n, forked, 0x115705, randfunc.ListOps)
	t.Logf("%d functions (%d refused): %d calls as code, %d calls through the fork as code", n, refused, sum.coded, sum.forkCoded)
	if refused > n/10 || sum.coded < 20*n || sum.forkCoded == 0 && starlarkfork.InUse() {
		t.Errorf("%d calls as code, %d through the fork, %d functions refused: the test tests little", sum.coded, sum.forkCoded, refused)
	}
}

// TestNativeListOpsErrors: calls of functions using the list, tuple and
// set constructs that fail, after many calls run as code, leave what the
// interpreter leaves: the output, the globals, the error and its
// traceback.
func TestNativeListOpsErrors(t *testing.T) {
	requireLoops(t)
	head := `
def dm(a, b):
    return a // b, a % b

def f(n, dv):
    st = [n % 5]
    k = 0
    while st:
        x = st.pop()
        k += 1
        if x > 0:
            st.append(x - 1)
    q = [(n, 1)]
    a, b = q.pop()
    d = {}
    d[(a, b)] = k
    d.setdefault((b, a), 2)
    xs = sorted([v * 3 % 7 for v in range(n % 9)])
    qq, rr = dm(n, dv)
    return xs[-1] + len(d) + max([1, 2]) + sum(xs[1:]) + qq + rr + d[(a, b)]

t = 0
for i in range(1, 2000):
    if i % 9:
        t += f(i, 1 + i % 3)
print(t)
`
	for _, tail := range []string{
		"print(f(9, 2))\n",           // xs[-1] of an empty list
		"print(f(3, 0))\n",           // dm divides by zero
		"print(f(1, 5) + f(2, 7))\n", // (no error)
		"def g(n):\n    xs = [n]\n    xs.pop()\n    return xs.pop()\n\nfor i in range(5):\n    t += g(i)\n", // pop from an empty list
		"def h(n):\n    m = {}\n    m[(n, n)] = 1\n    return m[(n, n)]\n\nprint(h(5), h(1 << 40))\n",       // a key past 32 bits goes back
	} {
		src := head + tail
		diffLoops(t, src, false)
		// f ran as code.
		stats := NewNativeStats()
		thread := &starlark.Thread{Name: "lists", Print: func(*starlark.Thread, string) {}}
		SetEnv(thread, Env{Sources: testSources{"loops.star": src}, Context: context.Background(), NativeStats: stats})
		starlark.ExecFileOptions(dialect.FileOptions(), thread, "loops.star", src, Predeclared())
		coded := false
		for _, fn := range stats.Funcs() {
			if fn.Name == "f" {
				coded = fn.Refused == "" && fn.Code > 500
			}
		}
		if !coded {
			t.Errorf("f did not run as code: %+v\n%s", stats.Funcs(), src)
		}
	}
}
