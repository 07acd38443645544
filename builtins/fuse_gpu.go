package builtins

import (
	"context"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
)

// gpuRunner runs a compiled function on a GPU.
type gpuRunner interface {
	run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)
}

type cudaRunner struct{ k *cuda.Kernel }

func (r cudaRunner) run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return r.k.Run(ctx, spaces, method, opt)
}

// newGPURunner compiles p for the machine's GPU (loading the CUDA driver
// and NVRTC on first use), or says what it looked for.
func newGPURunner(p *fuse.Program) (gpuRunner, error) {
	dev, err := cuda.Open()
	if err != nil {
		return nil, err
	}
	k, err := dev.Kernel(p)
	if err != nil {
		return nil, err
	}
	return cudaRunner{k}, nil
}

type cudaFuncRunner struct{ k *cuda.FuncKernel }

func (r cudaFuncRunner) run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return r.k.Run(ctx, spaces, method, opt)
}

// newGPUFuncRunner compiles a function with control flow for the GPU and
// uploads its tables, or says what it looked for. A function the GPU
// refuses (its helpers recurse) is refused before the driver is loaded:
// device="auto" then costs no driver start-up for it.
func newGPUFuncRunner(f *fuse.Func) (gpuRunner, func(), error) {
	if err := cuda.Refuses(f); err != nil {
		return nil, nil, err
	}
	dev, err := cuda.Open()
	if err != nil {
		return nil, nil, err
	}
	k, err := dev.FuncKernel(f)
	if err != nil {
		return nil, nil, err
	}
	return cudaFuncRunner{k}, k.Close, nil
}

// gpuName returns the name of the usable GPU, or why there is none.
func gpuName() (string, error) {
	dev, err := cuda.Open()
	if err != nil {
		return "", err
	}
	return dev.Name(), nil
}
