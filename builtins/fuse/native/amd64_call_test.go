package native_test

import (
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
