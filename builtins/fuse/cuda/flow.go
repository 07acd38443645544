//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/ebitengine/purego"
)

// MaxStateBytes bounds the device memory of the per-thread states of a
// fused function (its scratch arrays): the grid shrinks to fit.
const MaxStateBytes = 1 << 30

// FuncKernel is a fused function with control flow (a fuse.Func) compiled
// for the device, with its tables uploaded (once, for the life of the
// fused value).
type FuncKernel struct {
	dev *Device
	f   *fuse.Func
	fn  uintptr
	tab *buffer
}

// hostMem is the driver's pinned host memory, which the card reads while
// a kernel runs: the stop flag lives there.
type hostMem struct {
	alloc  func(p *unsafe.Pointer, size uint64, flags uint32) int32
	free   func(p unsafe.Pointer) int32
	devPtr func(d *uint64, p unsafe.Pointer, flags uint32) int32
}

var (
	hostOnce sync.Once
	host     *hostMem
	hostErr  error
)

func loadHostMem() (*hostMem, error) {
	hostOnce.Do(func() {
		lib, _, err := load(candidates("libcuda.so.1", "libcuda.so"))
		if err != nil {
			hostErr = fmt.Errorf("no GPU: libcuda: %v", err)
			return
		}
		h := &hostMem{}
		for _, s := range []struct {
			f    any
			name string
		}{{&h.alloc, "cuMemHostAlloc"}, {&h.free, "cuMemFreeHost"}, {&h.devPtr, "cuMemHostGetDevicePointer_v2"}} {
			sym, err := purego.Dlsym(lib, s.name)
			if err != nil {
				hostErr = fmt.Errorf("no GPU: libcuda: symbol %s: %v", s.name, err)
				return
			}
			purego.RegisterFunc(s.f, sym)
		}
		host = h
	})
	return host, hostErr
}

// CompileFunc generates CUDA C for f (fuse.FuncCUDASource), compiles it
// with NVRTC, loads it and uploads f's tables. It refuses a function whose
// helpers recurse (f.Procs): their calls are C calls (fuse.FuncC), up to
// f.MaxCalls() frames on each thread's stack, which CUDA keeps at 1 KiB by
// default and, once raised (cuCtxSetLimit), reserves for every thread the
// card holds at once; past it a thread faults and the context with it.
func (dev *Device) CompileFunc(f *fuse.Func) (*FuncKernel, error) {
	if len(f.Procs) > 0 {
		return nil, fmt.Errorf("gpu: a fused function whose helpers recurse (up to %d calls deep) runs on the CPU: a GPU thread's stack cannot hold the calls", f.MaxCalls())
	}
	if _, err := loadHostMem(); err != nil {
		return nil, err
	}
	ptx, err := dev.compilePTX(fuse.FuncCUDASource(f))
	if err != nil {
		return nil, err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	var mod uintptr
	if err := dev.check("cuModuleLoadData", dev.d.cuModuleLoadData(&mod, &ptx[0])); err != nil {
		return nil, err
	}
	k := &FuncKernel{dev: dev, f: f}
	if err := dev.check("cuModuleGetFunction", dev.d.cuModuleGetFunction(&k.fn, mod, "fuse_run_func")); err != nil {
		return nil, err
	}
	tab := fuse.CTableWords(f)
	if k.tab, err = dev.alloc(uint64(len(tab)) * 8); err != nil {
		return nil, err
	}
	if err := k.tab.upload(tab); err != nil {
		k.tab.free()
		return nil, err
	}
	return k, nil
}

// Close frees the tables on the device.
func (k *FuncKernel) Close() {
	k.dev.mu.Lock()
	defer k.dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if k.dev.current() == nil {
		k.tab.free()
	}
}

// funcBlock is the number of threads of a block.
const funcBlock = 256

func (k *FuncKernel) launch(grid uint32, args *[14]uint64) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	ptrs := make([]unsafe.Pointer, len(args))
	pin.Pin(&ptrs[0])
	for i := range args {
		pin.Pin(&args[i])
		ptrs[i] = unsafe.Pointer(&args[i])
	}
	d := k.dev.d
	if err := k.dev.check("cuLaunchKernel", d.cuLaunchKernel(k.fn, grid, 1, 1, funcBlock, 1, 1, 0, 0, &ptrs[0], nil)); err != nil {
		return err
	}
	return k.dev.check("cuCtxSynchronize", d.cuCtxSynchronize())
}

// Run computes method over the spaces on the GPU with the answers of
// fuse.RunFunc. Each thread of the grid keeps its state (scratch arrays,
// epochs) in device memory for the whole run; the grid shrinks so that
// the states fit in MaxStateBytes. Launches cover slices of ~20 ms, and
// ctx is watched during a launch too: a stop flag in pinned host memory,
// which the kernel polls every fuse.PollEvery loop iterations, ends even
// an item that never would. Under First the run ends after the slice with
// the first hit, whose threads skip the items after the least hit so far.
func (k *FuncKernel) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	hm, err := loadHostMem()
	if err != nil {
		return nil, err
	}
	dev := k.dev
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	n := spaces[0].Len()
	r, isRange := spaces[0].(fuse.Range)
	const maxSlice = 1 << 24
	needOut := method == fuse.Map || method == fuse.Filter

	// The grid, and a state per thread.
	grid := uint64(max(dev.sms, 1) * 16)
	words := uint64(fuse.CStateWords(k.f))
	if words > 0 {
		grid = max(1, min(grid, MaxStateBytes/(funcBlock*words*8)))
	}
	var state *buffer
	if words > 0 {
		if state, err = dev.alloc(grid * funcBlock * words * 8); err != nil {
			return nil, err
		}
		defer state.free()
		if err := dev.check("cuMemsetD8", dev.d.cuMemsetD8(state.p, 0, state.size)); err != nil {
			return nil, err
		}
	}

	// The stop flag: host memory the card reads; set when ctx ends.
	var flagHost unsafe.Pointer
	if err := dev.check("cuMemHostAlloc", hm.alloc(&flagHost, 8, 0x02 /* CU_MEMHOSTALLOC_DEVICEMAP */)); err != nil {
		return nil, err
	}
	defer hm.free(flagHost)
	flag := (*int32)(flagHost)
	atomic.StoreInt32(flag, 0)
	var flagDev uint64
	if err := dev.check("cuMemHostGetDevicePointer", hm.devPtr(&flagDev, flagHost, 0)); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			atomic.StoreInt32(flag, 1)
		case <-done:
		}
	}()

	var bufs [3]*buffer
	defer func() {
		for _, b := range bufs {
			b.free()
		}
	}()
	copied := !isRange || len(spaces) > 1
	for i := range spaces {
		if i == 0 && isRange {
			continue
		}
		b, err := dev.alloc(min(n, maxSlice) * 8)
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	var out *buffer
	if needOut {
		if out, err = dev.alloc(min(n, maxSlice) * 8); err != nil {
			return nil, err
		}
		defer out.free()
	}
	acc, err := dev.alloc(fuse.AccWords * 8)
	if err != nil {
		return nil, err
	}
	defer acc.free()
	init := [fuse.AccWords]uint64{fuse.AccFirst: ^uint64(0), fuse.AccErr: ^uint64(0)}
	if method == fuse.Min {
		init[fuse.AccLo] = ^uint64(0)
	}
	if err := acc.upload(init[:]); err != nil {
		return nil, err
	}
	res := &fuse.Result{}
	var hostBuf []uint64
	slice := uint64(1 << 16) // items with loops: start small, then ~20 ms
	for base := uint64(0); base < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := min(slice, n-base)
		if copied || needOut {
			m = min(m, maxSlice)
		}
		var tab uint64
		if k.tab != nil {
			tab = k.tab.p
		}
		var sp uint64
		if state != nil {
			sp = state.p
		}
		args := [14]uint64{uint64(method), fuse.KindRange, r.Start, r.Step, 0, 0, 0, base, m, 0, acc.p, sp, tab, flagDev}
		for i, s := range spaces {
			if bufs[i] == nil {
				continue
			}
			if uint64(cap(hostBuf)) < m {
				hostBuf = make([]uint64, m)
			}
			hostBuf = hostBuf[:m]
			s.Fill(base, hostBuf)
			if err := bufs[i].upload(hostBuf); err != nil {
				return nil, err
			}
			args[4+i] = bufs[i].p
			if i == 0 {
				args[1] = fuse.KindArray
			}
		}
		if out != nil {
			args[9] = out.p
		}
		t0 := time.Now()
		if err := k.launch(uint32(grid), &args); err != nil {
			return nil, err
		}
		el := time.Since(t0)
		if err := ctx.Err(); err != nil {
			return nil, err // the kernel may have stopped part way
		}
		done, err := absorbLaunch(acc, out, needOut, spaces, method, opt, res, base, m, k.itemError)
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
			next := uint64(float64(m) * float64(20*time.Millisecond) / float64(el))
			slice = max(1<<10, min(next, 2*slice))
		}
	}
	if err := finish(acc, method, n, res); err != nil {
		return nil, err
	}
	return res, nil
}

// itemError recomputes the failing item under fuse's evaluator to word its
// error.
func (k *FuncKernel) itemError(spaces []fuse.Space, pos uint64) error {
	params := make([]uint64, len(spaces))
	one := make([]uint64, 1)
	for i, s := range spaces {
		s.Fill(pos, one)
		params[i] = one[0]
	}
	_, err := k.f.NewState(nil).Eval(params)
	var fe *fuse.FlowError
	if errors.As(err, &fe) && fe.Check >= 0 && fe.Check < len(k.f.Checks) {
		return &fuse.ItemError{Index: pos, Params: params, Check: &k.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	if err != nil {
		return fmt.Errorf("gpu: item %d: %w", pos, err)
	}
	return fmt.Errorf("gpu: item %d failed on the GPU but not on the CPU", pos)
}
