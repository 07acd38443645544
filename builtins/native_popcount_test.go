package builtins

import (
	"math/rand/v2"
	"testing"
)

// TestNativeKernighanLoop: the loop that counts a word's bits by
// clearing its lowest (while v: v &= v - 1; n += 1), one POPCNT as x86-64
// code, gives the interpreter's count, leaves v at 0, and gives the call
// back where the count passes 2^64.
func TestNativeKernighanLoop(t *testing.T) {
	needAMD64(t)
	srcs := []string{
		"def f(x, k):\n    n = 0\n    while x:\n        x &= x - 1\n        n += 1\n    return n\n",
		"def f(x, k):\n    n = k\n    v = x ^ k\n    while v:\n        v &= v - 1\n        n += 1\n    return n + v\n",
		"def count(x):\n    n = 0\n    while x:\n        x &= x - 1\n        n += 1\n    return n\n\n" +
			"def f(x, k):\n    s = 0\n    for i in range(k % 50):\n        s += count(x >> i) * 3 + count(i)\n    return s\n",
		"def f(x, k):\n    n = 0\n    m = x\n    while m:\n        m = m & (m - 1)\n        n += 1\n        if n > 70:\n            break\n    return n * 1000 + m\n",
	}
	top := uint64(1<<64 - 1)
	r := rand.New(rand.NewPCG(7, 7))
	inputs := [][2]uint64{{0, 0}, {1, 1}, {top, 0}, {top, top - 63}, {top, top - 64}, {3, top}, {top >> 1, top - 70}}
	for range 20 {
		inputs = append(inputs, [2]uint64{r.Uint64() & r.Uint64(), r.Uint64N(1000)})
	}
	coded, given := 0, 0
	for _, src := range srcs {
		c, g := diffPairCalls(t, src, inputs, 1)
		coded += c
		given += g
	}
	if coded < 3*len(inputs) || given == 0 {
		t.Errorf("%d calls as code, %d given back: the test tests little", coded, given)
	}
}
