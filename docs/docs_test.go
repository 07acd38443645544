// Package docs_test runs the snippets of the documentation pages so that
// they stay true. The convention, for authors of docs/*.md and README.md:
//
//   - A fenced block tagged starlark is run as a script; the blocks of one
//     page run in order in one interpreter, so a later block may use what an
//     earlier one defined. When the next block is tagged output, the
//     block's standard output must equal it.
//   - A block tagged repl is a REPL transcript: each ">>> " line (with the
//     "... " lines after it) is an input, run as the REPL runs it, and the
//     lines up to the next ">>> " are what it must print (echoes, print
//     output, errors as bitsh prints them). Lines before the first ">>> "
//     (the shell command, the banner) are not checked. Each transcript is a
//     fresh session.
//   - A block tagged go is a complete program when it starts with "package
//     main": it is built in a temporary module that points at this
//     repository with a replace directive, and run when an output block
//     follows, which its output must equal (skipped at the short scale,
//     internal/testscale: set BITSH_LONG_TESTS=1). Any other
//     go block is a fragment: it must parse as statements (or, when it
//     starts with func or type, as declarations).
//   - Blocks tagged output after something else, text (messages, tables,
//     files that are not code), sh, bash or json are shown, not run. Every
//     block has a tag (TestBlockTags), so that no Starlark or Go snippet
//     escapes the tests: Starlark is tagged starlark or repl, never python.
//   - Starlark blocks see argv = [] and, for the load examples, stand-in
//     modules lib/util.star and util.star that define double.
package docs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/internal/testscale"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
)

type block struct {
	tag  string
	line int // of the opening fence
	text string
}

// blocks returns the fenced blocks of a Markdown file (``` fences at the
// start of a line, possibly indented in a list item).
func blocks(t *testing.T, path string) []block {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var indent string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			if tag, ok := strings.CutPrefix(trimmed, "```"); ok {
				indent = line[:len(line)-len(trimmed)]
				cur = &block{tag: strings.TrimSpace(tag), line: n}
			}
			continue
		}
		if trimmed == "```" {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.text += strings.TrimPrefix(line, indent) + "\n"
	}
	return out
}

func pages(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{"*.md", "internals/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return append(files, filepath.Join("..", "README.md"))
}

// errorText formats an error as bitsh prints it.
func errorText(err error) string {
	var ee *starlark.EvalError
	var el resolve.ErrorList
	switch {
	case errors.As(err, &ee):
		return ee.Backtrace()
	case errors.As(err, &el):
		var lines []string
		for _, e := range el {
			lines = append(lines, e.Error())
		}
		return strings.Join(lines, "\n")
	}
	return err.Error()
}

// standIns are the modules that the docs' load examples load.
var standIns = fstest.MapFS{
	"lib/util.star": {Data: []byte("def double(x):\n    return 2 * x\n")},
	"util.star":     {Data: []byte("def double(x):\n    return 2 * x\n")},
}

// newInterp returns the interpreter a page's starlark blocks run in.
func newInterp(out io.Writer) *interp.Interp {
	return interp.New(interp.WithStdout(out), interp.WithStderr(out), interp.WithFS(standIns),
		interp.WithPredeclared(starlark.StringDict{"argv": starlark.NewList(nil)}))
}

// blockTags are the tags a fenced block may have.
var blockTags = map[string]bool{"starlark": true, "repl": true, "go": true, "output": true, "text": true, "sh": true, "bash": true, "json": true,
	// Editor configurations (docs/editors.md), which their editors read.
	"lua": true, "toml": true, "elisp": true}

func TestBlockTags(t *testing.T) {
	for _, page := range pages(t) {
		for _, b := range blocks(t, page) {
			if !blockTags[b.tag] {
				t.Errorf("%s:%d: a block tagged %q; want one of starlark, repl, go (run by these tests), output, text, sh, bash or json", page, b.line, b.tag)
			}
		}
	}
}

func TestStarlarkSnippets(t *testing.T) {
	for _, page := range pages(t) {
		bs := blocks(t, page)
		var in *interp.Interp
		var out strings.Builder
		for i, b := range bs {
			if b.tag != "starlark" {
				continue
			}
			if in == nil {
				in = newInterp(&out)
			}
			out.Reset()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err := in.Exec(ctx, fmt.Sprintf("%s:%d", page, b.line), b.text)
			cancel()
			if err != nil {
				t.Errorf("%s:%d: the starlark block fails:\n%s", page, b.line, errorText(err))
				continue
			}
			if i+1 < len(bs) && bs[i+1].tag == "output" {
				if got, want := out.String(), bs[i+1].text; got != want {
					t.Errorf("%s:%d: the starlark block prints\n%s\nwant (%s:%d)\n%s", page, b.line, got, page, bs[i+1].line, want)
				}
			}
		}
	}
}

// transcript splits a repl block into inputs and their expected output.
func transcript(text string) (inputs, outputs []string) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], ">>> ") {
		i++
	}
	for i < len(lines) {
		src := strings.TrimPrefix(lines[i], ">>> ") + "\n"
		i++
		for i < len(lines) && (strings.HasPrefix(lines[i], "... ") || lines[i] == "...") {
			src += strings.TrimPrefix(strings.TrimPrefix(lines[i], "..."), " ") + "\n"
			i++
		}
		var want []string
		for i < len(lines) && !strings.HasPrefix(lines[i], ">>> ") {
			want = append(want, lines[i])
			i++
		}
		inputs = append(inputs, src)
		outputs = append(outputs, strings.Join(want, "\n"))
	}
	return inputs, outputs
}

func TestREPLTranscripts(t *testing.T) {
	for _, page := range pages(t) {
		for _, b := range blocks(t, page) {
			if b.tag != "repl" {
				continue
			}
			var out strings.Builder
			in := interp.New(interp.WithStdout(&out), interp.WithStderr(&out))
			inputs, outputs := transcript(b.text)
			if len(inputs) == 0 {
				t.Errorf("%s:%d: a repl block without a >>> line", page, b.line)
			}
			for k, src := range inputs {
				out.Reset()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				// As the REPL names its inputs (cmd/bitsh/repl.go's inputName).
				err := in.ExecInteractive(ctx, fmt.Sprintf("<stdin:%d>", k+1), src, func(v starlark.Value) {
					if p, ok := v.(builtins.Pictured); ok {
						fmt.Fprintln(&out, p.PictureText(false))
					} else {
						fmt.Fprintln(&out, v.String())
					}
				})
				cancel()
				if err != nil {
					fmt.Fprintln(&out, errorText(err))
				}
				if got, want := strings.TrimSuffix(out.String(), "\n"), outputs[k]; got != want {
					t.Errorf("%s:%d: >>> %s printed\n%s\nwant\n%s", page, b.line, strings.TrimSpace(src), got, want)
				}
			}
		}
	}
}

var goSnippetDecl = regexp.MustCompile(`^(func|type|var|const|import)\b`)

func TestGoSnippets(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages(t) {
		bs := blocks(t, page)
		for i, b := range bs {
			if b.tag != "go" {
				continue
			}
			where := fmt.Sprintf("%s:%d", page, b.line)
			if strings.HasPrefix(b.text, "package main") {
				if testscale.Short() {
					continue
				}
				want, run := "", i+1 < len(bs) && bs[i+1].tag == "output"
				if run {
					want = bs[i+1].text
				}
				buildProgram(t, root, where, b.text, run, want)
				continue
			}
			// Statements, else (func, type, ...) declarations.
			_, err := parser.ParseFile(token.NewFileSet(), where, "package p\n\nfunc _() {\n"+b.text+"}\n", parser.AllErrors)
			if err != nil && goSnippetDecl.MatchString(b.text) {
				_, err = parser.ParseFile(token.NewFileSet(), where, "package p\n\n"+b.text, parser.AllErrors)
			}
			if err != nil {
				t.Errorf("%s: the go fragment does not parse: %v", where, err)
			}
		}
	}
}

// buildProgram builds a complete Go program as a package of this very
// module, in a temporary directory under docs/testdata (which ./... skips),
// so that it needs exactly the modules that building bitsh needs: a
// separate module with a replace directive would also need the go.mod of
// indirect requirements that a fresh module cache does not hold.
func buildProgram(t *testing.T, root, where, text string, run bool, want string) {
	t.Helper()
	testdata := filepath.Join(root, "docs", "testdata")
	if err := os.MkdirAll(testdata, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(testdata, "_snippet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "prog"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: the go program does not build: %v\n%s", where, err, out)
		return
	}
	if !run {
		return
	}
	out, err := exec.Command(filepath.Join(dir, "prog")).CombinedOutput()
	if err != nil || string(out) != want {
		t.Errorf("%s: the go program: err = %v, output\n%s\nwant\n%s", where, err, out, want)
	}
}

// mdLink is a Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// slug is the anchor GitHub gives a heading: lower case, punctuation
// other than - and _ dropped, spaces as -.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a Markdown file's headings, outside
// fenced blocks; a repeated heading gets -1, -2... as on GitHub.
func anchors(t *testing.T, path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fenced := false
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		a := slug(strings.ReplaceAll(h, "`", ""))
		for n, b := 1, a; ; n++ {
			if !out[b] {
				out[b] = true
				break
			}
			b = fmt.Sprintf("%s-%d", a, n)
		}
	}
	return out
}

// TestLinks checks every relative link of the pages: the file exists and,
// for a link to a heading (page.md#anchor), the page has that heading.
func TestLinks(t *testing.T) {
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for n, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: the link %s: no such file", page, n+1, target)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(t, path)[anchor] {
					t.Errorf("%s:%d: the link %s: %s has no heading with the anchor #%s", page, n+1, target, path, anchor)
				}
			}
		}
	}
}
