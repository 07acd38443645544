package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// nativeFuncs runs src with the hooks, waiting for each function's code,
// and returns the report's functions by name.
func nativeFuncs(t *testing.T, src string) map[string]NativeFunc {
	t.Helper()
	thread := &starlark.Thread{Name: "boollists", Print: func(*starlark.Thread, string) {}}
	stats := NewNativeStats()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	SetEnv(thread, Env{Sources: testSources{"loops.star": src}, Context: ctx, NativeStats: stats, waitForCode: true})
	starlark.ExecFileOptions(dialect.FileOptions(), thread, "loops.star", src, Predeclared())
	funcs := map[string]NativeFunc{}
	for _, f := range stats.Funcs() {
		if !f.Loop {
			funcs[f.Name] = f
		}
	}
	return funcs
}

// diffRandomFuncs runs n scripts (short at the short scale) that script
// draws from rng, each with its code against the interpreter (diffLoops),
// and wants at least half of them to run their function f as code.
func diffRandomFuncs(t *testing.T, n, short int, rng *rand.Rand, script func(*rand.Rand) string) {
	t.Helper()
	requireLoops(t)
	if testscale.Short() {
		n = short
	}
	coded := 0
	for range n {
		src := script(rng)
		diffLoops(t, src, false)
		if f := nativeFuncs(t, src)["f"]; f.Refused == "" && f.Code > 0 {
			coded++
		} else {
			t.Logf("f ran interpreted (%s, %v):\n%s", f.Refused, f.Reasons, src)
		}
	}
	if coded < n/2 {
		t.Errorf("%d of %d random functions ran as code: the test tests little", coded, n)
	}
}

// boolListsScript is search code on lists of bools: a sieve, a reachability
// search with a visited list, and bools read back, compared and returned.
const boolListsScript = `
def sieve(n):
    is_p = [True] * (n + 1)
    is_p[0] = False
    is_p[1] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
        i += 1
    c = 0
    for k in range(len(is_p)):
        if is_p[k]:
            c += k
    return c

def reach(n, step):
    visited = [False] * n
    stack = [0]
    visited[0] = True
    cnt = 0
    while stack:
        v = stack.pop()
        cnt += 1
        for w in ((v + step) % n, (v * 2) % n):
            if not visited[w]:
                visited[w] = True
                stack.append(w)
    return cnt

def flags(x):
    f = [False] * 8
    for i in range(8):
        f[i] = (x >> i) & 1 == 1
    g = [True] * 8
    g[x % 8] = not f[x % 8]
    same = f[1] == g[1]
    return f[x % 8] if same else g[(x >> 3) % 8] != f[0]

res = []
for i in range(1, 1500):
    res.append(sieve(2 + i % 200))
    res.append(reach(1 + i % 97, i % 13))
    res.append(flags(i * 7919))
`

// TestNativeBoolLists: functions on lists of bools run as code and leave
// what the interpreter leaves (the bools they return, True and False, not
// 1 and 0), and their errors are the interpreter's.
func TestNativeBoolLists(t *testing.T) {
	requireLoops(t)
	for _, tail := range []string{
		"",
		"print(sieve(-3))\n", // [True] * -2 is empty: is_p[0] is out of range
		"def h(n):\n    a = [False] * n\n    a[n - 1] = True\n    return a[n - 1] + 1\n\nprint(h(3))\n",         // a bool used as an int
		"def h(n):\n    a = [False] * n\n    a[2] = True\n    return a\n\nprint(h(3), h(4))\n",                  // the list returned
		"def h(n):\n    a = [False] * n\n    a[1] = n\n    return a[1]\n\nprint([h(i) for i in range(3, 9)])\n", // an int stored
		"def h(n):\n    a = [True] * 4\n    a[n] = False\n    return a[0] == True\n\nprint([h(i % 5) for i in range(1200)])\n",
		"def bool(x):\n    return x + 5\n\ndef h(n):\n    a = [False] * 4\n    a[1] = bool(n)\n    return a[1] == True\n\nprint([h(i % 5) for i in range(1200)][-3:])\n", // a module's bool()
	} {
		src := boolListsScript + tail
		diffLoops(t, src, false)
	}
	funcs := nativeFuncs(t, boolListsScript)
	for _, name := range []string{"sieve", "reach", "flags"} {
		if f := funcs[name]; f.Refused != "" || f.Code < 1000 || f.Interpreted > 0 {
			t.Errorf("%s did not run as code: %+v", name, f)
		}
	}
}

// TestNativeRandomBoolLists: random functions that store bools in lists
// of bools and read them back give the interpreter's answers.
func TestNativeRandomBoolLists(t *testing.T) {
	diffRandomFuncs(t, 60, 20, rand.New(rand.NewPCG(0xb0011575, 7)), randomBoolListFunc)
}

// randomBoolListFunc returns a script that calls a random function f(x,
// y) on lists of bools many times and keeps its results.
func randomBoolListFunc(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	idx := func() string {
		return pick("i % n", "(x + i) % n", "y % n", "(x * i + y) % n", "0", "n - 1")
	}
	boolVal := func() string {
		return pick("True", "False", "x > y", "(x >> i) & 1 == 1", "not a["+idx()+"]",
			"a["+idx()+"] == b["+idx()+"]", "b["+idx()+"]", "bool(x & i)", "a["+idx()+"] != True")
	}
	var b strings.Builder
	b.WriteString("def f(x, y):\n")
	fmt.Fprintf(&b, "    n = %s\n", pick("8", "1 + x % 13", "3 + y % 5"))
	fmt.Fprintf(&b, "    a = [%s] * n\n", pick("True", "False"))
	fmt.Fprintf(&b, "    b = [%s] * %s\n", pick("True", "False"), pick("n", "(n + 1)"))
	b.WriteString("    t = 0\n")
	fmt.Fprintf(&b, "    for i in range(%s):\n", pick("n", "2 * n", "x % 11"))
	for s := 0; s < 2+rng.IntN(4); s++ {
		switch rng.IntN(6) {
		case 0, 1:
			fmt.Fprintf(&b, "        a[%s] = %s\n", idx(), boolVal())
		case 2:
			fmt.Fprintf(&b, "        b[%s] = %s\n", idx(), boolVal())
		case 3:
			fmt.Fprintf(&b, "        if %s:\n            t += i + 1\n", boolVal())
		case 4:
			fmt.Fprintf(&b, "        t = (t * 3 + (1 if %s else 2)) %% 1000003\n", boolVal())
		case 5:
			fmt.Fprintf(&b, "        if not a[%s]:\n            t ^= x\n", idx())
		}
	}
	switch rng.IntN(4) {
	case 0:
		fmt.Fprintf(&b, "    return a[%s]\n", pick("x % n", "y % len(a)", "0"))
	case 1:
		fmt.Fprintf(&b, "    return a[x %% n] == b[y %% n] or t > 5\n")
	default:
		b.WriteString("    return t\n")
	}
	b.WriteString("\nres = []\nfor j in range(1200):\n    res.append(f(j * 2654435761 % 1000, j % 37))\n")
	return b.String()
}
