package main

import (
	"strings"

	"github.com/bitsh/bitsh/interp"
)

// completer completes the word before the cursor in the REPL with the
// interpreter's rule (interp.Completions). Tab in leading white space
// indents.
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
	names, partial := c.in.Completions(before)
	out := make([][]rune, len(names))
	for i, n := range names {
		out[i] = []rune(n[len(partial):])
	}
	return out, len(partial)
}
