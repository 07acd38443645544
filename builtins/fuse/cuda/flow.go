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
	dev   *Device
	f     *fuse.Func
	fn    uintptr
	tab   *buffer
	depth int // where f has Procs: the calls a thread of the card may nest (the depth cap)
	cpu   CPURun
}

// CPURun runs a function over spaces on the CPU, as fuse.RunFunc does: the
// items a GPU thread's stack cannot hold go there.
type CPURun func(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)

// FuncKernel generates CUDA C for f (cgen.FuncCUDASource), compiles it
// with NVRTC, loads it and uploads f's tables. Where f's helpers recurse,
// it raises the threads' stack for the calls (stackFor), and a run hands
// the items whose calls go deeper than that stack allows to the CPU.
func (dev *Device) FuncKernel(f *fuse.Func) (*FuncKernel, error) {
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
	if len(f.Procs) > 0 {
		if k.depth, err = dev.stackFor(fn, f); err != nil {
			return nil, err
		}
		tab[cgen.DepthCapAt(f)] = uint64(k.depth)
	}
	if k.tab, err = newBuffer(dev, uint64(len(tab))*8); err != nil {
		return nil, err
	}
	if err := k.tab.upload(tab); err != nil {
		k.tab.free()
		return nil, err
	}
	return k, nil
}

// HandBackTo makes run the CPU engine of the items the card leaves (their
// calls nest deeper than a thread's stack holds there); without it, fuse's
// evaluator runs them. Call it before Run.
func (k *FuncKernel) HandBackTo(run CPURun) { k.cpu = run }

// Depth is how deep the calls of a thread of the card may nest (0 where
// the function has no helpers that recurse): an item that goes deeper runs
// on the CPU.
func (k *FuncKernel) Depth() int { return k.depth }

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

// funcThreads is the number of threads of a block.
const funcThreads = 256

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
		grid = max(1, min(grid, MaxStateBytes/(funcThreads*words*8)))
		var err error
		if state, err = newBuffer(ops, grid*funcThreads*words*8); err != nil {
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
	spec := launchSpec{fn: k.fn, grid: uint32(grid), block: funcThreads,
		extra:      func() []uint64 { return []uint64{sp, tab} },
		firstSlice: 1 << 16, minSlice: 1 << 10, // items with loops: start small
		stoppable: true, itemError: k.itemError, deepArg: true}
	if len(k.f.Procs) > 0 && k.depth < k.f.MaxCalls() {
		spec.handBack = k.cpu
		if spec.handBack == nil {
			spec.handBack = k.evalRun
		}
		// Recursive items: a subtree each, of very different sizes.
		spec.firstSlice, spec.minSlice = 1<<12, 1<<6
	}
	if tune != nil {
		tune(&spec)
	}
	return runSlices(ctx, ops, spec, spaces, method, opt)
}

// evalRun runs the items handed back on fuse's evaluator, one after the
// other, with Map or First (the hand-back's methods) and RunFunc's errors.
func (k *FuncKernel) evalRun(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	st := k.f.NewState(func() bool { return ctx.Err() != nil })
	res := &fuse.Result{}
	for pos := uint64(0); pos < spaces[0].Len(); pos++ {
		params := itemParams(spaces, pos)
		v, err := st.Eval(params)
		if err != nil {
			if errors.Is(err, fuse.ErrStopped) {
				return nil, ctx.Err()
			}
			return nil, k.wordError(pos, params, err)
		}
		switch method {
		case fuse.Map:
			opt.Out[pos] = v
		case fuse.First:
			if v != 0 {
				res.Found, res.Index = true, pos
				return res, nil
			}
		default:
			return nil, fmt.Errorf("gpu: items handed back with method %d", method)
		}
	}
	return res, nil
}

// itemError recomputes the failing item under fuse's evaluator to word its
// error.
func (k *FuncKernel) itemError(spaces []fuse.Space, pos uint64) error {
	params := itemParams(spaces, pos)
	_, err := k.f.NewState(nil).Eval(params)
	if err == nil {
		return errNotOnCPU(pos)
	}
	return k.wordError(pos, params, err)
}

// wordError is the error of item pos (params) that Eval gave err.
func (k *FuncKernel) wordError(pos uint64, params []uint64, err error) error {
	var fe *fuse.FlowError
	if errors.As(err, &fe) && fe.Check >= 0 && fe.Check < len(k.f.Checks) {
		return &fuse.ItemError{Index: pos, Params: params, Check: &k.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	return fmt.Errorf("gpu: item %d: %w", pos, err)
}
