package machine

import (
	"context"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/native"
)

// identity returns f(x) = x as a straight line and as a Func.
func identity() (*fuse.Line, *fuse.Func) {
	b := fuse.NewBuilder(1)
	return b.Finish(b.Param(0)), &fuse.Func{Params: 1, Vars: 1, Body: []fuse.Stmt{{Kind: fuse.SReturn, X: &fuse.Expr{Op: fuse.OpVar, Check: -1}}}}
}

// TestChooseCPU: a straight line runs on the block executor unless it is
// x86-64 code; any other function as package native makes it.
func TestChooseCPU(t *testing.T) {
	prog, flow := identity()
	for _, c := range []struct {
		env        string
		prog       *fuse.Line
		flow       *fuse.Func
		wantBlock  bool
		wantEngine native.Engine
	}{
		// A straight line without a Func form, and one that the engine
		// would run as WebAssembly or on the evaluator, run on the block
		// executor.
		{"", prog, nil, true, 0},
		{"wasm", prog, flow, true, 0},
		{"eval", prog, flow, true, 0},
		// A function that is not a straight line runs as native makes it.
		{"wasm", nil, flow, false, native.WebAssembly},
		{"eval", nil, flow, false, native.Eval},
	} {
		t.Setenv("BITSH_FUSE_ENGINE", c.env)
		eng, err := chooseCPU("f", c.prog, c.flow, 0)
		if err != nil {
			t.Fatalf("%q: %v", c.env, err)
		}
		if c.wantBlock {
			if eng.Name() != "block" {
				t.Errorf("%q, straight line %v: runs as %v, want the block executor", c.env, c.prog != nil, eng.Name())
			} else if v, err := eng.Call(context.Background(), []uint64{7}); err != nil || v != 7 {
				t.Errorf("%q: the block executor gives %d, %v, want 7", c.env, v, err)
			}
			continue
		}
		if eng.Name() != c.wantEngine.String() {
			t.Errorf("%q: want native engine %v, got %v", c.env, c.wantEngine, eng.Name())
			continue
		}
		if v, err := eng.Call(context.Background(), []uint64{7}); err != nil || v != 7 {
			t.Errorf("%q: %s gives %d, %v, want 7", c.env, eng.Name(), v, err)
		}
		eng.(funcEngine).exe.Close()
	}
	// A straight line runs as machine code only where that is x86-64.
	t.Setenv("BITSH_FUSE_ENGINE", "")
	eng, err := chooseCPU("f", prog, flow, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fe, ok := eng.(funcEngine); ok {
		if fe.exe.Engine() != native.AMD64 {
			t.Errorf("a straight line runs as %v, want amd64 or the block executor", fe.exe.Engine())
		}
		fe.exe.Close()
	}
	// An unknown engine is an error for a straight line too, naming the
	// variable.
	t.Setenv("BITSH_FUSE_ENGINE", "gpu")
	if _, err := chooseCPU("f", prog, nil, 0); err == nil || !strings.HasPrefix(err.Error(), "BITSH_FUSE_ENGINE: no engine \"gpu\"") {
		t.Errorf("unknown engine: %v", err)
	}
}

// TestChooseGPU: on a GPU, a straight line runs as its own kernel and any
// other function as the Func's kernel, and both give f(x) = x.
func TestChooseGPU(t *testing.T) {
	if _, err := cuda.Open(); err != nil {
		t.Skipf("no GPU to test on: %v", err)
	}
	prog, flow := identity()
	space := []fuse.Space{fuse.Range{Start: 3, Step: 2, N: 1000}}
	for _, c := range []struct {
		prog     *fuse.Line
		wantFunc bool
	}{{prog, false}, {nil, true}} {
		g, err := chooseGPU(c.prog, flow, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (g.kernel != nil) == (g.fn != nil) || (g.fn != nil) != c.wantFunc {
			t.Fatalf("straight line %v: kernel %v, func kernel %v", c.prog != nil, g.kernel != nil, g.fn != nil)
		}
		res, err := g.Run(context.Background(), space, fuse.Sum, fuse.Options{Workers: 2, Limit: 1000})
		g.close()
		if err != nil {
			t.Fatal(err)
		}
		// 3 + 5 + … + 2001: 1000 terms averaging 1002.
		if res.SumHi != 0 || res.SumLo != 1002000 {
			t.Errorf("straight line %v: sum %d:%d, want 1002000", c.prog != nil, res.SumHi, res.SumLo)
		}
	}
}
