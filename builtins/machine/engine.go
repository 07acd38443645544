package machine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
)

// An Engine runs a compiled fused function over spaces of items: the block
// executor (a straight line over blocks of items), x86-64 or WebAssembly
// machine code or the reference evaluator (package native), or a kernel on
// an NVIDIA GPU (package cuda).
type Engine interface {
	// Run runs the function over the spaces as fuse.RunSpaces does.
	Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)
	// Name names the engine: "block", "amd64", "wasm", "eval" or "gpu".
	Name() string
}

// A CPUEngine is an Engine of the CPU, which also runs a single call.
type CPUEngine interface {
	Engine
	// Call runs the function on one item's words. A failing check is a
	// *fuse.ItemError; a cancelled run, ctx's error.
	Call(ctx context.Context, ws []uint64) (uint64, error)
}

// lineEngine is a straight line on the block executor.
type lineEngine struct{ x *block.Executor }

func (e lineEngine) Name() string { return "block" }

func (e lineEngine) Call(_ context.Context, ws []uint64) (uint64, error) { return e.x.Call(ws) }

func (e lineEngine) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return e.x.Run(ctx, spaces, method, opt)
}

// funcEngine is a Func as package native made it, its workers kept
// between runs. A new worker's memory, outside Go's heap, must fit in the
// memory budget limit (0: none) beside the heap and everything else held
// outside it: every worker of every function of the process
// (memory.InUse).
type funcEngine struct {
	f     *fuse.Func
	exe   *native.Executable
	pool  *Pool[native.Worker]
	limit int64
}

func (e funcEngine) Name() string { return e.exe.Engine().String() }

// worker returns an idle worker reset for a run polling poll, or a new one.
func (e funcEngine) worker(poll func() bool) (fuse.FlowWorker, error) {
	if w := e.pool.Get(); w != nil {
		w.Reset(poll)
		return pooled{w, e.pool}, nil
	}
	if e.limit > 0 {
		// A budget of its own: workers are made on several goroutines,
		// and a fresh budget reads the heap (no allowance to share).
		b := memory.NewBudget(e.limit)
		if err := b.Check("fuse: a worker", int64(e.exe.MemoryBytes())); err != nil {
			return nil, err
		}
	}
	w, err := e.exe.NewWorker(poll)
	if err != nil {
		return nil, err
	}
	return pooled{w, e.pool}, nil
}

// pooled is a worker that goes back to its pool when the run closes it.
type pooled struct {
	*native.Worker
	pool *Pool[native.Worker]
}

func (w pooled) Close() { w.pool.Put(w.Worker) }

// Call runs one call: as machine code on a pooled worker where the x86-64
// engine compiled the function (a worker costs little to make, and a call
// may be a whole search), else on the evaluator, which needs no worker.
func (e funcEngine) Call(ctx context.Context, ws []uint64) (uint64, error) {
	poll := func() bool { return ctx.Err() != nil }
	var v uint64
	var err error
	if e.exe.Engine() == native.AMD64 {
		v, err = e.callWorker(poll, ws)
	} else {
		v, err = e.f.NewState(poll).Eval(ws)
	}
	var fe *fuse.FlowError
	if errors.As(err, &fe) {
		return 0, &fuse.ItemError{Params: ws, Check: &e.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	if errors.Is(err, fuse.ErrStopped) {
		return 0, ctx.Err()
	}
	return v, err
}

func (e funcEngine) callWorker(poll func() bool, ws []uint64) (uint64, error) {
	w, err := e.worker(poll)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	for i, x := range ws {
		w.Params(i)[0] = x
	}
	_, res, err := w.Run(1, false)
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

func (e funcEngine) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return fuse.RunFunc(ctx, e.f, spaces, method, opt, native.Batch, e.worker)
}

// close closes the idle workers (the function is gone).
func (e funcEngine) close() { e.pool.Drain((*native.Worker).Close) }

// chooseCPU picks the CPU engine of the function name, compiled as line (a
// straight line; nil where the body is not one) and f (nil where the
// function has no Func form; then line is set). A straight line runs as
// x86-64 code where the engine of BITSH_FUSE_ENGINE (native.Compile) makes
// that, else on the block executor, which runs it faster than WebAssembly
// does; any other function runs as native makes it. An unknown
// BITSH_FUSE_ENGINE is an error even for a straight line, not a silent
// fallback. The errors name the variable or the function.
func chooseCPU(name string, line *fuse.Line, f *fuse.Func, limit int64) (CPUEngine, error) {
	if _, err := native.EngineNamed(os.Getenv("BITSH_FUSE_ENGINE")); err != nil {
		return nil, fmt.Errorf("BITSH_FUSE_ENGINE: %w", err)
	}
	if f == nil {
		return lineEngine{block.New(line)}, nil
	}
	exe, err := native.Compile(f)
	switch {
	case line != nil && (err != nil || exe.Engine() != native.AMD64):
		if err == nil {
			exe.Close()
		}
		return lineEngine{block.New(line)}, nil
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return funcEngine{f: f, exe: exe, pool: new(Pool[native.Worker]), limit: limit}, nil
}

// gpuEngine is a function compiled for the GPU: exactly one field is set.
type gpuEngine struct {
	kernel *cuda.Kernel     // a straight line's kernel (it needs no loops)
	fn     *cuda.FuncKernel // the Func's kernel, its tables on the device
}

func (g gpuEngine) Name() string { return "gpu" }

// Run runs the kernel over the spaces; see cuda.Kernel.Run.
func (g gpuEngine) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	if g.fn != nil {
		return g.fn.Run(ctx, spaces, method, opt)
	}
	return g.kernel.Run(ctx, spaces, method, opt)
}

// close releases what the device keeps for the function (a Func's
// tables); a straight line's kernel keeps nothing of its own.
func (g gpuEngine) close() {
	if g.fn != nil {
		g.fn.Close()
	}
}

// chooseGPU opens the GPU and compiles the function for it, or takes the
// kernel from the kernel cache: line and f are as for chooseCPU. A
// straight line runs as its own kernel; any other function as the Func's
// kernel, whose tables stay on the device until close. Where the Func's
// helpers recurse, the items whose calls nest deeper than a thread's stack
// holds on the card are handed back to cpu (the Func's CPU engine; nil:
// fuse's evaluator), so that the answers and errors are the CPU's.
func chooseGPU(line *fuse.Line, f *fuse.Func, cpu cuda.CPURun) (gpuEngine, error) {
	dev, err := cuda.Open()
	if err != nil {
		return gpuEngine{}, err
	}
	if line != nil {
		k, err := dev.Kernel(line)
		if err != nil {
			return gpuEngine{}, err
		}
		return gpuEngine{kernel: k}, nil
	}
	k, err := dev.FuncKernel(f)
	if err != nil {
		return gpuEngine{}, err
	}
	if cpu != nil {
		k.HandBackTo(cpu)
	}
	return gpuEngine{fn: k}, nil
}

// GPUName returns the name of the usable GPU, or why there is none.
func GPUName() (string, error) {
	dev, err := cuda.Open()
	if err != nil {
		return "", err
	}
	return dev.Name(), nil
}

// BlockEngine is the block executor's engine for a straight line, which
// runs line where the x86-64 generator does not compile it (a test checks
// it beside the machine code of the same line).
func BlockEngine(line *fuse.Line) CPUEngine { return lineEngine{block.New(line)} }
