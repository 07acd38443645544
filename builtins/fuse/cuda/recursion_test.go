//go:build linux

package cuda_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
)

// TestFuncKernelRefusesRecursion: a function whose helpers recurse is
// refused before anything of CUDA is touched (so on any machine), with an
// error that says it runs on the CPU, rather than overflowing a thread's
// stack on the card.
func TestFuncKernelRefusesRecursion(t *testing.T) {
	v0 := &fuse.Expr{Op: fuse.OpVar, Check: -1}
	f := &fuse.Func{Params: 1, Vars: 1, Checks: []fuse.Check{{Kind: fuse.CheckDepth, Msg: "depth"}},
		Procs: []fuse.Proc{{Name: "g", Params: 1, Vars: 1, Body: []fuse.Stmt{{Kind: fuse.SReturn, X: v0}}}},
		Body:  []fuse.Stmt{{Kind: fuse.SReturn, X: &fuse.Expr{Op: fuse.OpCall, Args: []*fuse.Expr{v0}, Check: 0}}}}
	k, err := (&cuda.Device{}).FuncKernel(f)
	if err == nil || k != nil || !strings.Contains(err.Error(), "runs on the CPU") {
		t.Fatalf("FuncKernel of a function with helpers that recurse: %v, %v", k, err)
	}
}
