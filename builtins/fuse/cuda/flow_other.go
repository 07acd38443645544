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
