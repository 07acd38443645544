package native_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestScratchConstantIndex: a scratch array's element at a constant index
// (the first, the last, a negative one, one past the end that fails) reads
// with Eval's answers, after stores at constant and variable indexes, in
// a fresh array and where no store reached the element.
func TestScratchConstantIndex(t *testing.T) {
	f := funcOf(t, `
def f(x, y):
    a = [0] * 8
    b = [5] * 4
    for i in range(7):
        a[i] = (x & 65535) * (i + 1) + (y & 255)
    a[x & 7] = y & 4095
    n = a[0] * 3 + a[7] + a[-1] + a[3] * a[5] + b[0] + b[3]
    if y & 1:
        b[2] = n & 255
    n += b[2] + b[-2]
    if x == 99:
        n += b[4]
    return n
`)
	// The compiler stores through a variable that holds the index: each
	// store at a variable assigned only a constant is made a store at
	// that constant (as a hash table's header is written).
	consts := map[uint64]*fuse.Expr{}
	sets := map[uint64]int{}
	var walk func(ss []fuse.Stmt, f func(*fuse.Stmt))
	walk = func(ss []fuse.Stmt, f func(*fuse.Stmt)) {
		for i := range ss {
			f(&ss[i])
			walk(ss[i].Body, f)
			walk(ss[i].Else, f)
		}
	}
	walk(f.Body, func(s *fuse.Stmt) {
		if s.Kind == fuse.SAssign || s.Kind == fuse.SForRange {
			sets[uint64(s.Var)]++
			if s.Kind == fuse.SAssign && s.X.Op == fuse.OpConst {
				consts[uint64(s.Var)] = s.X
			}
		}
	})
	stores := 0
	walk(f.Body, func(s *fuse.Stmt) {
		if s.Kind == fuse.SStore && s.X.Op == fuse.OpVar && sets[s.X.Imm] == 1 && consts[s.X.Imm] != nil && int(s.X.Imm) >= f.Params {
			s.X = consts[s.X.Imm]
			stores++
		}
	})
	if stores == 0 {
		t.Fatalf("no store at a constant index in %+v", f.Body)
	}
	inputs := [][]uint64{{0, 0}, {3, 1}, {7, 4096 + 3}, {99, 2}, {99, 3}, {1 << 20, 255}, {6, ^uint64(0)}}
	st := f.NewState(nil)
	for _, e := range engines(t) {
		p := compileWith(t, f, e)
		w, err := p.NewWorker(func() bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		got, errs := runAll(t, w, f.Params, inputs)
		for i, in := range inputs {
			want, werr := st.Eval(in)
			if (errs[i] == nil) != (werr == nil) || werr == nil && got[i] != want || werr != nil && errs[i].Error() != werr.Error() {
				t.Errorf("%v: f%v = %#x, %v; Eval gives %#x, %v", e, in, got[i], errs[i], want, werr)
			}
		}
		w.Close()
		p.Close()
	}
	if _, err := st.Eval([]uint64{99, 2}); err == nil {
		t.Errorf("f[99 2] read past the end of b; want a failure")
	}
}
