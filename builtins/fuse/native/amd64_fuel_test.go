package native_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// TestFuelInRegisterAcrossCalls: with calls and loops the amd64 engine
// keeps the fuel in a register that every Proc shares. A loop in a Proc
// and a loop around the calls both come back to be polled, from inside
// the Proc and from the body, and the answers and the fuel counted stay
// Eval's and the loops' and calls' own.
func TestFuelInRegisterAcrossCalls(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
	f := funcOf(t, `
def inner(n, k):
    s = 0
    for i in range(n):
        s += (i ^ k) & 7
    if k > 0:
        s += inner(n, k - 1)
    return s
def f(x, y):
    t = 0
    j = 0
    while j < x:
        t += inner(j & 255, y) + j
        j += 1
    return t
`)
	for _, e := range callEngines(t) {
		// About 60 million iterations of inner's loop: many polls.
		polls := agreeCountingPolls(t, f, e, [][]uint64{{1000, 3}, {0, 0}, {7, 0}, {3000, 1}})
		if polls < 10 {
			t.Errorf("%v: %d polls; want one every %d iterations", e, polls, fuse.PollEvery)
		}
	}
	p := compileWith(t, f, native.AMD64)
	defer p.Close()
	w, err := p.NewWorker(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	work := func(x uint64) uint64 {
		runAll(t, w, 2, [][]uint64{{x, 2}})
		n, ok := w.Work()
		if !ok {
			t.Fatal("no work counted for a Func with Procs")
		}
		return n
	}
	// f(x+256, 2) runs inner's loop 0+1+...+255 times more at each of
	// its three levels (the first inlined in f), in 512 calls more from
	// 256 iterations more, each of which counts a unit of its own or
	// none (a loop charged on entry). A caller that kept the fuel from
	// before a call would lose the callee's.
	w300, w556 := work(300), work(556)
	if lo, hi := uint64(3*255*256/2), uint64(3*255*256/2+3*256); w556-w300 < lo || w556-w300 > hi {
		t.Errorf("work of f(556, 2) %d, of f(300, 2) %d: want %d to %d more", w556, w300, lo, hi)
	}
}
