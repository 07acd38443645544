// Package engine chooses the engine that runs a fused function on the CPU,
// in one place for the binding (builtins/fuse.go) to call: the compiler
// (package compile) gives a function as a Func, and Func.StraightLine a
// Program where the Func is a straight line; the block executor (package
// block) runs a Program, package native a Func as x86-64 or WebAssembly
// machine code, or on the reference evaluator.
package engine

import (
	"fmt"
	"os"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
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
