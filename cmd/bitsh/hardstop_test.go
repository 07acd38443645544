package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// stuckCode runs a builtin of go.starlark.net that polls nothing for a
// few seconds: converting a million decimal digits.
const stuckCode = `x = int("9" * 1000000)`

// bitshProcess runs bitsh (the test binary, on $PATH by TestMain) with
// args; when interrupt > 0 it sends SIGINT that long after the script's
// first line of output (a script that is interrupted prints one as it
// starts: the process handles SIGINT from then on). It returns the exit
// status, stderr and the time from the signal (or start) to exit.
func bitshProcess(t *testing.T, interrupt time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command("bitsh", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		r := bufio.NewReader(out)
		r.ReadString('\n')
		close(started)
		io.Copy(io.Discard, r)
	}()
	start := time.Now()
	if interrupt > 0 {
		<-started
		time.Sleep(interrupt)
		start = time.Now()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), stderr.String(), time.Since(start)
}

func skipUnlessUnix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGINT")
	}
}

// Ctrl-C in a script: status 130, and the call stack on stderr.
func TestInterruptScript(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	code, stderr, took := bitshProcess(t, 500*time.Millisecond, "-c", "print('started')\ndef spin():\n    while True:\n        pass\nspin()")
	t.Logf("stopped %v after SIGINT", took)
	if code != exitInterrupted {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	for _, want := range []string{"interrupted", "in spin", "<command-line>:5:5: in <toplevel>"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// Ctrl-C under -j 256 of endless loops: status 130, the interrupted
// shard's error, no hard stop (it used to take 3.5 s: the goroutines that
// deliver the signal waited behind 256 busy ones; reliability.md).
func TestInterruptJobs(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	code, stderr, took := bitshProcess(t, 200*time.Millisecond, "-j", "256", "-c", "print('started')\nwhile True:\n    pass")
	t.Logf("stopped %v after SIGINT", took)
	if code != exitInterrupted {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if !strings.Contains(stderr, "interrupted") || strings.Contains(stderr, "did not stop") {
		t.Errorf("stderr lacks interrupted or reports a hard stop:\n%s", stderr)
	}
}

// A timeout that a non-polling builtin ignores ends in the hard stop,
// status 1, about a second after the deadline instead of seconds later.
func TestHardStopAfterTimeout(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	code, stderr, took := bitshProcess(t, 0, "-max-memory", "0", "-timeout", "100ms", "-c", stuckCode)
	t.Logf("exited %v after start (timeout 100ms, grace %v)", took, hardStopGrace)
	if strings.Contains(stderr, "did not stop") {
		if code != exitError {
			t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitError, stderr)
		}
		if !strings.Contains(stderr, "timeout after 100ms") {
			t.Errorf("stderr does not give the cause:\n%s", stderr)
		}
	} else if code != exitError || !strings.Contains(stderr, "timeout after 100ms") {
		// A fast machine may finish the conversion within the grace.
		t.Errorf("exit status %d, stderr:\n%s", code, stderr)
	}
}

// Ctrl-C during a non-polling builtin: the hard stop with status 130.
func TestHardStopAfterInterrupt(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	code, stderr, took := bitshProcess(t, 300*time.Millisecond, "-max-memory", "0", "-c", "print('started')\n"+stuckCode)
	t.Logf("exited %v after SIGINT", took)
	if code != exitInterrupted {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	if !strings.Contains(stderr, "interrupted") {
		t.Errorf("stderr lacks interrupted:\n%s", stderr)
	}
}

// bitsh's own collectors and the guarded repetition poll the context:
// these end with the timeout's error, not the hard stop.
func TestCollectorsHonourTimeout(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	for _, src := range []string{
		"x = list(range(100000000))",
		"x = sorted(range(100000000))",
		"x = tuple(range(100000000))",
		"x = [0] * 100000000",
	} {
		code, stderr, took := bitshProcess(t, 0, "-max-memory", "0", "-timeout", "200ms", "-c", src)
		t.Logf("%s: exit %d after %v (timeout 200ms)", src, code, took)
		if code != exitError || !strings.Contains(stderr, "timeout after 200ms") || strings.Contains(stderr, "did not stop") {
			t.Errorf("%s: exit %d, stderr:\n%s", src, code, stderr)
		}
	}
}
