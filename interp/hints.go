package interp

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A Python habit that Starlark refuses: the error it causes (a syntax
// error's message, or a run-time error's) and the one-line hint added to
// it, which says what to write instead.
type habit struct {
	msg  *regexp.Regexp
	line *regexp.Regexp // when set, the error's source line must match too
	hint string
}

// The habits are compiled when an error first needs them, not as bitsh
// starts: a run that fails with no error pays nothing for them.

// syntaxHabits are the habits of syntax errors.
var syntaxHabits = sync.OnceValue(func() []habit {
	// fString matches an f-string's opening (f"..., F'..., rf"...) in a line.
	fString := regexp.MustCompile(`(^|[^\w"'])[rR]?[fF][rR]?["']`)
	return []habit{
		{msg: regexp.MustCompile(`^got '\*\*=?', want`),
			hint: "Starlark has no ** operator: write pow(a, b), or 1 << n for 2 to the n"},
		{msg: regexp.MustCompile(`^got string literal, want`), line: fString,
			hint: `Starlark has no f-strings: write "%d" % x, "{}".format(x) or format(x, "08b")`},
		{msg: regexp.MustCompile(`^got (import|from), want`),
			hint: `Starlark has no import: math, json, time and random are predeclared; other modules come with load("file.star", "name")`},
		{msg: regexp.MustCompile(`^got (try|except|finally|raise), want`),
			hint: "Starlark has no exceptions: an error stops the script (fail(msg) raises one), so test for the bad case first"},
		{msg: regexp.MustCompile(`^got class, want`),
			hint: "Starlark has no classes: use struct(name=value, ...) or a dict, and functions"},
		{msg: regexp.MustCompile(`^got is, want`),
			hint: "Starlark has no is operator: write == (x == None)"},
		{msg: regexp.MustCompile(`^got (global|nonlocal), want`),
			hint: "Starlark has no global or nonlocal: a function cannot rebind a name outside it; keep the state in a module-level list (n = [0], then n[0] += 1 in the function) or dict"},
		{msg: regexp.MustCompile(`^got for, want '[,)]'`),
			hint: "Starlark has no generator expressions: write a list comprehension, sum([x * x for x in a])"},
		{msg: regexp.MustCompile(`^(<|<=|>|>=|==|!=|in|not in) does not associate with (<|<=|>|>=|==|!=|in|not in) `),
			hint: "Starlark has no chained comparisons: write 0 <= r and r < 8, not 0 <= r < 8"},
	}
})

// evalHabits are the habits of run-time errors.
var evalHabits = sync.OnceValue(func() []habit {
	return []habit{
		{msg: regexp.MustCompile(`^unknown conversion %[-+ #0-9.*]`),
			hint: `Starlark's % takes no width, flags or precision ("%.2f", "%5d"): write format(x, ".2f") or format(x, "5d")`},
		{msg: regexp.MustCompile(`^int has no \.bit_length field or method`),
			hint: "Starlark's ints have no bit_length(): write bsr(x) + 1 for a word x > 0 (the index of its top one bit, plus one)"},
		{msg: regexp.MustCompile(`^int has no \.bit_count field or method`),
			hint: "Starlark's ints have no bit_count(): write popcount(x) for a word x"},
		{msg: regexp.MustCompile(`(^|: )unknown (binary op: (bool \S+ \w+|\w+ \S+ bool)|unary op: \S+ bool)$`),
			hint: "Starlark's bools are not numbers: write int(a > 3) for 1 or 0, as in int(a > 3) + int(b > 5)"},
	}
})

// hintPrefix starts the line that explainHabit adds to a message.
const hintPrefix = "\nhint: "

// ExplainHabit adds a hint line to an error that a Python habit causes
// (2**n, f-strings, import, try, class, global, generator expressions,
// chained comparisons, "%.2f" % x, x.bit_length(), True + 1), saying
// what to write instead; src is the text that was parsed or run. Runs,
// sessions and the REPL add the hints themselves; the notebook kernel,
// bitsh check and the language server call this for the syntax errors they
// find. Other errors are returned unchanged.
func ExplainHabit(err error, src string) error {
	return explainHabit(err, func(string) string { return src })
}

// explainHabit is ExplainHabit where source returns the text run under a
// file name, or "".
func explainHabit(err error, source func(filename string) string) error {
	if se, ok := err.(syntax.Error); ok {
		if strings.Contains(se.Msg, hintPrefix) {
			return se
		}
		if h := findHabit(syntaxHabits(), se.Msg, func() string { return sourceLine(source(se.Pos.Filename()), se.Pos) }); h != "" {
			se.Msg += hintPrefix + h
		}
		return se
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) && !strings.Contains(ee.Msg, hintPrefix) {
		if h := findHabit(evalHabits(), ee.Msg, nil); h != "" {
			ee.Msg += hintPrefix + h
		}
	}
	return err
}

// findHabit returns the hint of the first habit that matches msg (and the
// source line, for a habit that looks at it), or "".
func findHabit(habits []habit, msg string, line func() string) string {
	for _, h := range habits {
		if !h.msg.MatchString(msg) {
			continue
		}
		if h.line != nil && (line == nil || !h.line.MatchString(line())) {
			continue
		}
		return h.hint
	}
	return ""
}

// sourceLine returns the line of src at pos, or "".
func sourceLine(src string, pos syntax.Position) string {
	if pos.Line < 1 {
		return ""
	}
	lines := strings.SplitN(src, "\n", int(pos.Line)+1)
	if int(pos.Line) > len(lines) {
		return ""
	}
	return lines[pos.Line-1]
}

// newestSource returns the newest text run under name, or "".
func (in *Interp) newestSource(name string) string {
	t := in.src.Texts(name)
	if len(t) == 0 {
		return ""
	}
	return t[len(t)-1]
}
