package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"github.com/chzyer/readline"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// exitCode reports whether err ends a run by exit() or quit(), and the
// status to exit with.
func exitCode(err error) (int, bool) {
	var ee *interp.ExitError
	if errors.As(err, &ee) {
		return ee.Code, true
	}
	return 0, false
}

// timeMagic is the REPL's prefix that times the rest of the input.
const timeMagic = "%time"

// cutTimeMagic returns src without a leading "%time" and whether it was
// there ("%timer = 1" is not the magic).
func cutTimeMagic(src string) (string, bool) { return cutMagic(src, timeMagic) }

// cutMagic returns src without a leading magic (%time, %prun) and whether
// it was there.
func cutMagic(src, magic string) (string, bool) {
	rest, ok := strings.CutPrefix(src, magic)
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' {
		return src, false
	}
	return strings.TrimLeft(rest, " \t"), true
}

// formatWall writes a wall time with three significant digits, in the
// unit Go's Duration picks ("Wall time: 1.23ms").
func formatWall(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}

// useColor says whether the REPL may draw pictures on w with ANSI
// colours: when w is a terminal, unless NO_COLOR is set (no-color.org) or
// TERM is dumb.
func useColor(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr }) // an *os.File, or the watched standard output
	return ok && readline.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// echoValue prints a value the REPL echoes: a picture's text form, else
// its repr.
func echoValue(w io.Writer, v starlark.Value, color bool) {
	if p, ok := v.(builtins.Pictured); ok {
		fmt.Fprintln(w, p.PictureText(color))
		return
	}
	fmt.Fprintln(w, v.String())
}

// exitHint returns what the REPL says, instead of echoing the builtin,
// when the input is a bare exit or quit (as Python's REPL does), or "".
func exitHint(input string, v starlark.Value) string {
	if b, ok := v.(*starlark.Builtin); ok && (input == "exit" || input == "quit") && b.Name() == input {
		return "Use " + input + "() or Ctrl-D to exit"
	}
	return ""
}

// indented reports whether the first line of src starts with white space.
func indented(src string) bool {
	first, _, _ := strings.Cut(src, "\n")
	return strings.TrimSpace(first) != "" && strings.TrimLeft(first, " \t") != first
}

// soleDef reports whether src parses as one def statement.
func soleDef(src string) bool {
	f, err := interp.FileOptions().Parse(stdinName, src, 0)
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	_, ok := f.Stmts[0].(*syntax.DefStmt)
	return ok
}
