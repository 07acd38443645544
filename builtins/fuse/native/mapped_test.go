package native_test

import (
	"math/bits"
	"runtime"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
)

// settle lets the collector's cleanups of earlier tests' programs and
// workers give their mappings back, so that the count stays put.
func settle() {
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// runOne runs w on x and returns the result.
func runOne(t *testing.T, w *native.Worker, x uint64) uint64 {
	t.Helper()
	w.Params(0)[0] = x
	_, res, err := w.Run(1, false)
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// TestMappingsLimited: past the limit of mappings (lowered here, rather
// than making the kernel's 65,530), Auto compiles to the evaluator, AMD64
// fails, and a worker's memory comes from the heap; every program still
// computes the function, and closing gives the mappings back. The bytes
// mapped are counted outside the heap while they live.
func TestMappingsLimited(t *testing.T) {
	f := funcOf(t, "def f(x):\n    n = 0\n    while x:\n        x &= x - 1\n        n += 1\n    return n\n")
	if _, err := native.CompileWith(f, native.AMD64); err != nil {
		t.Skipf("no amd64 engine: %v", err)
	}
	settle()
	base := native.Mappings()
	defer native.LimitMappings(base + 3)()

	out0 := memory.OutsideBytes()
	p1, err := native.CompileWith(f, native.Auto) // mapping 1: code
	if err != nil || p1.Engine() != native.AMD64 {
		t.Fatalf("first program: %v, %v; want amd64", p1.Engine(), err)
	}
	w1, err := p1.NewWorker(nil) // mapping 2: the worker's memory
	if err != nil {
		t.Fatal(err)
	}
	if got, want := memory.OutsideBytes()-out0, int64(p1.MemoryBytes()); got < want {
		t.Errorf("outside the heap after a program and a worker: %d more bytes; want at least %d", got, want)
	}
	p2, err := native.CompileWith(f, native.Auto) // mapping 3: code
	if err != nil || p2.Engine() != native.AMD64 {
		t.Fatalf("second program: %v, %v; want amd64", p2.Engine(), err)
	}
	if got := native.Mappings() - base; got != 3 {
		t.Fatalf("%d mappings held; want 3", got)
	}
	w2, err := p2.NewWorker(nil) // past the limit: on the heap
	if err != nil {
		t.Fatalf("a worker past the limit: %v", err)
	}
	if got := native.Mappings() - base; got != 3 {
		t.Errorf("%d mappings after a worker past the limit; want still 3", got)
	}
	p3, err := native.CompileWith(f, native.Auto)
	if err != nil || p3.Engine() != native.Eval {
		t.Fatalf("third program past the limit: %v, %v; want eval", p3.Engine(), err)
	}
	if _, err := native.CompileWith(f, native.AMD64); err == nil {
		t.Errorf("AMD64 past the limit: no error")
	}
	w3, err := p3.NewWorker(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []uint64{0, 1, 0xff, 1<<64 - 1, 0x8000000000000001} {
		want := uint64(bits.OnesCount64(x))
		for i, w := range []*native.Worker{w1, w2, w3} {
			if got := runOne(t, w, x); got != want {
				t.Errorf("program %d: f(%#x) = %d; want %d", i+1, x, got, want)
			}
		}
	}
	w3.Close()
	w2.Close()
	w1.Close()
	p1.Close()
	if got := native.Mappings() - base; got != 1 {
		t.Errorf("%d mappings after closing a program and its worker; want 1", got)
	}
	p4, err := native.CompileWith(f, native.Auto)
	if err != nil || p4.Engine() != native.AMD64 {
		t.Errorf("a program after mappings were given back: %v, %v; want amd64", p4.Engine(), err)
	}
	p4.Close()
	p2.Close()
	p3.Close()
	if got := native.Mappings() - base; got != 0 {
		t.Errorf("%d mappings after closing all; want 0", got)
	}
}
