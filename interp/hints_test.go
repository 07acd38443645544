package interp_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// habitCases are Python habits that Starlark refuses, each with the exact
// message (and hint) a run gives: syntax errors with their position,
// run-time errors as the EvalError's message.
var habitCases = []struct {
	src, want string
}{
	{"n = 0\ndef bump():\n    global n\n    n += 1\n",
		"h.star:3:5: got global, want primary expression\n" +
			"hint: Starlark has no global or nonlocal: a function cannot rebind a name outside it; keep the state in a module-level list (n = [0], then n[0] += 1 in the function) or dict"},
	{"a = [1, 2]\nprint(sum(x * x for x in a))\n",
		"h.star:2:20: got for, want ','\n" +
			"hint: Starlark has no generator expressions: write a list comprehension, sum([x * x for x in a])"},
	{"g = (x for x in [1])\n",
		"h.star:1:11: got for, want ')'\n" +
			"hint: Starlark has no generator expressions: write a list comprehension, sum([x * x for x in a])"},
	{"r = 3\nok = 0 <= r < 8\n",
		"h.star:2:14: <= does not associate with < (use parens)\n" +
			"hint: Starlark has no chained comparisons: write 0 <= r and r < 8, not 0 <= r < 8"},
	{"x = 12\nprint(x.bit_length())\n",
		"int has no .bit_length field or method\n" +
			"hint: Starlark's ints have no bit_length(): write bsr(x) + 1 for a word x > 0 (the index of its top one bit, plus one)"},
	{"x = 12\nprint(x.bit_count())\n",
		"int has no .bit_count field or method\n" +
			"hint: Starlark's ints have no bit_count(): write popcount(x) for a word x"},
	{"a, b = 4, 6\nprint((a > 3) + (b > 5))\n",
		"unknown binary op: bool + bool\n" +
			"hint: Starlark's bools are not numbers: write int(a > 3) for 1 or 0, as in int(a > 3) + int(b > 5)"},
	{"print(sum([x > 1 for x in [1, 2, 3]]))\n",
		"sum: element 0: unknown binary op: int + bool\n" +
			"hint: Starlark's bools are not numbers: write int(a > 3) for 1 or 0, as in int(a > 3) + int(b > 5)"},
}

// habitMessage is err's message: an EvalError's own, else err's text.
func habitMessage(err error) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return ee.Msg
	}
	return err.Error()
}

// TestHabitHints: each habit's error carries its hint, with the same
// message in a file run and in a session's input (the REPL's and the
// notebook's path), and no hint is added twice.
func TestHabitHints(t *testing.T) {
	for _, c := range habitCases {
		in := interp.New(interp.WithStdout(io.Discard))
		_, err := in.ExecFile(context.Background(), "h.star", c.src)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if got := habitMessage(err); got != c.want {
			t.Errorf("%q as a file:\n got %q\nwant %q", c.src, got, c.want)
		}
		if again := habitMessage(interp.ExplainHabit(err, c.src)); again != c.want {
			t.Errorf("%q explained twice: %q", c.src, again)
		}
		in = interp.New(interp.WithStdout(io.Discard))
		err = in.ExecInteractive(context.Background(), "h.star", c.src, nil)
		if got := habitMessage(err); err == nil || got != c.want {
			t.Errorf("%q as an input:\n got %v\nwant %q", c.src, err, c.want)
		}
	}
}

// TestHabitHintsOnlyForHabits: errors that look alike but are not the
// habit get no hint.
func TestHabitHintsOnlyForHabits(t *testing.T) {
	for _, src := range []string{
		"x = [1, y for y in [2]]\n",     // got for, want ']'
		"print(1 + None)\n",             // unknown binary op, no bool
		"print((12).bit_lenght())\n",    // another missing method
		"print(1 == 1 and 1 + 1 >= )\n", // a comparison, not a chain
	} {
		_, err := interp.New(interp.WithStdout(io.Discard)).ExecFile(context.Background(), "h.star", src)
		if err == nil {
			t.Errorf("%q: no error", src)
		} else if strings.Contains(err.Error(), "hint:") {
			t.Errorf("%q: %q has a hint", src, err)
		}
	}
}
