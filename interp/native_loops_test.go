package interp_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// forkOffersLoops reports whether go.starlark.net offers a hot loop of
// top-level code to a native loop hook (bitsh's fork does).
func forkOffersLoops() bool {
	offered := false
	thread := &starlark.Thread{}
	thread.SetLocal("go.starlark.net/native", func(*starlark.Thread, *starlark.Function, starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
		return nil
	})
	thread.SetLocal("go.starlark.net/native.loop", func(*starlark.Thread, *starlark.Function, syntax.Position, []string) func(*starlark.Thread, []starlark.Value, starlark.Tuple) (bool, int) {
		offered = true
		return nil
	})
	const src = "i = 0\nwhile i < 2000:\n    i += 1\n"
	if _, err := starlark.ExecFileOptions(interp.FileOptions(), thread, "probe.star", src, nil); err != nil {
		return false
	}
	return offered
}

// TestNativeLoopSession: a loop typed in a session (the REPL, a notebook)
// runs as code, on the globals of the inputs before it, and leaves the
// interpreter's globals.
func TestNativeLoopSession(t *testing.T) {
	starlarkfork.Require(t, "the native loop hook", forkOffersLoops())
	inputs := []string{"n = 0\ni = 0", "while i < 5000:\n    n += i * i\n    i += 1\n", "for j in range(i, -1, -3):\n    n ^= j\n"}
	run := func(opts ...interp.Option) (starlark.StringDict, []string) {
		in := interp.New(append(opts, interp.WithStdout(io.Discard))...)
		for k, src := range inputs {
			// Each input under a name of its own, as the REPL runs them.
			if err := in.ExecInteractive(context.Background(), fmt.Sprintf("<stdin:%d>", k+1), src, nil); err != nil {
				t.Fatal(backtrace(err))
			}
		}
		var loops []string
		for _, f := range in.NativeReport() {
			if f.Loop && f.Code > 0 {
				loops = append(loops, f.Position)
			}
		}
		return in.Globals(), loops
	}
	want, _ := run(interp.WithInterpreted(true))
	got, loops := run(interp.WithNativeStrict(true), interp.WithNativeReport(io.Discard))
	for _, name := range []string{"n", "i", "j"} {
		if got[name].String() != want[name].String() {
			t.Errorf("%s = %s as code, %s interpreted", name, got[name], want[name])
		}
	}
	if len(loops) != 2 {
		t.Errorf("loops run as code: %v, want both", loops)
	}
}
