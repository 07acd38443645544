package native_test

import (
	"errors"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// TestSetDepth: a worker of the amd64 engine allows the chains of calls
// SetDepth says, fewer than the Func's MaxCalls, in plain calls, in
// frames with scratch arrays and in calls in tail position made as jumps,
// and MaxCalls again once set back; the other engines say they do not.
func TestSetDepth(t *testing.T) {
	srcs := map[string]string{
		"plain": `
def down(n):
    if n == 0:
        return 7
    return down(n - 1) + 1
def f(x):
    return down(x)
`,
		"tail": `
def down(n):
    if n == 0:
        return 7
    return down(n - 1)
def f(x):
    return down(x)
`,
		"framed": `
def down(n):
    a = [0] * 1000
    a[n % 1000] = n + 1
    if n == 0:
        return a[0]
    return down(n - 1) + a[n % 1000]
def f(x):
    return down(x)
`,
	}
	for name, src := range srcs {
		f := funcOf(t, src)
		m := f.MaxCalls()
		st := f.NewState(nil)
		// The deepest f(x) Eval runs with MaxCalls: x calls of down
		// from f's body, down(0) the x-th... find it.
		top := -1
		for _, x := range []int{m - 2, m - 1, m, m + 1} {
			if _, err := st.Eval([]uint64{uint64(x)}); err == nil {
				top = x
			}
		}
		if top < 0 {
			t.Fatalf("%s: no f(x) near %d runs", name, m)
		}
		for _, e := range callEngines(t) {
			p := compileWith(t, f, e)
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			if e != native.AMD64 {
				if w.SetDepth(5) {
					t.Errorf("%s: %v says it honours SetDepth", name, e)
				}
				w.Close()
				p.Close()
				continue
			}
			for _, limit := range []int{0, 1, 5, 100, m} {
				if !w.SetDepth(limit) {
					t.Fatalf("%s: amd64 does not honour SetDepth", name)
				}
				x := top - (m - limit) // the deepest that fits
				if x >= 0 {
					got, errs := runAll(t, w, 1, [][]uint64{{uint64(x)}})
					want, _ := st.Eval([]uint64{uint64(x)})
					if errs[0] != nil || got[0] != want {
						t.Errorf("%s: depth %d: f(%d) = %d, %v; want %d", name, limit, x, got[0], errs[0], want)
					}
				}
				_, errs := runAll(t, w, 1, [][]uint64{{uint64(x + 1)}})
				var fe *fuse.FlowError
				if !errors.As(errs[0], &fe) || f.Checks[fe.Check].Kind != fuse.CheckDepth {
					t.Errorf("%s: depth %d: f(%d): %v; want the depth check failing", name, limit, x+1, errs[0])
				}
			}
			w.Close()
			p.Close()
		}
	}
}

// TestWork: the fuel a run of the amd64 engine used, where the Func has
// Procs: a call more for each call more; loop iterations count too.
func TestWork(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
	f := funcOf(t, `
def down(n):
    if n == 0:
        return 7
    return down(n - 1) + 1
def f(x):
    s = 0
    for i in range(30 * x):
        s += 1
    return down(x) + s
`)
	p := compileWith(t, f, native.AMD64)
	defer p.Close()
	w, err := p.NewWorker(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	work := func(x uint64) uint64 {
		runAll(t, w, 1, [][]uint64{{x}})
		n, ok := w.Work()
		if !ok {
			t.Fatal("no work counted for a Func with Procs")
		}
		return n
	}
	w10, w100, w9000 := work(10), work(100), work(9000)
	if w100-w10 != 31*90 {
		t.Errorf("work of f(100) %d, of f(10) %d: want %d more (a call and 30 iterations each)", w100, w10, 31*90)
	}
	if w9000-w10 != 31*(9000-10) {
		t.Errorf("work of f(9000) %d, of f(10) %d: want %d more (polls included)", w9000, w10, 31*(9000-10))
	}
	plain := compileWith(t, funcOf(t, "def f(x):\n    return x + 1\n"), native.AMD64)
	defer plain.Close()
	pw, err := plain.NewWorker(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	if _, ok := pw.Work(); ok {
		t.Error("work counted for a Func without Procs")
	}
}
