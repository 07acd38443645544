package builtins

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeExactAddInPlace: a variable that counts up in a register
// (v += k, as x86-64 code an add and a branch on its carry; likewise
// an element, a sum y + k into another variable, and a difference) past 2^64
// gives the call back, and the interpreter's big int; below it, the
// code's result is the interpreter's.
func TestNativeExactAddInPlace(t *testing.T) {
	needAMD64(t)
	srcs := []string{
		"def f(x, k):\n    s = x\n    for i in range(k):\n        s += 1\n    return s\n",
		"def f(x, k):\n    s = x\n    n = 0\n    while n < k:\n        s += 7\n        n += 1\n    return s + n\n",
		"def f(x, k):\n    a = [0] * 70\n    a[0] = x\n    a[1] = x\n    for i in range(k):\n        a[i % 2] += 1\n    return a[0]\n",
		"def f(x, k):\n    d = 0\n    for i in range(3):\n        d = k - x\n        d = d - 1\n    return d\n",
		"def f(x, k):\n    u = 0\n    for i in range(k):\n        u = x + 3\n    return u\n",
		"def f(x, k):\n    s = 0\n    t = x\n    for i in range(k):\n        s += i\n        t += 2147483647\n    return s ^ t\n",
	}
	top := uint64(1<<64 - 1)
	inputs := [][2]uint64{{0, 5}, {5, 5}, {top - 100, 3}, {top - 3, 10}, {top, 1}, {top - 7, 1}, {top - 6, 1}, {top - 2147483647, 1}, {top - 2147483646, 1}, {1 << 63, 100}}
	coded, given := 0, 0
	for _, src := range srcs {
		c, g := diffPairCalls(t, src, inputs, 0)
		coded += c
		given += g
	}
	if coded == 0 || given == 0 {
		t.Errorf("%d calls as code, %d given back: the test tests little", coded, given)
	}
}

// diffPairCalls compiles f(x, k) of src for the arguments inputs[first],
// then calls it on every pair of inputs as code and interpreted, failing
// where the code gives another answer; it returns how many calls ran as
// code and how many the code gave back.
func diffPairCalls(t *testing.T, src string, inputs [][2]uint64, first int) (coded, given int) {
	t.Helper()
	fn, thread := randomModule(t, src)
	args := func(in [2]uint64) starlark.Tuple {
		return starlark.Tuple{starlark.MakeUint64(in[0]), starlark.MakeUint64(in[1])}
	}
	nf, _, err := compileNative(thread, fn, args(inputs[first]), nil, nil, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	<-nf.pc.Ready()
	if nf.pc.Err() != nil {
		t.Fatalf("%v\n%s", nf.pc.Err(), src)
	}
	for _, in := range inputs {
		want, err := starlark.Call(thread, fn, args(in), nil)
		if err != nil {
			t.Fatalf("f(%d, %d): %v\n%s", in[0], in[1], err, src)
		}
		got, ok := nf.call(thread, args(in))
		if !ok {
			given++
			continue
		}
		coded++
		if got.String() != want.String() {
			t.Errorf("f(%d, %d) = %v as code; %v interpreted\n%s", in[0], in[1], got, want, src)
		}
	}
	return coded, given
}
