//go:build linux

package cuda

import (
	"context"
	"runtime"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// Kernel is a fused function compiled for the device (once, for the life
// of the fused value).
type Kernel struct {
	dev  *Device
	prog *fuse.Line
	cpu  *block.Executor // to word the error of a failing item
	fn   uintptr
}

// Kernel generates CUDA C for p, compiles it with NVRTC (or takes it
// from the kernel cache) and loads it.
func (dev *Device) Kernel(p *fuse.Line) (*Kernel, error) {
	fn, err := dev.loadKernel(cgen.CUDASource(p), "fuse_run")
	if err != nil {
		return nil, err
	}
	return &Kernel{dev: dev, prog: p, cpu: block.New(p), fn: fn}, nil
}

// loadKernel compiles src (or takes it from the kernel cache), loads it
// in the device's context and returns its function called name. The first
// load of a process also makes the pinned buffers of the runs (warm).
func (dev *Device) loadKernel(src, name string) (uintptr, error) {
	ptx, err := dev.compilePTX(src)
	if err != nil {
		return 0, err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return 0, err
	}
	var mod uintptr
	if err := dev.check("cuModuleLoadData", dev.d.cuModuleLoadData(&mod, &ptx[0])); err != nil {
		return 0, err
	}
	var fn uintptr
	if err := dev.check("cuModuleGetFunction", dev.d.cuModuleGetFunction(&fn, mod, name)); err != nil {
		return 0, err
	}
	dev.warm()
	return fn, nil
}

// Run computes method over the spaces on the GPU, with the same answers as
// the CPU executor (runSlices): launches of fuse_run over chunks that take
// ~20 ms, between which ctx is polled; the items and results of one chunk
// cross the bus through pinned buffers while the kernel of another runs.
func (k *Kernel) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	dev := k.dev
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	return runSlices(ctx, dev, k.spec(), spaces, method, opt)
}

// spec is how fuse_run is launched: a grid of 16 blocks per
// multiprocessor; a first slice of 2^22 items.
func (k *Kernel) spec() launchSpec {
	return launchSpec{fn: k.fn, grid: uint32(max(k.dev.sms, 1) * 16), block: 256,
		firstSlice: 1 << 22, minSlice: 1 << 16, itemError: k.itemError}
}

// itemError recomputes the failing item on the CPU to word its error.
func (k *Kernel) itemError(spaces []fuse.Space, pos uint64) error {
	if _, err := k.cpu.Call(itemParams(spaces, pos)); err != nil {
		if ie, ok := err.(*fuse.ItemError); ok {
			ie.Index = pos
			return ie
		}
		return err
	}
	return errNotOnCPU(pos)
}

// finish reads the accumulator of a run of n items into res.
func finish(acc *buffer, method fuse.Method, n uint64, res *fuse.Result) error {
	var a [cgen.AccWords]uint64
	if err := acc.download(a[:]); err != nil {
		return err
	}
	switch method {
	case fuse.Count:
		res.Count = a[cgen.AccLo]
	case fuse.Sum:
		res.SumLo, res.SumHi = a[cgen.AccLo], a[cgen.AccHi]
	case fuse.Min, fuse.Max:
		res.Value, res.Found = a[cgen.AccLo], n > 0
	}
	return nil
}
