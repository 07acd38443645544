package native_test

import (
	"math/bits"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// TestMulHiEngines: WebAssembly, which has no 128-bit multiply, refuses a
// function holding mul_hi; the engine Auto chooses runs it, and gives
// math/bits.Mul64's high word on edge words.
func TestMulHiEngines(t *testing.T) {
	v := func(i uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpVar, Imm: i, Check: -1} }
	f := &fuse.Func{Params: 2, Vars: 2, Body: []fuse.Stmt{{Kind: fuse.SReturn,
		X: &fuse.Expr{Op: fuse.OpMulHi, Args: []*fuse.Expr{v(0), v(1)}, Check: -1}}}}
	if _, err := native.CompileWith(f, native.WebAssembly); err == nil || !strings.Contains(err.Error(), "mul_hi") {
		t.Errorf("WebAssembly: err %v, want a refusal of mul_hi", err)
	}
	p, err := native.CompileWith(f, native.Auto)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Engine() == native.WebAssembly {
		t.Fatalf("Auto chose WebAssembly")
	}
	words := []uint64{0, 1, 1<<32 - 1, 1 << 32, 1 << 63, 1<<64 - 1, 0x9e3779b97f4a7c15}
	for _, a := range words {
		for _, b := range words {
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			w.Params(0)[0], w.Params(1)[0] = a, b
			_, res, err := w.Run(1, false)
			var got uint64
			if err == nil {
				got = res[0] // (the worker's memory: read before Close)
			}
			w.Close()
			want, _ := bits.Mul64(a, b)
			if err != nil || got != want {
				t.Errorf("mul_hi(%#x, %#x) on %v = %#x, %v; want %#x", a, b, p.Engine(), got, err, want)
			}
		}
	}
}
