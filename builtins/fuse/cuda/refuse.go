package cuda

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Refuses says why f cannot run on a GPU, before anything of CUDA is
// touched, or returns nil. A function whose helpers recurse (f.Procs)
// runs on the CPU: its calls are C calls (cgen.FuncC), up to f.MaxCalls()
// frames on each thread's stack, which CUDA keeps at 1 KiB by default and,
// once raised (cuCtxSetLimit), reserves for every thread the card holds at
// once; past it a thread faults and the context with it. Hand-written
// recursive CUDA lost to the CPU's cores on such a search besides.
func Refuses(f *fuse.Func) error {
	if len(f.Procs) > 0 {
		return fmt.Errorf("gpu: a fused function whose helpers recurse (up to %d calls deep) runs on the CPU: a GPU thread's stack cannot hold the calls", f.MaxCalls())
	}
	return nil
}
