package starlark

// bitsh fork: a program is compiled by Init, which gives up when its
// thread is cancelled.

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// elifChain is a file with an if/elif chain of n branches that sets y to
// x's branch.
func elifChain(n int) string {
	var b strings.Builder
	b.WriteString("x = 7\ny = -1\ndef f():\n    pass\nif x == -1:\n    y = -2\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "elif x == %d:\n    y = %d\n", i, i*3)
	}
	return b.String()
}

func TestInitStopsCompiling(t *testing.T) {
	opts := &syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}
	f, err := opts.Parse("chain.star", elifChain(5000), 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FileProgram(f, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	cancelled := new(Thread)
	cancelled.Cancel("stop")
	if _, err := prog.Init(cancelled, nil); err == nil || err.Error() != "Starlark computation cancelled: stop" {
		t.Fatalf("Init on a cancelled thread: err = %v; want Starlark computation cancelled: stop", err)
	}
	prog.mu.Lock()
	compiled := prog.compiled != nil
	prog.mu.Unlock()
	if compiled {
		t.Fatalf("Init on a cancelled thread compiled the program; want it to give up")
	}
	// Given up, the program still compiles and runs on another thread.
	globals, err := prog.Init(new(Thread), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := globals["y"]; got == nil || got.String() != "21" {
		t.Errorf("y = %v after the chain; want 21", got)
	}
	if n := prog.NumLoads(); n != 0 {
		t.Errorf("NumLoads = %d; want 0", n)
	}
}

// TestFileProgramLoadsBeforeInit: what a program says of itself before
// Init (its file, its loads) compiles it without a thread.
func TestFileProgramLoadsBeforeInit(t *testing.T) {
	f, err := syntax.LegacyFileOptions().Parse("loads.star", "load('a.star', 'x')\nload('b.star', 'y')\nz = x + y\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FileProgram(f, func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if got := prog.Filename(); got != "loads.star" {
		t.Errorf("Filename = %q; want loads.star", got)
	}
	if n := prog.NumLoads(); n != 2 {
		t.Fatalf("NumLoads = %d; want 2", n)
	}
	if name, _ := prog.Load(1); name != "b.star" {
		t.Errorf("Load(1) = %q; want b.star", name)
	}
}
