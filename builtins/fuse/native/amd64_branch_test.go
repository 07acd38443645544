package native_test

import "testing"

// TestConstantConditions: a loop or an if on a constant (while True: left
// by a break, while 0:, if 1:) branches without testing it, and every
// engine gives Eval's answers.
func TestConstantConditions(t *testing.T) {
	f := funcOf(t, `
def f(x, y):
    n = 0
    i = x & 63
    while True:
        if (y >> i) & 1:
            break
        n += i
        i += 1
        if i >= 64:
            break
    while 0:
        n += 1000
    if 1:
        n += 7
    if 0:
        n = 0
    return n
`)
	for _, e := range engines(t) {
		agreeCountingPolls(t, f, e, [][]uint64{{0, 0}, {3, 1 << 40}, {63, 0}, {5, ^uint64(0)}, {17, 1 << 17}})
	}
}
