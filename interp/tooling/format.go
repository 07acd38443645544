package tooling

import (
	"bytes"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/syntax"
)

// whileMark stands in for a while loop while buildifier formats the file:
// its parser knows no while, so "while C:" becomes "if whileMark == (C):",
// an if statement laid out exactly as the loop will be, and the marks are
// turned back into loops in the formatted text.
const whileMark = "__bitsh_while__"

// Format returns src formatted by buildifier's formatter. The file
// must parse in bitsh's dialect; errors carry file:line:col.
func Format(filename string, src []byte) ([]byte, error) {
	opts := dialect.FileOptions()
	f, err := interp.ParseFile(opts, filename, src, syntax.RetainComments) // nesting checked before any recursive walk, here or in buildifier
	if err != nil {
		return nil, err
	}
	var edits []edit
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.WhileStmt); ok {
			_, end := w.Cond.Span()
			edits = append(edits,
				edit{at: w.While, drop: len("while"), text: "if " + whileMark + " == ("},
				edit{at: end, text: ")"})
		}
		return true
	})
	masked, err := applyEdits(src, edits)
	if err != nil {
		return nil, err
	}
	bf, err := build.ParseDefault(filename, masked)
	if err != nil {
		return nil, fmt.Errorf("buildifier: %v", err)
	}
	out := build.Format(bf)
	if len(edits) == 0 {
		return out, nil
	}
	return unmaskWhile(filename, out)
}

// unmaskWhile turns the marked if statements of formatted text back into
// while loops, dropping the parentheses the mark added when the result
// still parses (a condition laid out over several lines keeps them).
func unmaskWhile(filename string, out []byte) ([]byte, error) {
	opts := dialect.FileOptions()
	f, err := opts.Parse(filename, out, syntax.RetainComments)
	if err != nil {
		return nil, fmt.Errorf("formatted text does not parse: %v", err)
	}
	var bare, kept []edit
	syntax.Walk(f, func(n syntax.Node) bool {
		s, ok := n.(*syntax.IfStmt)
		if !ok {
			return true
		}
		c, ok := s.Cond.(*syntax.BinaryExpr)
		if !ok || c.Op != syntax.EQL {
			return true
		}
		if id, ok := c.X.(*syntax.Ident); !ok || id.Name != whileMark {
			return true
		}
		p, ok := c.Y.(*syntax.ParenExpr)
		if !ok {
			return true
		}
		head := len("if " + whileMark + " == (")
		bare = append(bare, edit{at: s.If, drop: head, text: "while "}, edit{at: p.Rparen, drop: 1})
		kept = append(kept, edit{at: s.If, drop: head - 1, text: "while "})
		return true
	})
	res, err := applyEdits(out, bare)
	if err == nil {
		if _, perr := opts.Parse(filename, res, 0); perr == nil {
			return res, nil
		}
	}
	return applyEdits(out, kept)
}

// An edit replaces drop bytes at a source position with text.
type edit struct {
	at   syntax.Position
	drop int
	text string
}

// applyEdits applies edits at distinct positions of src.
func applyEdits(src []byte, edits []edit) ([]byte, error) {
	lines := [][]byte{}
	starts := []int{}
	for off := 0; off <= len(src); {
		starts = append(starts, off)
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			lines = append(lines, src[off:])
			break
		}
		lines = append(lines, src[off:off+i+1])
		off += i + 1
	}
	type at struct {
		off int
		e   edit
	}
	var ats []at
	for _, e := range edits {
		li := int(e.at.Line) - 1
		if li < 0 || li >= len(lines) {
			return nil, fmt.Errorf("fmt: position %v out of range", e.at)
		}
		off, line := starts[li], lines[li]
		for c := int32(1); c < e.at.Col; c++ {
			_, size := utf8.DecodeRune(line)
			line = line[size:]
			off += size
		}
		ats = append(ats, at{off, e})
	}
	sort.Slice(ats, func(i, j int) bool { return ats[i].off > ats[j].off })
	res := bytes.Clone(src)
	for _, a := range ats {
		end := a.off + a.e.drop
		if end > len(res) {
			return nil, fmt.Errorf("fmt: edit at %v out of range", a.e.at)
		}
		res = append(res[:a.off], append([]byte(a.e.text), res[end:]...)...)
	}
	return res, nil
}
