package builtins

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeFailInProcKeepsEpochs: a check that fails in a helper that
// runs as a call (a recursion, here a division by zero at its bottom)
// gives the call back, and the next calls on the same worker read their
// lists as the interpreter does: the run that failed must not leave the
// function's epochs at values a later run takes again (its elements
// would then read as fresh).
func TestNativeFailInProcKeepsEpochs(t *testing.T) {
	needAMD64(t)
	src := "def rec(n, k):\n    if n == 0:\n        return 10 // k\n    return rec(n - 1, k) + 1\n\n" +
		"def f(x, k):\n    a = [0] * 10\n    b = [0] * 10\n    for i in range(x % 10):\n        a[i] = i + 1\n        b[i] = i + 2\n" +
		"    s = 0\n    for i in range(10):\n        s += a[i] * 3 + b[i]\n    return s + rec(x % 7, k)\n"
	fn, thread := randomModule(t, src)
	args := func(x, k int) starlark.Tuple { return starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(k)} }
	nf, _, err := compileNative(thread, fn, args(5, 1), nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	<-nf.pc.Ready()
	if nf.pc.Err() != nil {
		t.Fatal(nf.pc.Err())
	}
	coded, given := 0, 0
	for x := 0; x < 30; x++ {
		for _, k := range []int{1, 0, 2} {
			want, werr := starlark.Call(thread, fn, args(x, k), nil)
			got, ok := nf.call(thread, args(x, k))
			if !ok {
				given++
				continue
			}
			coded++
			if werr != nil || got.String() != want.String() {
				t.Errorf("f(%d, %d) = %v as code; interpreted %v (%v)", x, k, got, want, werr)
			}
		}
	}
	if coded == 0 || given == 0 {
		t.Errorf("%d calls as code, %d given back: the test tests little", coded, given)
	}
}
