package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestStdinTimeout: the timeout applies to reading standard input, also
// while a read waits on a pipe that never delivers: exit 1, with the
// cause, instead of waiting for the writer.
func TestStdinTimeout(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-timeout", "100ms"}, r, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "reading <stdin>: timeout after 100ms") {
		t.Errorf("status %d, stderr %q; want 1 and the timeout", code, stderr.String())
	}
}
