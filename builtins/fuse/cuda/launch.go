//go:build linux

package cuda

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// devOps are the driver calls a run makes: the CUDA driver's (Device) on a
// card, a simulation in the tests, which check the launcher on machines
// without a GPU.
type devOps interface {
	alloc(size uint64) (uint64, error)
	free(p uint64)
	upload(p uint64, ws []uint64) error
	download(p uint64, ws []uint64) error
	memset0(p, size uint64) error
	// launch runs fn on a grid of blocks of block threads with the
	// words of args as its arguments, and waits for it.
	launch(fn uintptr, grid, block uint32, args []uint64) error
	// stopFlag is an int in host memory that the card reads while a
	// kernel runs: dev is its address on the device, set raises it.
	stopFlag() (dev uint64, set func(), release func(), err error)
}

// launchSpec is what differs between the kernels of straight lines
// (fuse_run) and of searches (fuse_run_func).
type launchSpec struct {
	fn         uintptr
	grid       uint32
	block      uint32
	extra      func() []uint64 // the arguments after the accumulator (none for fuse_run)
	firstSlice uint64          // items of the first launch; then sized to ~20 ms
	minSlice   uint64
	stoppable  bool // the kernel polls a stop flag (its last argument), raised when ctx ends
	itemError  func(spaces []fuse.Space, pos uint64) error
}

// maxSlice bounds the items of a launch whose items or results are copied
// (128 MiB per array).
const maxSlice = 1 << 24

// sliceTime is the time a launch aims at, well inside the 50 ms that
// cancellation allows.
const sliceTime = 20 * time.Millisecond

// runSlices computes method over the spaces on the device, with the
// answers of the CPU executor: launches of spec's kernel over consecutive
// slices of the space, sized to take ~20 ms, each followed by a read of the
// accumulator (and of the results, for map and filter). Ranges are
// generated on the card; other spaces are generated on the host a slice at
// a time and copied. ctx is polled between launches, and during one where
// the kernel watches a stop flag.
func runSlices(ctx context.Context, ops devOps, spec launchSpec, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	n := spaces[0].Len()
	r, isRange := spaces[0].(fuse.Range)
	needOut := method == fuse.Map || method == fuse.Filter
	copied := !isRange || len(spaces) > 1
	var bufs [3]*buffer
	defer func() {
		for _, b := range bufs {
			b.free()
		}
	}()
	for i := range spaces {
		if i == 0 && isRange {
			continue
		}
		b, err := newBuffer(ops, min(n, maxSlice)*8)
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	var out *buffer
	if needOut {
		var err error
		if out, err = newBuffer(ops, min(n, maxSlice)*8); err != nil {
			return nil, err
		}
		defer out.free()
	}
	acc, err := newBuffer(ops, cgen.AccWords*8)
	if err != nil {
		return nil, err
	}
	defer acc.free()
	init := [cgen.AccWords]uint64{cgen.AccFirst: ^uint64(0), cgen.AccErr: ^uint64(0)}
	if method == fuse.Min {
		init[cgen.AccLo] = ^uint64(0)
	}
	if err := acc.upload(init[:]); err != nil {
		return nil, err
	}
	var extra []uint64
	if spec.extra != nil {
		extra = spec.extra()
	}
	if spec.stoppable {
		// The stop flag: raised when ctx ends, read by the kernel.
		flag, set, release, err := ops.stopFlag()
		if err != nil {
			return nil, err
		}
		defer release()
		extra = append(extra, flag)
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-ctx.Done():
				set()
			case <-done:
			}
		}()
	}
	res := &fuse.Result{}
	var host []uint64
	slice := spec.firstSlice
	for base := uint64(0); base < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := min(slice, n-base)
		if copied || needOut {
			m = min(m, maxSlice)
		}
		args := append([]uint64{uint64(method), cgen.KindRange, r.Start, r.Step, 0, 0, 0, base, m, 0, acc.p}, extra...)
		for i, s := range spaces {
			if bufs[i] == nil {
				continue
			}
			if uint64(cap(host)) < m {
				host = make([]uint64, m)
			}
			host = host[:m]
			s.Fill(base, host)
			if err := bufs[i].upload(host); err != nil {
				return nil, err
			}
			args[4+i] = bufs[i].p
			if i == 0 {
				args[1] = cgen.KindArray
			}
		}
		if out != nil {
			args[9] = out.p
		}
		t0 := time.Now()
		if err := ops.launch(spec.fn, spec.grid, spec.block, args); err != nil {
			return nil, err
		}
		el := time.Since(t0)
		if spec.stoppable {
			if err := ctx.Err(); err != nil {
				return nil, err // the kernel may have stopped part way
			}
		}
		done, err := absorbLaunch(acc, out, spaces, method, opt, res, base, m, spec.itemError)
		if err != nil {
			return nil, err
		}
		if done {
			return res, nil
		}
		base += m
		if opt.Progress != nil {
			opt.Progress(int64(base), int64(n))
		}
		if el > 0 {
			next := uint64(float64(m) * float64(sliceTime) / float64(el))
			slice = max(spec.minSlice, min(next, 2*slice))
		}
	}
	if err := finish(acc, method, n, res); err != nil {
		return nil, err
	}
	return res, nil
}

// buffer is device memory.
type buffer struct {
	ops  devOps
	p    uint64
	size uint64
}

func newBuffer(ops devOps, size uint64) (*buffer, error) {
	b := &buffer{ops: ops, size: size}
	if size == 0 {
		return b, nil
	}
	p, err := ops.alloc(size)
	if err != nil {
		return nil, err
	}
	b.p = p
	return b, nil
}

func (b *buffer) free() {
	if b != nil && b.p != 0 {
		b.ops.free(b.p)
		b.p = 0
	}
}

func (b *buffer) upload(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.ops.upload(b.p, ws)
}

func (b *buffer) download(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.ops.download(b.p, ws)
}

// The CUDA driver's devOps. The caller holds dev.mu and has made the
// context current on its locked thread.

func (dev *Device) alloc(size uint64) (uint64, error) {
	var p uint64
	if err := dev.check("cuMemAlloc", dev.d.cuMemAlloc(&p, size)); err != nil {
		return 0, err
	}
	return p, nil
}

func (dev *Device) free(p uint64) { dev.d.cuMemFree(p) }

func (dev *Device) upload(p uint64, ws []uint64) error {
	return dev.check("cuMemcpyHtoD", dev.d.cuMemcpyHtoD(p, unsafe.Pointer(&ws[0]), uint64(len(ws))*8))
}

func (dev *Device) download(p uint64, ws []uint64) error {
	return dev.check("cuMemcpyDtoH", dev.d.cuMemcpyDtoH(unsafe.Pointer(&ws[0]), p, uint64(len(ws))*8))
}

func (dev *Device) memset0(p, size uint64) error {
	return dev.check("cuMemsetD8", dev.d.cuMemsetD8(p, 0, size))
}

// launch runs fn once with args, pinning what the driver reads.
func (dev *Device) launch(fn uintptr, grid, block uint32, args []uint64) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	ptrs := make([]unsafe.Pointer, len(args))
	pin.Pin(&ptrs[0])
	for i := range args {
		pin.Pin(&args[i])
		ptrs[i] = unsafe.Pointer(&args[i])
	}
	if err := dev.check("cuLaunchKernel", dev.d.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0, &ptrs[0], nil)); err != nil {
		return err
	}
	return dev.check("cuCtxSynchronize", dev.d.cuCtxSynchronize())
}

func (dev *Device) stopFlag() (uint64, func(), func(), error) {
	hm, err := loadHostMem()
	if err != nil {
		return 0, nil, nil, err
	}
	var flagHost unsafe.Pointer
	if err := dev.check("cuMemHostAlloc", hm.alloc(&flagHost, 8, 0x02 /* CU_MEMHOSTALLOC_DEVICEMAP */)); err != nil {
		return 0, nil, nil, err
	}
	flag := (*int32)(flagHost)
	atomic.StoreInt32(flag, 0)
	var flagDev uint64
	if err := dev.check("cuMemHostGetDevicePointer", hm.devPtr(&flagDev, flagHost, 0)); err != nil {
		hm.free(flagHost)
		return 0, nil, nil, err
	}
	return flagDev, func() { atomic.StoreInt32(flag, 1) }, func() { hm.free(flagHost) }, nil
}

// itemParams are the parameters of item pos of the spaces.
func itemParams(spaces []fuse.Space, pos uint64) []uint64 {
	params := make([]uint64, len(spaces))
	one := make([]uint64, 1)
	for i, s := range spaces {
		s.Fill(pos, one)
		params[i] = one[0]
	}
	return params
}

// errNotOnCPU: an item failed on the GPU but not when recomputed.
func errNotOnCPU(pos uint64) error {
	return fmt.Errorf("gpu: item %d failed on the GPU but not on the CPU", pos)
}
