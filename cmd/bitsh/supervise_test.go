package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bitsh/bitsh/cmd/bitsh/internal/autopsy"
)

// crashTestEnv, in the test binary only, makes the process that does the
// command's work (the child, under the supervisor) die of a real Go fatal
// error before it starts: "stack"
// overflows the goroutine stack, "panic" panics unrecovered.
const crashTestEnv = "BITSH_TEST_CRASH"

// crashForTest crashes as crashTestEnv says (TestMain's bitsh command
// calls it first).
func crashForTest() {
	switch os.Getenv(crashTestEnv) {
	case "stack":
		debug.SetMaxStack(1 << 20) // overflow in a millisecond, not a GiB
		fmt.Println(recurse(0))
	case "panic":
		panic("bitsh test: an unrecovered panic")
	}
}

func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	return recurse(n+1) + int(pad[0])
}

// bitshRun runs bitsh with args and extra environment, and returns its
// process state and standard error.
func bitshRun(t *testing.T, env []string, args ...string) (*os.ProcessState, string) {
	t.Helper()
	cmd := exec.Command("bitsh", args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("bitsh %q did not run", args)
	}
	return cmd.ProcessState, stderr.String()
}

// TestFatalErrorStatus: a Go fatal error in the process that runs the
// command exits autopsy.ExitFatal with one line that says so, and keeps the
// report; without the supervisor it is Go's status 2.
func TestFatalErrorStatus(t *testing.T) {
	skipUnlessUnix(t)
	for _, c := range []struct{ crash, want, inReport string }{
		{"stack", "fatal error: stack overflow", "runtime.newstack"},
		{"panic", "panic: bitsh test: an unrecovered panic", "panic: bitsh test"},
	} {
		ps, stderr := bitshRun(t, []string{crashTestEnv + "=" + c.crash}, "-c", "pass")
		if ps.ExitCode() != autopsy.ExitFatal {
			t.Errorf("%s: exit status %d, want %d; stderr:\n%s", c.crash, ps.ExitCode(), autopsy.ExitFatal, tail(stderr))
		}
		last := lastLine(stderr)
		prefix := "bitsh: internal error (Go fatal error): " + c.want
		if !strings.HasPrefix(last, prefix) {
			t.Errorf("%s: last line of stderr %q, want it to start with %q", c.crash, last, prefix)
		}
		if _, file, ok := strings.Cut(last, "and in "); ok {
			file = strings.TrimSuffix(file, ")")
			data, err := os.ReadFile(file)
			if err != nil || !strings.Contains(string(data), c.inReport) || !strings.Contains(string(data), "goroutine 1 ") {
				t.Errorf("%s: report file %s: %v, %.200q", c.crash, file, err, data)
			}
			os.Remove(file)
		} else {
			t.Errorf("%s: the last line names no report file: %q", c.crash, last)
		}

		ps, stderr = bitshRun(t, []string{crashTestEnv + "=" + c.crash, autopsy.NoSupervisorEnv + "=1"}, "-c", "pass")
		if ps.ExitCode() != 2 || strings.Contains(stderr, "internal error") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s, %s=1: exit status %d, want Go's 2 and no parent's line; stderr:\n%s", c.crash, autopsy.NoSupervisorEnv, ps.ExitCode(), tail(stderr))
		}
	}
}

// TestSupervisedStatuses: the child's exit statuses pass through the
// parent, which adds nothing to standard error.
func TestSupervisedStatuses(t *testing.T) {
	skipUnlessUnix(t)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"-c", "print(1)"}, exitOK},
		{[]string{"-c", "fail('boom')"}, exitError},
		{[]string{"-c", "exit(7)"}, 7},
		{[]string{"-no-such-flag"}, exitUsage},
		{[]string{"merge"}, exitUsage},
	} {
		ps, stderr := bitshRun(t, nil, c.args...)
		if ps.ExitCode() != c.want || strings.Contains(stderr, "internal error") {
			t.Errorf("bitsh %q: exit status %d, want %d; stderr:\n%s", c.args, ps.ExitCode(), c.want, stderr)
		}
	}
}

// children returns the process ids of pid's children (of each of its
// threads: any of them may have started one).
func children(t *testing.T, pid int) []int {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil || len(files) == 0 {
		t.Skipf("cannot list children: %v", err)
	}
	var ids []int
	for _, file := range files {
		data, _ := os.ReadFile(file)
		for _, f := range strings.Fields(string(data)) {
			id, _ := strconv.Atoi(f)
			ids = append(ids, id)
		}
	}
	return ids
}

// startSpinning starts bitsh on an endless loop and returns it, once the
// loop runs, with the pid of the child that runs it.
func startSpinning(t *testing.T) (*exec.Cmd, int, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("bitsh", "-c", "print('ready')\nwhile True:\n    pass")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line == "ready\n"
		io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if kids := children(t, cmd.Process.Pid); ok && len(kids) == 1 {
			return cmd, kids[0], &stderr
		}
	case <-time.After(20 * time.Second):
	}
	for _, kid := range children(t, cmd.Process.Pid) {
		syscall.Kill(kid, syscall.SIGKILL)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("bitsh did not start one child running the loop; stderr:\n%s", stderr.String())
	return nil, 0, nil
}

// TestSupervisorSignals: SIGINT sent to the parent alone (no terminal)
// and SIGTERM reach the child; a child killed by a signal takes the
// parent with it, by the same signal; a goroutine dump asked for with
// SIGQUIT passes through as Go's status 2.
func TestSupervisorSignals(t *testing.T) {
	skipUnlessUnix(t)
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc")
	}
	for _, c := range []struct {
		name       string
		sig        syscall.Signal
		toChild    bool
		wantStatus int // when not killed
		wantSig    syscall.Signal
		wantStderr string // when not killed
	}{
		{"SIGINT to the parent", syscall.SIGINT, false, exitInterrupted, 0, "interrupted"},
		{"SIGTERM to the parent", syscall.SIGTERM, false, 0, syscall.SIGTERM, ""},
		{"SIGKILL to the child", syscall.SIGKILL, true, 0, syscall.SIGKILL, ""},
		// Go's goroutine dump, asked for: not an internal error.
		{"SIGQUIT to the child", syscall.SIGQUIT, true, 2, 0, "SIGQUIT: quit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, child, stderr := startSpinning(t)
			target := cmd.Process.Pid
			if c.toChild {
				target = child
			}
			if err := syscall.Kill(target, c.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case c.wantSig != 0 && (!ws.Signaled() || ws.Signal() != c.wantSig):
				t.Errorf("parent ended with %v, want killed by %v; stderr:\n%s", ws, c.wantSig, stderr)
			case c.wantSig == 0 && cmd.ProcessState.ExitCode() != c.wantStatus:
				t.Errorf("exit status %d, want %d; stderr:\n%s", cmd.ProcessState.ExitCode(), c.wantStatus, stderr)
			}
			if c.wantSig == 0 && (!strings.Contains(stderr.String(), c.wantStderr) || strings.Contains(stderr.String(), "internal error")) {
				t.Errorf("stderr lacks %q or reports an internal error:\n%.2000s", c.wantStderr, stderr)
			}
		})
	}
}

// TestOrphanDies: a parent killed by SIGKILL (timeout -s KILL, the OOM
// killer), which it cannot forward, takes the child with it; the child
// used to run on, reparented, at 100% CPU.
func TestOrphanDies(t *testing.T) {
	skipUnlessUnix(t)
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc")
	}
	t.Parallel()
	cmd, child, stderr := startSpinning(t)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not cmd.Wait, which waits for the child to close the pipes too.
	cmd.Process.Wait()
	// Dead: gone, or a zombie until its new parent reaps it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		_, after, _ := strings.Cut(string(stat), ") ")
		if err != nil || strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the child %d still runs 10 s after its parent was killed (state %.1s); stderr:\n%s", child, after, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
