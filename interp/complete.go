package interp

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"
)

// keywords are the Starlark keywords and constants offered beside names.
var keywords = []string{
	"False", "None", "True", "and", "break", "continue", "def", "elif", "else",
	"for", "if", "in", "lambda", "load", "not", "or", "pass", "return", "while",
}

// dottedName matches (compiled when first used) a plain dotted name, the only prefix the completer
// evaluates (so completion never calls a function).
var dottedName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
})

// Completions returns the names that may complete the word at the end of
// before (the text left of the cursor), sorted and without repeats, and
// the part of that word typed so far. A word is a global name (the
// interpreter's, Starlark's universal ones and keywords) or an attribute
// after a dot when the part before the dot is a plain dotted name whose
// value has attributes; completion never calls a function. The REPL and
// the notebook kernel share this rule.
func (in *Interp) Completions(before string) (names []string, partial string) {
	i := len(before)
	for i > 0 && isWordByte(before[i-1]) {
		i--
	}
	word := before[i:]
	if word != "" && word[0] >= '0' && word[0] <= '9' {
		return nil, word // a number
	}
	dot := strings.LastIndexByte(word, '.')
	if dot < 0 {
		names = append(names, in.Names()...)
		names = append(names, starlark.Universe.Keys()...)
		names = append(names, keywords...)
	} else {
		expr := word[:dot]
		word = word[dot+1:]
		if !dottedName().MatchString(expr) {
			return nil, word
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		v, err := in.Eval(ctx, expr)
		if err != nil {
			return nil, word
		}
		if ha, ok := v.(starlark.HasAttrs); ok {
			names = ha.AttrNames()
		}
	}
	return MatchCompletions(names, word), word
}

// MatchCompletions is the rule that picks completions from candidate
// names: those that start with word, without the private ones (a leading
// underscore) unless word starts with one, sorted and without repeats. It
// reorders names in place. Every completer (the REPL, the notebook
// kernel, the language server) applies it.
func MatchCompletions(names []string, word string) []string {
	slices.Sort(names)
	names = slices.Compact(names)
	out := names[:0]
	for _, n := range names {
		if strings.HasPrefix(n, word) && (strings.HasPrefix(word, "_") || !strings.HasPrefix(n, "_")) {
			out = append(out, n)
		}
	}
	return out
}

// Keywords returns the Starlark keywords and constants that completion
// offers beside names.
func Keywords() []string { return slices.Clone(keywords) }

func isWordByte(b byte) bool {
	return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Completeness says whether an input is ready to run.
type Completeness int

// The answers of IsComplete, named as Jupyter's is_complete_request.
const (
	Complete   Completeness = iota // run it
	Incomplete                     // a block is open: read another line
	Invalid                        // a syntax error that more lines cannot mend
)

// IsComplete applies the REPL's multi-line rule to src: a compound
// statement (def, if, for, ...) is complete when a blank line ends it, a
// simple statement when its brackets close. A syntax error on the first
// line is Invalid at once; one inside a block (an input of several lines,
// or one whose first line is indented, as the rest of a pasted function
// after a blank line inside it) is Incomplete until a blank line ends the
// block, so that the error is reported once, for the whole block, instead
// of once per remaining line. The REPL and the notebook kernel share this
// rule.
func IsComplete(src string) Completeness {
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	lines := strings.SplitAfter(src, "\n")
	lines = lines[:len(lines)-1]
	errMore := errors.New("more input needed")
	more := false
	i := 0
	next := func() ([]byte, error) {
		if i == len(lines) {
			more = true
			return nil, errMore
		}
		i++
		return []byte(lines[i-1]), nil
	}
	_, err := FileOptions().ParseCompoundStmt("<input>", next)
	switch {
	case more:
		return Incomplete
	case err != nil:
		if inBlock(lines) {
			return Incomplete
		}
		return Invalid
	case i < len(lines) && strings.TrimSpace(strings.Join(lines[i:], "")) != "":
		return Invalid // more than one statement
	}
	return Complete
}

// inBlock reports whether lines (each ending in a newline) are an open
// block: more than one line, or an indented first line, not yet ended by
// a blank line.
func inBlock(lines []string) bool {
	if len(lines) == 0 || strings.TrimSpace(lines[len(lines)-1]) == "" {
		return false
	}
	first := lines[0]
	return len(lines) > 1 || strings.TrimLeft(first, " \t") != first
}
