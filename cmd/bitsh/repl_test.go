package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// wait is how long a pty test waits for any one expected output: generous,
// since the machine may be busy; a passing test never waits that long.
const wait = 30 * time.Second

// Fresh prompts as readline draws them on an empty line: the prompt, then
// " \b" (readline redraws the whole line after each key, so a bare ">>> "
// would also match the echo of a line being typed).
const (
	primary      = ">>>  \b"
	continuation = "...  \b"
)

// session is a bitsh REPL running on a pseudo-terminal.
type session struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File // the pty's controlling side
	out  chan []byte
	seen bytes.Buffer // output not yet matched by expect
	all  bytes.Buffer // everything, for failure messages
	done chan error
}

// startREPL runs bitsh (the test binary, which testscript.Main put on
// $PATH) on a new pty with BITSH_HISTORY set to history.
func startREPL(t *testing.T, history string) *session {
	t.Helper()
	bin, err := exec.LookPath("bitsh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "BITSH_HISTORY="+history, "TERM=xterm")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{t: t, cmd: cmd, tty: tty, out: make(chan []byte, 64), done: make(chan error, 1)}
	go func() {
		defer close(s.out)
		for {
			buf := make([]byte, 4096)
			n, err := tty.Read(buf)
			if n > 0 {
				s.out <- buf[:n]
			}
			if err != nil {
				return // EIO once the process has exited
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
		tty.Close()
	})
	s.expect("help() lists the builtins")
	s.expect(primary)
	return s
}

// expect waits until the output since the last match contains want, and
// consumes the output up to the end of the match.
func (s *session) expect(want string) {
	s.t.Helper()
	deadline := time.After(wait)
	for {
		if i := bytes.Index(s.seen.Bytes(), []byte(want)); i >= 0 {
			s.seen.Next(i + len(want))
			return
		}
		select {
		case b, ok := <-s.out:
			if !ok {
				s.t.Fatalf("output ended before %q; all output:\n%q", want, s.all.String())
			}
			s.seen.Write(b)
			s.all.Write(b)
		case <-deadline:
			s.t.Fatalf("no %q within %v; all output:\n%q", want, wait, s.all.String())
		}
	}
}

// send types text on the terminal.
func (s *session) send(text string) {
	s.t.Helper()
	if _, err := s.tty.WriteString(text); err != nil {
		s.t.Fatal(err)
	}
}

// exit sends Ctrl-D and checks that bitsh exits with status 0.
func (s *session) exit() {
	s.t.Helper()
	s.send("\x04")
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Fatalf("bitsh exited with %v; all output:\n%q", err, s.all.String())
		}
	case <-time.After(wait):
		s.t.Fatalf("bitsh did not exit on Ctrl-D within %v; all output:\n%q", wait, s.all.String())
	}
}

func TestREPLExpressionAndExit(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("x = 0xff\r")
	s.expect(primary)
	s.send("popcount(x) * 111\r")
	s.expect("888\r\n")
	s.expect(primary)
	s.send("None\r") // None is not printed
	s.expect(primary)
	s.send("hex(x)\r") // values print as repr
	s.expect("\"0xff\"\r\n")
	s.expect(primary)
	s.exit()
}

func TestREPLCompletion(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("popc\t")
	s.expect("popcount")
	s.send("(7) * 1001\r")
	s.expect("3003\r\n")
	s.expect(primary)
	// Attributes after a dot.
	s.send("math.sq\t")
	s.expect("math.sqrt")
	s.send("(4.0) * 7\r")
	s.expect("14.0\r\n")
	s.expect(primary)
	s.exit()
}

func TestREPLMultiLine(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("def sq(x):\r")
	s.expect(continuation)
	s.send("    return x * x\r")
	s.expect(continuation)
	s.send("\r") // a blank line ends the block
	s.expect(primary)
	s.send("sq(12)\r")
	s.expect("144\r\n")
	s.expect(primary)
	// An error is printed and the session goes on.
	s.send("sq(None)\r")
	s.expect("<stdin:3>:1:3: in ")
	s.expect("unknown binary op: NoneType * NoneType")
	s.expect(primary)
	s.send("sq(5)\r")
	s.expect("25\r\n")
	s.expect(primary)
	s.exit()
}

func TestREPLHistory(t *testing.T) {
	history := filepath.Join(t.TempDir(), "state", "history") // the directory is created
	s := startREPL(t, history)
	s.send("40 + 2\r")
	s.expect("42\r\n")
	s.expect(primary)
	s.exit()

	data, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "40 + 2") {
		t.Fatalf("history file holds %q, want a line 40 + 2", data)
	}

	s = startREPL(t, history)
	s.send("\x1b[A") // up arrow recalls the previous session's line
	s.expect("40 + 2")
	s.send("\r")
	s.expect("42\r\n")
	s.expect(primary)
	s.exit()
}

func TestREPLInterrupt(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	// Ctrl-C at the prompt clears the line.
	s.send("this is not starlark\x03")
	s.expect("^C")
	s.expect(primary)
	s.send("2 + 3\r")
	s.expect("5\r\n")
	s.expect(primary)

	// Ctrl-C during a run cancels it; the session goes on.
	s.send("if True:\r")
	s.expect(continuation)
	s.send("    print('spin' + 'ning')\r")
	s.expect(continuation)
	s.send("    while True: pass\r")
	s.expect(continuation)
	s.send("\r")
	s.expect("spinning") // the loop has started: the terminal is in cooked mode
	s.send("\x03")
	s.expect("cancelled: interrupted")
	s.expect(primary)
	s.send("1 + 1\r")
	s.expect("2\r\n")
	s.expect(primary)

	// Ctrl-C in a block drops the block.
	s.send("def f():\r")
	s.expect(continuation)
	s.send("\x03")
	s.expect(primary)
	s.send("f\r")
	s.expect("undefined: f")
	s.expect(primary)
	s.exit()
}

func TestHistoryPath(t *testing.T) {
	t.Setenv("BITSH_HISTORY", "/x/h")
	if got := historyPath(); got != "/x/h" {
		t.Errorf("with BITSH_HISTORY: got %q", got)
	}
	os.Unsetenv("BITSH_HISTORY")
	t.Setenv("XDG_STATE_HOME", "/state")
	if got, want := historyPath(), filepath.Join("/state", "bitsh", "history"); got != want {
		t.Errorf("with XDG_STATE_HOME: got %q, want %q", got, want)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got, want := historyPath(), filepath.Join("/home/u", ".local", "state", "bitsh", "history"); got != want {
		t.Errorf("with HOME: got %q, want %q", got, want)
	}
}

// TestREPLEOFDuringRun types Ctrl-D while an input runs (the terminal then
// in cooked mode): bitsh exits once the run ends instead of hanging.
func TestREPLEOFDuringRun(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("if True:\r")
	s.expect(continuation)
	s.send("    print('spin' + 'ning')\r")
	s.expect(continuation)
	s.send("    for i in range(200000): pass\r")
	s.expect(continuation)
	s.send("\r")
	s.expect("spinning")
	s.exit()
}

// TestREPLGlobals checks that globals and reassignments persist from one
// input to the next, and that load works.
func TestREPLGlobals(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("x = 5\r")
	s.expect(primary)
	s.send("x = x * 1001\r")
	s.expect(primary)
	s.send("x\r")
	s.expect("5005\r\n")
	s.expect(primary)
	s.send("load('@stdlib/assert.star', 'assert'); assert.eq(x, 1)\r")
	s.expect("got 5005, want 1")
	s.expect(primary)
	s.exit()
}

// TestREPLLoadPersists checks that a load's bindings outlive its input.
func TestREPLLoadPersists(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("load('@stdlib/assert.star', 'assert')\r")
	s.expect(primary)
	s.send("assert.eq(2, 1)\r")
	s.expect("got 2, want 1")
	s.expect(primary)
	s.exit()
}

// TestREPLFuseNamesOfEarlierInputs: each input is named <stdin:N>, and a
// fused lambda reads names that earlier inputs (or its own) bound, with
// the interpreter's answers: 4 * 3, 4 * 11, g(4) = 5; and not the lambda
// of an earlier input at the same line and column (4 * 2).
func TestREPLFuseNamesOfEarlierInputs(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	for _, step := range []struct{ send, want string }{
		{"fuse(lambda s: s * 2)(4)\r", "8\r\n"},
		{"H = 3\r", ""},
		{"fuse(lambda s: s * H)(4)\r", "12\r\n"},
		{"K = 11\r", ""},
		{"print(fuse(lambda s: s * K)(4))\r", "44\r\n"},
		{"def g(x):\r    return x + 1\r\r", ""},
		{"fuse(lambda s: g(s))(4)\r", "5\r\n"},
		{"bsf(0)\r", "<stdin:8>:1:4: in <expr>"},
	} {
		s.send(step.send)
		if step.want != "" {
			s.expect(step.want)
		}
		s.expect(primary)
	}
	s.exit()
}

// TestREPLInterruptFusedCount: Ctrl-C during a fused count prints the
// traceback and the next prompt, without a line naming the cause (the ^C
// said it).
func TestREPLInterruptFusedCount(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("f = fuse(lambda s: popcount(s) == 3)\r")
	s.expect(primary)
	s.send("print('counting'); f.count(range(1 << 60))\r")
	s.expect("counting")
	time.Sleep(300 * time.Millisecond) // into the count
	s.send("\x03")
	// "fused lambda.count: cancelled" (or, should the Ctrl-C come before
	// the count on a loaded machine, Starlark's own "cancelled: interrupted").
	s.expect("cancelled")
	s.expect(primary)
	if strings.Contains(s.all.String(), "bitsh: interrupted") {
		t.Errorf("a line naming the cause; all output:\n%q", s.all.String())
	}
	s.send("1 + 1\r")
	s.expect("2\r\n")
	s.expect(primary)
	s.exit()
}
