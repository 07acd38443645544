package docs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A docExample is a call that a builtin's documentation shows in its
// prose, such as format(5, "08b") == "00000101" or (pow(2, 100)).
type docExample struct {
	where string // docs/builtins.md's line, or the help of a name
	expr  string // the call, with " == " and its expected value if shown
	eq    bool   // the example states an equality
}

// docExamples returns the calls to predeclared names in the text blocks
// of docs/builtins.md (the builtins' docstrings, which
// builtins/internal/gendocs writes there) and in the help of Starlark's
// own builtins, after each one's first line (the signature): from a name through its balanced parentheses, and,
// when " == " follows, the value after it up to a comma, colon,
// semicolon, unmatched closing bracket or the end of a sentence.
func docExamples(t *testing.T, names map[string]bool) []docExample {
	type doc struct {
		where string
		line  int
		text  string
	}
	var docs []doc
	for _, b := range blocks(t, "builtins.md") {
		if b.tag == "text" {
			docs = append(docs, doc{"builtins.md", b.line, b.text})
		}
	}
	// The docstrings of go.starlark.net's own builtins, which help shows
	// and docs/builtins.md does not.
	for name := range starlark.Universe {
		if text, err := builtins.Doc(starlark.String(name)); err == nil && text != "" {
			docs = append(docs, doc{"help(\"" + name + "\")", 0, text + "\n"})
		}
	}
	var out []docExample
	for _, d := range docs {
		lines := strings.SplitN(d.text, "\n", 2)
		if len(lines) < 2 {
			continue
		}
		text := lines[1]
		for i := 0; i < len(text); i++ {
			if !isIdentStart(text[i]) || i > 0 && (isIdentChar(text[i-1]) || text[i-1] == '.') {
				continue
			}
			j := i
			for j < len(text) && (isIdentChar(text[j]) || text[j] == '.') {
				j++
			}
			first, _, _ := strings.Cut(text[i:j], ".")
			if j >= len(text) || text[j] != '(' || !names[first] {
				continue
			}
			end := balanced(text, j)
			if end < 0 {
				continue
			}
			ex := docExample{where: fmt.Sprintf("%s:%d", d.where, d.line+2+strings.Count(text[:i], "\n")), expr: text[i:end]}
			if rest := text[end:]; strings.HasPrefix(rest, " == ") {
				k := end + len(" == ")
				if v := valueEnd(text, k); v > k {
					ex.expr, ex.eq = text[i:v], true
					end = v
				}
			}
			out = append(out, ex)
			i = end - 1
		}
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// balanced returns the end of the bracketed text opening at s[i], quotes
// respected, or -1.
func balanced(s string, i int) int {
	depth := 0
	for k := i; k < len(s); k++ {
		switch c := s[k]; c {
		case '"', '\'':
			e := strings.IndexByte(s[k+1:], c)
			if e < 0 {
				return -1
			}
			k += e + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// valueEnd returns the end of the value that starts at s[i]: up to a
// comma, colon or semicolon outside brackets, an unmatched closing
// bracket, a period or space that ends a sentence, or a newline outside
// brackets.
func valueEnd(s string, i int) int {
	depth := 0
	for k := i; k < len(s); k++ {
		switch c := s[k]; c {
		case '"', '\'':
			e := strings.IndexByte(s[k+1:], c)
			if e < 0 {
				return -1
			}
			k += e + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return k
			}
			depth--
		case ',', ':', ';', '\n':
			if depth == 0 {
				return k
			}
		case ' ':
			if depth == 0 && (k+1 >= len(s) || s[k+1] != '+' && s[k+1] != '-' && s[k+1] != '*' && s[k+1] != '<' && s[k+1] != '|' && s[k+1] != '&' && s[k+1] != '^') {
				return k
			}
		case '.':
			if depth == 0 && (k+1 >= len(s) || s[k+1] == ' ' || s[k+1] == '\n') {
				return k
			}
		}
	}
	return len(s)
}

// TestDocstringExamples: every call the builtins' documentation shows in
// its prose parses as Starlark (so no ** or other Python-only syntax), and
// every equality it states (round(2.5) == 2) holds when bitsh evaluates it;
// an equality that uses a name the prose defines (format(x, ".2f")) is
// only parsed.
func TestDocstringExamples(t *testing.T) {
	env := builtins.Predeclared()
	names := map[string]bool{}
	for name := range env {
		names[name] = true
	}
	for name := range starlark.Universe {
		names[name] = true
	}
	exs := docExamples(t, names)
	if len(exs) < 50 {
		t.Fatalf("found %d examples in docs/builtins.md, want at least 50: is the extraction broken?", len(exs))
	}
	checked := 0
	for _, ex := range exs {
		if strings.Contains(ex.expr, "...") {
			continue // a placeholder: board(0x...), cards([...])
		}
		if _, err := syntax.ParseExpr("builtins.md", ex.expr, 0); err != nil {
			t.Errorf("%s: the example %s is not Starlark: %v", ex.where, ex.expr, err)
			continue
		}
		if !ex.eq {
			continue
		}
		th := &starlark.Thread{Name: "docstring", Print: func(*starlark.Thread, string) {}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		builtins.SetEnv(th, builtins.Env{Context: ctx, Random: builtins.NewRandom()})
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, th, "builtins.md", ex.expr, env)
		cancel()
		if err != nil && strings.Contains(err.Error(), "undefined: ") {
			continue // uses a name of the prose
		}
		checked++
		if err != nil {
			t.Errorf("%s: %s: %v", ex.where, ex.expr, err)
		} else if v != starlark.True {
			t.Errorf("%s: %s is %s", ex.where, ex.expr, v)
		}
	}
	if checked < 20 {
		t.Errorf("evaluated %d equalities, want at least 20: is the extraction broken?", checked)
	}
	t.Log(fmt.Sprintf("%d examples, %d equalities evaluated", len(exs), checked))
}
