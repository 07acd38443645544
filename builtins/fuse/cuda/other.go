//go:build !linux

package cuda

import (
	"context"
	"errors"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Device is a GPU; on this system there is none (the loader supports Linux).
type Device struct{}

// Kernel is a compiled function; never made on this system.
type Kernel struct{}

var errNoLinux = errors.New("no GPU: the CUDA loader supports Linux only")

// Open reports that the loader needs Linux.
func Open() (*Device, error) { return nil, errNoLinux }

// Name is empty.
func (*Device) Name() string { return "" }

// Kernel fails.
func (*Device) Kernel(*fuse.Line) (*Kernel, error) { return nil, errNoLinux }

// Run fails.
func (*Kernel) Run(context.Context, []fuse.Space, fuse.Method, fuse.Options) (*fuse.Result, error) {
	return nil, errNoLinux
}
