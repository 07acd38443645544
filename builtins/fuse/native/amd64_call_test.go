package native_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// TestSelfCallsKeepArrays: a Proc that calls itself passing its own array
// parameters in place enters past their loads and keeps their registers
// across the call; one that passes them swapped, or another array, or
// that is called from elsewhere, passes and saves them as any call does.
// Every engine gives Eval's answers.
func TestSelfCallsKeepArrays(t *testing.T) {
	f := funcOf(t, `
def walk(seen, order, n, k):
    if n == 0:
        return k
    seen[n & 15] += 1
    order[k & 7] = n
    r = walk(seen, order, n - 1, k + 1)
    if n & 3 == 0:
        r += walk(order, seen, n >> 2, k)
    if n & 7 == 5:
        own = [3] * 8
        own[n & 7] = n
        r += walk(own, seen, n >> 3, k + 2) + own[k & 7]
    return r + seen[n & 15] + order[(n + k) & 7]
def f(x, y):
    seen = [0] * 16
    order = [0] * 16
    return walk(seen, order, x & 63, y & 7) + seen[3] * 5 + order[1]
`)
	inputs := [][]uint64{{0, 0}, {1, 2}, {5, 1}, {13, 7}, {40, 3}, {63, 5}, {255, 255}}
	for _, e := range callEngines(t) {
		agreeCountingPolls(t, f, e, inputs)
	}
	if native.Ready(native.AMD64) == nil {
		if _, err := native.CompileWith(f, native.AMD64); err != nil {
			t.Fatalf("the amd64 engine refuses the arrays passed: %v", err)
		}
	}
}

// TestSharedArrayHomes: the addresses and epochs of a Proc's array
// parameters that do not all fit in registers (ten arrays) live in one
// place for a chain of its calls where every call of it from a Proc passes
// them in place: deep and keep call themselves in place, the Func's body
// calls keep with the arrays in two orders, deep and other call each other
// with the arrays swapped, and swap calls itself with them swapped (the
// compiler makes a Proc of each order). Every engine gives Eval's answers.
func TestSharedArrayHomes(t *testing.T) {
	f := funcOf(t, `
def deep(a, b, c, d, e, g, h, k, m, o, n):
    if n == 0:
        return a[1] + b[2] * 3 + c[3] * 5 + d[4] * 7 + e[5] * 11 + g[6] + h[7] + k[0] + m[1] * 13 + o[2] * 17
    a[n & 7] += n
    b[(n + 1) & 7] ^= n
    c[(n + 2) & 7] += a[n & 7]
    h[n & 3] += k[n & 7]
    m[n & 7] += o[(n + 3) & 7] + 1
    r = deep(a, b, c, d, e, g, h, k, m, o, n - 1)
    if n & 3 == 1:
        r += other(o, m, k, h, g, e, d, c, b, a, n >> 1)
    return r + a[n & 7] - c[n & 7] + e[1] + g[2] + h[3] + k[4] + b[5] + d[6]
def other(a, b, c, d, e, g, h, k, m, o, n):
    if n == 0:
        return e[0] + a[1]
    a[0] += 1
    r = other(a, b, c, d, e, g, h, k, m, o, n - 1)
    if n & 1:
        r += deep(b, a, d, c, g, e, k, h, o, m, n >> 1)
    return r + a[0] * 2 + b[0] + c[1] * 3 + d[2] + e[3] * 5 + g[4] + h[5] * 7 + k[6] + m[7] * 11 + o[0] * 13
def swap(a, b, c, d, e, g, h, k, m, o, n):
    if n == 0:
        return a[0] + b[1] * 2
    a[n & 7] += n
    r = swap(b, a, d, c, g, e, k, h, o, m, n - 1)
    return r * 3 + a[0] * 2 + b[0] + c[1] * 3 + d[2] + e[3] * 5 + g[4] + h[5] * 7 + k[6] + m[7] * 11 + o[0] * 13
def keep(a, b, c, d, e, g, h, k, m, o, n):
    if n == 0:
        return a[0] + k[1] * 2
    b[n & 7] += a[(n + 1) & 7]
    r = keep(a, b, c, d, e, g, h, k, m, o, n - 1)
    return r + a[1] + b[2] * 3 + c[3] + d[4] * 5 + e[5] + g[6] * 7 + h[7] + k[0] + m[1] * 3 + o[2] * 5
def f(x, y):
    a = [0] * 8
    b = [1] * 8
    c = [2] * 8
    d = [3] * 8
    e = [4] * 8
    g = [5] * 8
    h = [6] * 8
    k = [7] * 8
    m = [8] * 8
    o = [9] * 8
    s = deep(a, b, c, d, e, g, h, k, m, o, x & 31)
    s += swap(o, m, k, h, g, e, d, c, b, a, y & 15)
    s += keep(a, b, c, d, e, g, h, k, m, o, x & 15) + keep(h, k, m, o, a, b, c, d, e, g, y & 7)
    return s + a[3] + e[6] + m[5] + o[4]
`)
	inputs := [][]uint64{{0, 0}, {1, 2}, {5, 1}, {13, 7}, {31, 15}, {30, 9}, {7, 6}}
	for _, e := range callEngines(t) {
		agreeCountingPolls(t, f, e, inputs)
	}
}

// TestSharedArrayHomesNested: a Proc whose arrays are made in the frame
// of a caller that it calls in turn (the compiler folds p into q, which
// then calls itself with the arrays of its own frame, not in place): the
// arrays of an outer call must come back from the inner ones, so q keeps
// them in its frames. Ten arrays, more than the registers hold. Every
// engine gives Eval's answers.
func TestSharedArrayHomesNested(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "g", "h", "k", "m", "o"}
	all := strings.Join(names, ", ")
	var b strings.Builder
	b.WriteString("def p(n):\n")
	for i, v := range names {
		fmt.Fprintf(&b, "    %s = [%d] * 8\n    %s[n & 7] = n + %d\n", v, i, v, i)
	}
	fmt.Fprintf(&b, "    return q(%s, n)\n", all)
	fmt.Fprintf(&b, "def q(%s, n):\n    if n == 0:\n        return a[0] + o[1]\n    a[n & 7] += 1\n    o[(n + 1) & 7] += 2\n", all)
	fmt.Fprintf(&b, "    r = q(%s, n - 1)\n    if n & 3 == 2:\n        r += p(n >> 1)\n    return r", all)
	for i, v := range names {
		fmt.Fprintf(&b, " + %s[(n + %d) & 7] * %d", v, i, i+1)
	}
	b.WriteString("\ndef f(x, y):\n    return p(x & 15) + p(y & 7) * 3\n")
	f := funcOf(t, b.String())
	inputs := [][]uint64{{0, 0}, {1, 2}, {5, 1}, {13, 7}, {15, 15}, {10, 6}, {6, 3}}
	for _, e := range callEngines(t) {
		agreeCountingPolls(t, f, e, inputs)
	}
}

// TestLeavesReadAfterCalls: a variable or constant operand beside a call
// (count += place(...), a - g(n), a << g(n)) is read after the call, which
// changes none of its caller's variables; the answers, and the failures of
// the checked operations, are Eval's on every engine.
func TestLeavesReadAfterCalls(t *testing.T) {
	f := funcOf(t, `
def g(n):
    if n < 2:
        return n
    return g(n - 1) + (n & 3)
def f(x, y):
    a = x & 0xffff
    b = a - g(y & 15)
    c = g(y & 7) - a
    d = a << g(y & 3)
    e = 7 * g(x & 15) + a
    s = 0
    for i in range(y & 7):
        s += g(i)
        s = s * 3 - g(i + 1)
    return b + c + d + e + s
`)
	inputs := [][]uint64{{0, 0}, {1, 2}, {5, 1}, {13, 7}, {300, 15}, {0xffff, 0xff}, {40, 3}}
	for _, e := range callEngines(t) {
		p := compileWith(t, f, e)
		w, err := p.NewWorker(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, errs := runAll(t, w, 2, inputs)
		st := f.NewState(nil)
		for i, in := range inputs {
			want, werr := st.Eval(in)
			if (werr == nil) != (errs[i] == nil) || werr == nil && got[i] != want {
				t.Errorf("%v: f%v = %d, %v; Eval gives %d, %v", e, in, got[i], errs[i], want, werr)
			}
		}
		w.Close()
		p.Close()
	}
}
