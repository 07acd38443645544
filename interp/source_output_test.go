package interp_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/interp"
)

// TestNULByteRefused: go.starlark.net's scanner takes a NUL byte for the
// end of the file, so the text after it would vanish without a word; a
// run, a load and an interactive input refuse it at its position (line,
// and column in runes, as go.starlark.net counts them).
func TestNULByteRefused(t *testing.T) {
	const want = "nul.star:2:11: a NUL byte (U+0000) in the source"
	src := "x = 1\nprint(\"é\")\x00print(2)\n"
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	if _, err := in.Exec(context.Background(), "nul.star", src); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Exec: %v; want %q", err, want)
	}
	if err := in.ExecInteractive(context.Background(), "nul.star", src, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ExecInteractive: %v; want %q", err, want)
	}
	fsys := fstest.MapFS{
		"main.star": {Data: []byte("load(\"nul.star\", \"x\")\nprint(x)\n")},
		"nul.star":  {Data: []byte(src)},
	}
	_, err := interp.New(interp.WithFS(fsys), interp.WithStdout(&out)).ExecFile(context.Background(), "main.star", nil)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a load: %v; want %q", err, want)
	}
	if out.Len() > 0 {
		t.Errorf("printed %q before the error; want nothing to run", out.String())
	}
	// CR LF and a lone CR end lines as go.starlark.net's scanner has them.
	for src, at := range map[string]string{"a = 1\r\nb = 2\r\n\x00": "3:1", "a = 1\rb\x00": "2:2", "\x00": "1:1"} {
		_, err := interp.New(interp.WithStdout(io.Discard)).Exec(context.Background(), "nul.star", src)
		if err == nil || !strings.HasPrefix(err.Error(), "nul.star:"+at+": ") {
			t.Errorf("%q: %v; want the error at %s", src, err, at)
		}
	}
}

// failingWriter fails every write, counting them.
type failingWriter struct{ writes *int }

func (w failingWriter) Write(p []byte) (int, error) {
	*w.writes++
	return 0, errors.New("no space left on device")
}

// TestPrintFailureStopsRun: a print whose output cannot be written stops
// the run with that error, as print raises in Python; the loop does not
// go on printing into the void.
func TestPrintFailureStopsRun(t *testing.T) {
	var writes int
	in := interp.New(interp.WithStdout(failingWriter{&writes}))
	_, err := in.Exec(context.Background(), "p.star", "for i in range(1000000):\n    print(i)\n")
	if err == nil || !strings.Contains(err.Error(), "print: no space left on device") {
		t.Errorf("Exec: %v; want the run stopped by print's error", err)
	}
	if writes != 1 {
		t.Errorf("%d writes; want the run stopped after the first failed one", writes)
	}
}

// TestPrintFailureStopsCode: a function running as machine code whose
// print cannot write stops there too, as the interpreter does (strict:
// the call waits for the code, and runs as code).
func TestPrintFailureStopsCode(t *testing.T) {
	var writes int
	in := interp.New(interp.WithStdout(failingWriter{&writes}), interp.WithNativeStrict(true), interp.WithNativeReport(io.Discard))
	src := "def loop(n):\n    t = 0\n    for i in range(n):\n        print(i)\n        t += i\n    return t\n\nloop(0)\nloop(100000000)\n"
	_, err := in.Exec(context.Background(), "p.star", src)
	if err == nil || !strings.Contains(err.Error(), "print: no space left on device") {
		t.Errorf("Exec: %v; want the run stopped by print's error", err)
	}
	if writes != 1 {
		t.Errorf("%d writes; want the run stopped after the first failed one", writes)
	}
	if fs := in.NativeReport(); native.Ready(native.AMD64) == nil && starlarkfork.InUse() && (len(fs) != 1 || fs[0].Code != 1 || fs[0].Interpreted != 1) {
		t.Errorf("the report: %+v; want loop(0) run as code, loop(100000000) by the interpreter once its code stopped", fs)
	}
}
