package compile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"
)

// TestThreadJumpsCompresses: threading a chain of empty blocks leaves each
// of them jumping straight to the block with instructions, so that the
// jumps into a chain of n nested blocks are threaded in O(n) steps (bitsh
// fork: an if/elif chain of 40,000 branches took seconds to compile).
func TestThreadJumpsCompresses(t *testing.T) {
	target := &block{insns: []insn{{op: RETURN}}}
	chain := make([]*block, 1000)
	next := target
	for i := len(chain) - 1; i >= 0; i-- {
		chain[i] = &block{jmp: next}
		next = chain[i]
	}
	if got := threadJumps(chain[0]); got != target {
		t.Fatalf("threadJumps of a chain of empty blocks = %p; want the block with instructions %p", got, target)
	}
	for i, b := range chain {
		if b.jmp != target {
			t.Fatalf("after threadJumps, empty block %d of %d jumps to %p; want the block with instructions %p", i, len(chain), b.jmp, target)
		}
	}
	if got := threadJumps(target); got != target {
		t.Errorf("threadJumps of a block with instructions = %p; want itself", got)
	}
}

// TestFileStop: FileStop calls stop every stopEvery statements and gives
// up when it says so; without stop it compiles as File.
func TestFileStop(t *testing.T) {
	var b strings.Builder
	b.WriteString("if x == -1:\n    y = -2\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "elif x == %d:\n    y = %d\n", i, i)
	}
	f, err := (&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}).Parse("chain.star", b.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := resolve.File(f, func(string) bool { return true }, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	module := f.Module.(*resolve.Module)
	calls := 0
	prog, stopped := FileStop(f.Options, f.Stmts, syntax.Start(f.Stmts[0]), "<toplevel>", module.Locals, module.Globals, func() bool {
		calls++
		return calls == 3
	})
	if !stopped || prog != nil || calls != 3 {
		t.Errorf("FileStop with stop true at its third call: prog %v, stopped %v after %d calls; want nil, true, 3", prog, stopped, calls)
	}
	calls = 0
	prog, stopped = FileStop(f.Options, f.Stmts, syntax.Start(f.Stmts[0]), "<toplevel>", module.Locals, module.Globals, func() bool {
		calls++
		return false
	})
	if stopped || prog == nil || calls != 4002/stopEvery {
		t.Errorf("FileStop with stop false: stopped %v after %d calls; want false after %d (2 statements a branch)", stopped, calls, 4002/stopEvery)
	}
	want := File(f.Options, f.Stmts, syntax.Start(f.Stmts[0]), "<toplevel>", module.Locals, module.Globals).Encode()
	if got := prog.Encode(); !bytes.Equal(got, want) {
		t.Errorf("FileStop's code differs from File's")
	}
}
