//go:build linux

package cuda

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
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

// FuncKernel generates CUDA C for f (cgen.FuncCUDASource), compiles it
// with NVRTC, loads it and uploads f's tables. It refuses a function whose
// helpers recurse (Refuses).
func (dev *Device) FuncKernel(f *fuse.Func) (*FuncKernel, error) {
	if err := Refuses(f); err != nil {
		return nil, err
	}
	fn, err := dev.loadKernel(cgen.FuncCUDASource(f), "fuse_run_func")
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
	k := &FuncKernel{dev: dev, f: f, fn: fn}
	tab := cgen.TableWords(f)
	if k.tab, err = newBuffer(dev, uint64(len(tab))*8); err != nil {
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

// Run computes method over the spaces on the GPU with the answers of
// fuse.RunFunc (runSlices). Each thread of the grid keeps its state
// (scratch arrays, epochs) in device memory for the whole run; the grid
// shrinks so that the states fit in MaxStateBytes, and the launches, over
// chunks of ~20 ms, run one after the other (the copies of one chunk
// overlap the kernel of another). ctx is watched during a launch too: a
// stop flag in pinned host memory, which the kernel polls every
// fuse.PollEvery loop iterations, ends even an item that never would. Under First the run
// ends after the chunk with the first hit, whose threads skip the items
// after the least hit so far.
func (k *FuncKernel) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	dev := k.dev
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	return k.run(ctx, dev, uint64(max(dev.sms, 1)*16), spaces, method, opt, nil)
}

// run is Run on ops with a grid of at most grid blocks; tune, where not
// nil, changes the launch's sizes (in the tests).
func (k *FuncKernel) run(ctx context.Context, ops devOps, grid uint64, spaces []fuse.Space, method fuse.Method, opt fuse.Options, tune func(*launchSpec)) (*fuse.Result, error) {
	words := uint64(cgen.StateWords(k.f))
	var state *buffer
	if words > 0 {
		grid = max(1, min(grid, MaxStateBytes/(funcBlock*words*8)))
		var err error
		if state, err = newBuffer(ops, grid*funcBlock*words*8); err != nil {
			return nil, err
		}
		defer state.free()
		if err := ops.memset0(state.p, state.size); err != nil {
			return nil, err
		}
	}
	var sp, tab uint64
	if state != nil {
		sp = state.p
	}
	if k.tab != nil {
		tab = k.tab.p
	}
	spec := launchSpec{fn: k.fn, grid: uint32(grid), block: funcBlock,
		extra:      func() []uint64 { return []uint64{sp, tab} },
		firstSlice: 1 << 16, minSlice: 1 << 10, // items with loops: start small
		stoppable: true, itemError: k.itemError}
	if tune != nil {
		tune(&spec)
	}
	return runSlices(ctx, ops, spec, spaces, method, opt)
}

// itemError recomputes the failing item under fuse's evaluator to word its
// error.
func (k *FuncKernel) itemError(spaces []fuse.Space, pos uint64) error {
	params := itemParams(spaces, pos)
	_, err := k.f.NewState(nil).Eval(params)
	var fe *fuse.FlowError
	if errors.As(err, &fe) && fe.Check >= 0 && fe.Check < len(k.f.Checks) {
		return &fuse.ItemError{Index: pos, Params: params, Check: &k.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	if err != nil {
		return fmt.Errorf("gpu: item %d: %w", pos, err)
	}
	return errNotOnCPU(pos)
}
