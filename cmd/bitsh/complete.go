package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// keywords are the Starlark keywords and constants offered beside names.
var keywords = []string{
	"False", "None", "True", "and", "break", "continue", "def", "elif", "else",
	"for", "if", "in", "lambda", "load", "not", "or", "pass", "return", "while",
}

// dottedName matches a plain dotted name, the only prefix the completer
// evaluates (so completion never calls a function).
var dottedName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// completer completes the word before the cursor in the REPL: a global
// name (the interpreter's, Starlark's universal ones and keywords), or an
// attribute after a dot when the part before the dot is a plain dotted
// name whose value has attributes. Tab in leading white space indents.
type completer struct {
	in *interp.Interp
}

// Do implements readline.AutoCompleter: it returns the candidates'
// remaining suffixes and the length of the word they complete.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	if strings.TrimSpace(before) == "" {
		return [][]rune{[]rune("    ")}, 0
	}
	names, partial := c.candidates(before)
	var out [][]rune
	for _, n := range names {
		if strings.HasPrefix(n, partial) && (strings.HasPrefix(partial, "_") || !strings.HasPrefix(n, "_")) {
			out = append(out, []rune(n[len(partial):]))
		}
	}
	return out, len(partial)
}

// candidates returns the names that may complete the word at the end of
// before, sorted and without repeats, and the part of the word typed so far.
func (c *completer) candidates(before string) (names []string, partial string) {
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
		names = append(names, c.in.Names()...)
		names = append(names, starlark.Universe.Keys()...)
		names = append(names, keywords...)
	} else {
		expr := word[:dot]
		word = word[dot+1:]
		if !dottedName.MatchString(expr) {
			return nil, word
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		v, err := c.in.Eval(ctx, expr)
		if err != nil {
			return nil, word
		}
		if ha, ok := v.(starlark.HasAttrs); ok {
			names = ha.AttrNames()
		}
	}
	slices.Sort(names)
	return slices.Compact(names), word
}

func isWordByte(b byte) bool {
	return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}
