package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/bitsh/bitsh/internal/testscale"
)

// In the REPL, a run that ignores Ctrl-C for a second gets the hard stop's
// offer; a second Ctrl-C leaves bitsh with status 130.
func TestREPLHardStop(t *testing.T) {
	if testscale.Short() {
		t.Skip("waits for the hard stop's second")
	}
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	// Four million digits take tens of seconds in go.starlark.net's int().
	s.send("digits = '9' * 4000000\r")
	s.expect(primary)
	s.send("print('st' + 'uck'); x = int(digits)\r")
	s.expect("stuck")
	// Let the run reach int(): on a loaded machine the Ctrl-C could
	// otherwise land between print and int, where the next step stops.
	time.Sleep(300 * time.Millisecond)
	s.send("\x03")
	s.expect("did not stop within 1s")
	s.expect("Press Ctrl-C again to leave bitsh")
	s.send("\x03")
	select {
	case err := <-s.done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Fatalf("bitsh exited with %v, want status %d; output:\n%q", err, exitInterrupted, s.all.String())
		}
	case <-time.After(wait):
		t.Fatalf("bitsh did not leave on the second Ctrl-C; output:\n%q", s.all.String())
	}
}
