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
	"sync"
	"syscall"
	"testing"
	"time"
)

// numbers returns the lines "0\n" to "n-1\n", what print(i) for i in
// range(n) writes.
func numbers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintln(&b, i)
	}
	return b.String()
}

// TestBufferedOutputOrder: with standard output and error one pipe (as
// bitsh x.star > log 2>&1), everything printed comes out, before the
// error that ends the script, on every path that ends it.
func TestBufferedOutputOrder(t *testing.T) {
	const big = 30000 // more than one buffer
	for _, c := range []struct {
		name, code string
		printed    string // stdout's part, first
		status     int
		stderr     string // in the rest, after it
	}{
		{"end", "for i in range(3):\n    print(i)", numbers(3), 0, ""},
		{"error", "for i in range(3):\n    print(i)\nx = 1 // 0", numbers(3), 1, "division by zero"},
		{"fail", "for i in range(3):\n    print(i)\nfail('boom')", numbers(3), 1, "fail: boom"},
		{"partial line", "print(1)\nprint(2, end='')\nfail('boom')", "1\n2", 1, "Traceback"},
		{"exit", "for i in range(3):\n    print(i)\nexit(4)", numbers(3), 4, ""},
		{"big then error", fmt.Sprintf("for i in range(%d):\n    print(i)\nfail('boom')", big), numbers(big), 1, "fail: boom"},
		{"function as code", fmt.Sprintf("def f(n):\n    for i in range(n):\n        print(i)\n    return n // 0\nf(%d)", big), numbers(big), 1, "division by zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, interpret := range []bool{false, true} {
				args := []string{"-c", c.code}
				if interpret {
					args = []string{"-interpret", "-c", c.code}
				}
				cmd := exec.Command("bitsh", args...)
				var both bytes.Buffer
				cmd.Stdout, cmd.Stderr = &both, &both // one pipe
				cmd.Run()
				out := both.String()
				if got := cmd.ProcessState.ExitCode(); got != c.status {
					t.Errorf("interpret %v: exit status %d, want %d; output tail:\n%s", interpret, got, c.status, tail(out))
				}
				rest, ok := strings.CutPrefix(out, c.printed)
				if !ok {
					t.Errorf("interpret %v: output does not start with the %d bytes printed; tail:\n%s", interpret, len(c.printed), tail(out))
					continue
				}
				if !strings.Contains(rest, c.stderr) || (c.stderr == "" && rest != "") {
					t.Errorf("interpret %v: after the printed output %q, want %q", interpret, rest, c.stderr)
				}
			}
		})
	}
}

// TestBufferedOutputProgress: output printed by a script that then runs
// on comes out while it runs (the flush timer), not only at its end.
func TestBufferedOutputProgress(t *testing.T) {
	skipUnlessUnix(t)
	cmd := exec.Command("bitsh", "-c", "print('ready')\nwhile True:\n    pass")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(syscall.SIGTERM)
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if l != "ready\n" {
			t.Errorf("first line %q, want ready", l)
		}
	case <-time.After(20 * time.Second):
		t.Error("a script that printed and runs on showed nothing in 20 s")
	}
}

// TestBufferedOutputInterrupt: Ctrl-C (SIGINT) stops a script that
// printed and runs on: what it printed comes out whole, then the message,
// and the status is 130.
func TestBufferedOutputInterrupt(t *testing.T) {
	skipUnlessUnix(t)
	// 66,890 bytes: the first buffer comes out when it is full, and the
	// signal comes while the last lines are held (or the timer has
	// written them).
	const n = 13000
	cmd := exec.Command("bitsh", "-c", fmt.Sprintf("for i in range(%d):\n    print(i)\nwhile True:\n    pass", n))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	first := make([]byte, 60000)
	if _, err := io.ReadFull(pr, first); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(pr)
	cmd.Wait()
	out := string(first) + string(rest)
	if got := cmd.ProcessState.ExitCode(); got != exitInterrupted {
		t.Errorf("exit status %d, want %d; tail:\n%s", got, exitInterrupted, tail(out))
	}
	// Whole lines from 0 on, then the message; all n of them when the
	// signal came in the endless loop (line 3 or 4).
	k := 0
	for strings.HasPrefix(out, fmt.Sprintln(k)) {
		out = out[len(fmt.Sprintln(k)):]
		k++
	}
	if !strings.HasPrefix(out, "Traceback") || !strings.Contains(out, "interrupted") {
		t.Errorf("after %d whole lines, want the message; got:\n%s", k, tail(out))
	}
	for _, l := range strings.Split(out, "\n") {
		if _, err := strconv.Atoi(l); err == nil {
			t.Errorf("printed line %q after the message:\n%s", l, tail(out))
			break
		}
	}
	if (strings.Contains(out, "<command-line>:3:") || strings.Contains(out, "<command-line>:4:")) && k != n {
		t.Errorf("interrupted in the endless loop after %d lines of the %d printed:\n%s", k, n, tail(out))
	}
}

// TestBufferedOutputClosedPipe: standard output a pipe whose reader is
// gone. As before the buffer, SIGPIPE ends the command: status 141, as a
// shell reports a process it killed (docs/reliability.md). (A write that
// fails otherwise, to a full disk, exits 1: testdata/script/stdout_full.txtar.)
func TestBufferedOutputClosedPipe(t *testing.T) {
	skipUnlessUnix(t)
	for _, code := range []string{"print(1)", "for i in range(100000):\n    print(i)"} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr.Close()
		cmd := exec.Command("bitsh", "-c", code)
		cmd.Stdout = pw
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		pw.Close()
		if got, want := cmd.ProcessState.ExitCode(), 128+int(syscall.SIGPIPE); got != want {
			t.Errorf("%q: exit status %d (%v), want %d; stderr:\n%s", code, got, cmd.ProcessState, want, stderr.String())
		}
	}
}

// lockedBuffer is a bytes.Buffer for concurrent writers that counts its
// writes.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

// TestBufferedOutputConcurrent: writers at once (shards), the timer and
// Flush: every write comes out whole and once, in few writes (run it
// with -race).
func TestBufferedOutputConcurrent(t *testing.T) {
	var dst lockedBuffer
	b := newBufferedOutput(&dst)
	const writers, lines = 4, 5000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(b, "w%d line %d\n", w, i)
				if i%1000 == 0 {
					b.Flush()
				}
			}
		}()
	}
	wg.Wait()
	b.stop()
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(dst.b.String(), "\n"), "\n") {
		if seen[l] {
			t.Fatalf("line %q twice", l)
		}
		seen[l] = true
	}
	for w := range writers {
		for i := range lines {
			if l := fmt.Sprintf("w%d line %d", w, i); !seen[l] {
				t.Fatalf("line %q missing", l)
			}
		}
	}
	if dst.writes > writers*lines/10 {
		t.Errorf("%d writes for %d lines: not buffered", dst.writes, writers*lines)
	}
}

// failingWriter fails every write.
type failingWriter struct{ writes int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	return 0, syscall.ENOSPC
}

// TestBufferedOutputError: a failed flush fails the writes after it, as
// an unbuffered write would (print stops the run), and Flush reports it.
func TestBufferedOutputError(t *testing.T) {
	var dst failingWriter
	b := newBufferedOutput(&dst)
	if _, err := b.Write([]byte("x\n")); err != nil {
		t.Fatalf("a buffered write failed: %v", err)
	}
	if err := b.Flush(); err != syscall.ENOSPC {
		t.Fatalf("Flush = %v, want ENOSPC", err)
	}
	if _, err := b.Write([]byte("y\n")); err != syscall.ENOSPC {
		t.Errorf("a write after the failed flush: %v, want ENOSPC", err)
	}
	if _, err := b.Write(make([]byte, outBufBytes+1)); err != syscall.ENOSPC {
		t.Errorf("a big write after the failed flush: %v, want ENOSPC", err)
	}
	b.stop()
	if dst.writes != 1 {
		t.Errorf("%d writes reached the failing writer, want 1", dst.writes)
	}
}

// TestPrintFlush: print(..., flush=True) writes out what is buffered at
// once, here where the buffer would otherwise hold it for an hour.
func TestPrintFlush(t *testing.T) {
	skipUnlessUnix(t)
	cmd := exec.Command("bitsh", "-c", "print('a')\nprint('ready', end='!\\n', flush=True)\nwhile True:\n    pass")
	cmd.Env = append(os.Environ(), holdOutputTestEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(syscall.SIGTERM)
	got := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		a, _ := r.ReadString('\n')
		b, _ := r.ReadString('\n')
		got <- a + b
		io.Copy(io.Discard, out)
	}()
	select {
	case s := <-got:
		if s != "a\nready!\n" {
			t.Errorf("output %q, want a, ready!", s)
		}
	case <-time.After(20 * time.Second):
		t.Error("print(flush=True) wrote nothing in 20 s")
	}
}
