//go:build linux && cgo

// The buffer shared with the supervising parent: Linux builds with cgo
// (cmd/bitsh/internal/autopsy/fork_linux.go).

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTicks returns the CPU time pid has used, in clock ticks.
func cpuTicks(t *testing.T, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(data), ") ")
	f := strings.Fields(after) // from field 3, the state
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return utime + stime
}

// TestBufferedOutputAfterDeath: output still held in the buffer when the
// process that runs the script dies of a signal or of a Go fatal error
// comes out all the same: the supervising parent writes it.
func TestBufferedOutputAfterDeath(t *testing.T) {
	skipUnlessUnix(t)
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc")
	}
	// A first line longer than the buffer goes out at once and says the
	// script runs; the next 100 are held (for an hour) while it spins.
	long := strings.Repeat("x", outBufBytes-1) // with its newline, one direct write
	code := fmt.Sprintf("print(%q)\nfor i in range(100):\n    print(i)\nwhile True:\n    pass", long)
	for _, c := range []struct {
		name    string
		sig     syscall.Signal
		toChild bool
		status  int            // exit status, when not killed
		killed  syscall.Signal // the parent's end, when killed
		stderr  string
	}{
		{"SIGKILL to the child", syscall.SIGKILL, true, 0, syscall.SIGKILL, ""},
		{"SIGTERM to the parent", syscall.SIGTERM, false, 0, syscall.SIGTERM, ""},
		{"a Go fatal error", syscall.SIGSEGV, true, 3, 0, "internal error (Go fatal error)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("bitsh", "-c", code)
			cmd.Env = append(os.Environ(), holdOutputTestEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// A parent killed takes the child with it: no test hangs.
			defer time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }).Stop()
			r := bufio.NewReaderSize(out, 2*outBufBytes)
			first, err := r.ReadString('\n')
			if err != nil || first != long+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("first line: %d bytes, %v; stderr:\n%s", len(first), err, tail(stderr.String()))
			}
			kids := children(t, cmd.Process.Pid)
			if len(kids) != 1 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("children %v, want one", kids)
			}
			// Past the prints: the child has spun for 200 ms of CPU since.
			for start := cpuTicks(t, kids[0]); cpuTicks(t, kids[0]) < start+20; {
				time.Sleep(10 * time.Millisecond)
			}
			target := cmd.Process.Pid
			if c.toChild {
				target = kids[0]
			}
			if err := syscall.Kill(target, c.sig); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(r)
			cmd.Wait()
			if string(rest) != numbers(100) {
				t.Errorf("after the first line %q, want the 100 lines held", tail(string(rest)))
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case c.killed != 0 && (!ws.Signaled() || ws.Signal() != c.killed):
				t.Errorf("parent ended with %v, want killed by %v; stderr:\n%s", ws, c.killed, tail(stderr.String()))
			case c.killed == 0 && ws.ExitStatus() != c.status:
				t.Errorf("exit status %v, want %d; stderr:\n%s", ws, c.status, tail(stderr.String()))
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, tail(stderr.String()))
			}
		})
	}
}
