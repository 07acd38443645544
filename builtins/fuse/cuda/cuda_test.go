//go:build linux

package cuda

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
)

// TestGPU compares the GPU with the CPU executor for every method over a
// range and an array. It needs a GPU with its driver and NVRTC.
func TestGPU(t *testing.T) {
	dev, err := Open()
	if err != nil {
		t.Skipf("no GPU to test on (%v); the kernel is tested as C by builtins/fuse/cgen's TestCUDAKernelAsC", err)
	}
	t.Logf("GPU: %s", dev.Name())
	b := fuse.NewBuilder(1)
	s := b.Param(0)
	x := b.Op2(fuse.OpAnd, s, b.Const(0x2a5a5a), 0)
	p := b.Finish(b.Op2(fuse.OpEq, b.Op1(fuse.OpPopcount, x, 0), b.Const(3), 0))
	k, err := dev.Kernel(p)
	if err != nil {
		t.Fatal(err)
	}
	cpu := block.New(p)
	arr := make(fuse.Array, 100000)
	for i := range arr {
		arr[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, space := range []fuse.Space{fuse.Range{Step: 1, N: 1 << 24}, fuse.Range{Start: 5, Step: 3, N: 1000}, arr} {
		for m := fuse.Map; m <= fuse.Filter; m++ {
			n := space.Len()
			if m == fuse.Map && n > 1<<20 {
				continue
			}
			o1 := fuse.Options{Workers: 2, Out: make([]uint64, n), Limit: 1 << 27}
			o2 := fuse.Options{Workers: 2, Out: make([]uint64, n), Limit: 1 << 27}
			got, err1 := k.Run(context.Background(), []fuse.Space{space}, m, o1)
			want, err2 := cpu.Run(context.Background(), []fuse.Space{space}, m, o2)
			if err1 != nil || err2 != nil {
				t.Fatalf("method %d: GPU error %v, CPU error %v", m, err1, err2)
			}
			g := fmt.Sprint(got.Count, got.SumHi, got.SumLo, got.Value, got.Found, got.Index, len(got.Items), o1.Out[:min(n, 100)])
			w := fmt.Sprint(want.Count, want.SumHi, want.SumLo, want.Value, want.Found, want.Index, len(want.Items), o2.Out[:min(n, 100)])
			if g != w {
				t.Errorf("method %d over %T: GPU %s, CPU %s", m, space, g, w)
			}
		}
	}
	// A second compilation of the same function comes from the kernel
	// cache: NVRTC does not run.
	if dev.cache != nil {
		saved := dev.cache
		dev.cache = &Cache{Dir: t.TempDir(), MaxBytes: 1 << 20}
		c0, h0 := dev.Compiles()
		for range 2 {
			if _, err := dev.Kernel(p); err != nil {
				t.Fatal(err)
			}
		}
		c1, h1 := dev.Compiles()
		dev.cache = saved
		if c1-c0 != 1 || h1-h0 != 1 {
			t.Errorf("two compilations ran NVRTC %d times and hit the cache %d times, want 1 and 1", c1-c0, h1-h0)
		}
	}
	// An item's error on the GPU is the CPU's.
	b = fuse.NewBuilder(1)
	b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: b.Param(0), Mask: fuse.NoMask, Msg: "bsf: x = 0 has no one bit"})
	p = b.Finish(b.Op1(fuse.OpBsf, b.Param(0), 0))
	if k, err = dev.Kernel(p); err != nil {
		t.Fatal(err)
	}
	_, err = k.Run(context.Background(), []fuse.Space{fuse.Range{Start: 10, Step: ^uint64(0), N: 20}}, fuse.Count, fuse.Options{})
	if ie, ok := err.(*fuse.ItemError); !ok || ie.Index != 10 {
		t.Fatalf("err = %v, want the item at position 10", err)
	}
}

// BenchmarkGPUCount: one op is one item of the popcount count over
// range(2^32) on the GPU, after compilation.
func BenchmarkGPUCount(b *testing.B) {
	dev, err := Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	bl := fuse.NewBuilder(1)
	x := bl.Op2(fuse.OpAnd, bl.Param(0), bl.Const(0x2a5a5a), 0)
	k, err := dev.Kernel(bl.Finish(bl.Op2(fuse.OpEq, bl.Op1(fuse.OpPopcount, x, 0), bl.Const(3), 0)))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if _, err := k.Run(context.Background(), []fuse.Space{fuse.Range{Step: 1, N: uint64(b.N)}}, fuse.Count, fuse.Options{}); err != nil {
		b.Fatal(err)
	}
}

// TestLibDirs: CUDA_PATH comes first, then the usual prefixes.
func TestLibDirs(t *testing.T) {
	t.Setenv("CUDA_PATH", "/opt/cuda-test")
	t.Setenv("CUDA_HOME", "")
	dirs := libDirs()
	if dirs[0] != "/opt/cuda-test/lib64" {
		t.Errorf("first folder %q, want CUDA_PATH's lib64", dirs[0])
	}
	found := false
	for _, d := range dirs {
		found = found || d == "/usr/local/cuda/lib64"
	}
	if !found {
		t.Errorf("folders %v lack /usr/local/cuda/lib64", dirs)
	}
	if c := candidates("libnvrtc.so", "libnvrtc.so.*"); c[0] != "libnvrtc.so" {
		t.Errorf("candidates start with %q, want the bare name", c[0])
	}
}

// TestOpenFailsCleanly: without a GPU, Open says what it looked for, and
// says it again (the result is cached, not retried).
func TestOpenFailsCleanly(t *testing.T) {
	_, err1 := Open()
	_, err2 := Open()
	if err1 == nil {
		t.Skip("this machine has a usable GPU")
	}
	if err1 != err2 || !strings.Contains(err1.Error(), "no") || !strings.Contains(err1.Error(), "lib") {
		t.Fatalf("errors %v, %v: want the same error naming the library looked for", err1, err2)
	}
}
