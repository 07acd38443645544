//go:build !linux

package cuda

import (
	"context"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// FuncKernel is a compiled fused function with control flow; never made
// on this system.
type FuncKernel struct{}

// FuncKernel fails.
func (*Device) FuncKernel(*fuse.Func) (*FuncKernel, error) { return nil, errNoLinux }

// Run fails.
func (*FuncKernel) Run(context.Context, []fuse.Space, fuse.Method, fuse.Options) (*fuse.Result, error) {
	return nil, errNoLinux
}

// Close does nothing.
func (*FuncKernel) Close() {}

// CPURun runs a function over spaces on the CPU, as fuse.RunFunc does.
type CPURun func(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)

// HandBackTo does nothing.
func (*FuncKernel) HandBackTo(CPURun) {}

// Depth is 0.
func (*FuncKernel) Depth() int { return 0 }
