package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pseudo-terminal tests of docs/repl.md's REPL comforts.

// exitWith waits for bitsh to exit on its own (exit(), quit()) and checks
// the status.
func (s *session) exitWith(code int) {
	s.t.Helper()
	select {
	case err := <-s.done:
		got := 0
		if err != nil {
			got = s.cmd.ProcessState.ExitCode()
		}
		if got != code {
			s.t.Fatalf("bitsh exited with %v, want status %d; all output:\n%q", err, code, s.all.String())
		}
	case <-time.After(wait):
		s.t.Fatalf("bitsh did not exit within %v; all output:\n%q", wait, s.all.String())
	}
}

func TestREPLUnderscoreAndEcho(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("6 * 7\r")
	s.expect("42\r\n")
	s.expect(primary)
	s.send("_ + 1\r")
	s.expect("43\r\n")
	s.expect(primary)
	// Every expression statement of an input echoes, None excepted.
	s.send("t0 = 100; print('mid'); None; t0 + 1; t0 * 2\r")
	s.expect("mid\r\n101\r\n200\r\n")
	s.expect(primary)
	s.send("_\r")
	s.expect("200\r\n")
	s.expect(primary)
	s.exit()
}

func TestREPLDir(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("zz = 1\r")
	s.expect(primary)
	s.send("def ff(): pass\r")
	s.expect(continuation)
	s.send("\r")
	s.expect(primary)
	s.send("dir()\r")
	s.expect(`["ff", "zz"]`)
	s.expect(primary)
	s.send("dir(board(1))\r")
	s.expect(`["bb"]`)
	s.expect(primary)
	s.exit()
}

func TestREPLExit(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("exit()\r")
	s.exitWith(0)

	s = startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("quit(3)\r")
	s.exitWith(3)
}

func TestREPLTime(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("%time max(range(1000))\r")
	s.expect("999\r\n")
	s.expect("Wall time: ")
	s.expect(primary)
	// A block after %time.
	s.send("%time for i in range(3):\r")
	s.expect(continuation)
	s.send("    print(i * 11)\r")
	s.expect(continuation)
	s.send("\r")
	s.expect("0\r\n11\r\n22\r\n")
	s.expect("Wall time: ")
	s.expect(primary)
	s.exit()
}

// TestREPLSyntaxErrorInBlock checks that a syntax error inside a block
// is reported once, when the block ends, and the session goes on.
func TestREPLSyntaxErrorInBlock(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("def h(n):\r")
	s.expect(continuation)
	s.send("    a = n +* 2\r")
	s.expect(continuation) // no error yet: the block goes on
	s.send("    return a\r")
	s.expect(continuation)
	s.send("\r")
	s.expect("<stdin:1>:2:12: got '*', want primary expression")
	s.expect(primary)
	s.send("1 + 2\r")
	s.expect("3\r\n")
	s.expect(primary)
	if n := strings.Count(s.all.String(), "want"); n != 1 {
		t.Errorf("%d errors reported, want 1; all output:\n%q", n, s.all.String())
	}
	s.exit()
}

// TestREPLPasteWithBlankLine pastes a function with a blank line inside:
// the blank line ends the def (as in Python), and the indented lines after
// it continue that def, which is run again whole: the paste works.
func TestREPLPasteWithBlankLine(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("def g(n):\r    a = n + 1\r\r    b = a * 2\r\r    return b + 3\r\r")
	s.expect(primary)
	s.send("g(1)\r")
	s.expect("7\r\n")
	s.expect(primary)
	// After a block that is not a def, an indented line is one error.
	s.send("for i in range(2):\r    x = i\r\r    y = i\r    z = i\r\r")
	s.expect("got indent")
	s.expect("a blank line had ended the block")
	s.expect(primary)
	s.send("40 + 2\r")
	s.expect("42\r\n")
	s.expect(primary)
	if n := strings.Count(s.all.String(), "got indent"); n != 1 {
		t.Errorf("%d errors reported, want 1; all output:\n%q", n, s.all.String())
	}
	s.exit()
}

func TestREPLPictures(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("board(0x8000000000000001)\r")
	s.expect("8 ")
	s.expect("\r\n  a b c d e f g h\r\n")
	s.expect(primary)
	s.send("repr(board(255))\r")
	s.expect(`"board(0xff)"`)
	s.expect(primary)
	s.send("cards([0, 80])\r")
	s.expect("╭─────╮ ╭─────╮\r\n")
	s.expect("\x1b[31m◆\x1b[0m")
	s.expect("\x1b[35m○○○\x1b[0m")
	s.expect(primary)
	s.send("print(cards([0, 80]))\r")
	s.expect("1RsD 3PoO\r\n")
	s.expect(primary)
	s.exit()
}
func TestREPLHelpStarlark(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("help(print)\r")
	s.expect("print(*args, sep=\" \", end=")
	s.expect(primary)
	s.send("help(math)\r")
	s.expect("sqrt(x)")
	s.expect(primary)
	s.send("help(random)\r")
	s.expect("random.seed(n)")
	s.expect(primary)
	s.send(`help("@stdlib/board.star")` + "\r")
	s.expect("diagram(index, n, pieces=None, numbering=\"natural\", labels=False)")
	s.expect(primary)
	s.exit()
}

// Python habits get their hints in the REPL too, and a bare exit says
// how to leave instead of echoing the builtin.
func TestREPLHabitHints(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("2**10\r")
	s.expect("hint: Starlark has no ** operator: write pow(a, b), or 1 << n for 2 to the n\r\n")
	s.expect(primary)
	s.send("import math\r")
	s.expect("hint: Starlark has no import")
	s.expect(primary)
	s.send("exit\r")
	s.expect("Use exit() or Ctrl-D to exit\r\n")
	s.expect(primary)
	s.send("quit\r")
	s.expect("Use quit() or Ctrl-D to exit\r\n")
	s.expect(primary)
	s.exit()
}

// %prun runs one input under the profiler and lists its top functions.
func TestREPLPrun(t *testing.T) {
	s := startREPL(t, filepath.Join(t.TempDir(), "history"))
	s.send("def slow(n):\r")
	s.send("    t = 0\r")
	s.send("    for i in range(n): t += popcount(i)\r")
	s.send("    return t\r")
	s.send("\r")
	s.expect(primary)
	s.send("%prun slow(200000)\r")
	s.expect("1730048\r\n")
	s.expect("flat  flat%        cum   cum%  function\r\n")
	s.expect("  slow\r\n")
	s.expect(primary)
	s.exit()
}
