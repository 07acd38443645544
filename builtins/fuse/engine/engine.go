// Package engine chooses the engine that runs a fused function, on the CPU
// (ChooseCPU) and on the GPU (ChooseGPU), in one place for the binding
// (builtins/fuse_binding.go) to call: the compiler (package compile) gives a
// function as a Func, and Func.StraightLine a Program where the Func is a
// straight line; the block executor (package block) runs a Program,
// package native a Func as x86-64 or WebAssembly machine code, or on the
// reference evaluator, and package cuda either on an NVIDIA GPU.
package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// CPU is a fused function ready for the CPU: exactly one field is set.
type CPU struct {
	Block  *block.Executor // a straight line on the block executor
	Native *native.Program // the Func as machine code (or on the evaluator)
}

// ChooseCPU picks the CPU engine of the function name, compiled as prog (a
// straight line; nil where the body is not one) and flow (nil where the
// function has no Func form; then prog is set). A straight line runs as
// x86-64 code where the engine of BITSH_FUSE_ENGINE (native.Compile) makes
// that, else on the block executor, which runs it faster than WebAssembly
// does; any other function runs as native makes it. An unknown
// BITSH_FUSE_ENGINE is an error even for a straight line, not a silent
// fallback. The errors name the variable or the function.
func ChooseCPU(name string, prog *fuse.Program, flow *fuse.Func) (CPU, error) {
	if _, err := native.EngineNamed(os.Getenv("BITSH_FUSE_ENGINE")); err != nil {
		return CPU{}, fmt.Errorf("BITSH_FUSE_ENGINE: %w", err)
	}
	if flow == nil {
		return CPU{Block: block.New(prog)}, nil
	}
	p, err := native.Compile(flow)
	switch {
	case prog != nil && (err != nil || p.Engine() != native.AMD64):
		if err == nil {
			p.Close()
		}
		return CPU{Block: block.New(prog)}, nil
	case err != nil:
		return CPU{}, fmt.Errorf("%s: %w", name, err)
	}
	return CPU{Native: p}, nil
}

// GPU is a fused function ready for the GPU: exactly one field is set.
type GPU struct {
	Kernel *cuda.Kernel     // a straight line's kernel (it needs no loops)
	Func   *cuda.FuncKernel // the Func's kernel, its tables on the device
}

// ChooseGPU opens the GPU and compiles the function for it, or takes the
// kernel from the kernel cache: prog and flow are as for ChooseCPU. A
// straight line runs as its own kernel; any other function as the Func's
// kernel, whose tables stay on the device until Close. Where the Func's
// helpers recurse, the items whose calls nest deeper than a thread's stack
// holds on the card are handed back to cpu (the Func's CPU engine, as
// ChooseCPU chose it; nil: fuse's evaluator), so that the answers and
// errors are the CPU's.
func ChooseGPU(prog *fuse.Program, flow *fuse.Func, cpu cuda.CPURun) (GPU, error) {
	dev, err := cuda.Open()
	if err != nil {
		return GPU{}, err
	}
	if prog != nil {
		k, err := dev.Kernel(prog)
		if err != nil {
			return GPU{}, err
		}
		return GPU{Kernel: k}, nil
	}
	k, err := dev.FuncKernel(flow)
	if err != nil {
		return GPU{}, err
	}
	if cpu != nil {
		k.HandBackTo(cpu)
	}
	return GPU{Func: k}, nil
}

// Run runs the kernel over the spaces; see cuda.Kernel.Run.
func (g GPU) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	if g.Func != nil {
		return g.Func.Run(ctx, spaces, method, opt)
	}
	return g.Kernel.Run(ctx, spaces, method, opt)
}

// Close releases what the device keeps for the function (a Func's
// tables); a straight line's kernel keeps nothing of its own.
func (g GPU) Close() {
	if g.Func != nil {
		g.Func.Close()
	}
}
