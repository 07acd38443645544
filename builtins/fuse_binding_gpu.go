package builtins

import (
	"context"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/engine"
)

// gpuRunner runs a compiled function on a GPU.
type gpuRunner interface {
	run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)
}

// cudaRunner is a function compiled for the GPU by engine.ChooseGPU.
type cudaRunner struct{ g engine.GPU }

func (r cudaRunner) run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return r.g.Run(ctx, spaces, method, opt)
}

// gpuName returns the name of the usable GPU, or why there is none.
func gpuName() (string, error) {
	dev, err := cuda.Open()
	if err != nil {
		return "", err
	}
	return dev.Name(), nil
}
