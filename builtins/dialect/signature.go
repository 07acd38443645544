package dialect

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.starlark.net/syntax"
)

// A Param is one parameter of a function as its signature shows it.
type Param struct {
	Name    string // "" for the bare * that starts keyword-only parameters
	Default string // the default's text, "" for a required parameter
	// Star marks *args (or the bare *), StarStar **kwargs.
	Star, StarStar bool
}

// String returns the parameter as a signature shows it: "a", "b=2",
// "*args", "*", "**kwargs".
func (p Param) String() string {
	switch {
	case p.StarStar:
		return "**" + p.Name
	case p.Star:
		return "*" + p.Name
	case p.Default != "":
		return p.Name + "=" + p.Default
	}
	return p.Name
}

// Signature returns a function's signature as help and the editor tools
// show it: "f(a, b=2, *args, **kwargs)", as Python writes one and as
// the builtins' docstrings do, so that an editor finds each parameter's
// label in it.
func Signature(name string, params []Param) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.String()
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// DefParams returns the parameters of a def parsed from src, each default
// as its source text with runs of white space made one space.
func DefParams(def *syntax.DefStmt, src []byte) []Param {
	var params []Param
	for _, p := range def.Params {
		switch p := p.(type) {
		case *syntax.Ident:
			params = append(params, Param{Name: p.Name})
		case *syntax.BinaryExpr:
			start, end := p.Y.Span()
			d := strings.Join(strings.Fields(text(src, start, end)), " ")
			params = append(params, Param{Name: p.X.(*syntax.Ident).Name, Default: d})
		case *syntax.UnaryExpr:
			if p.X == nil {
				params = append(params, Param{Star: true})
				continue
			}
			name := p.X.(*syntax.Ident).Name
			params = append(params, Param{Name: name, Star: p.Op == syntax.STAR, StarStar: p.Op == syntax.STARSTAR})
		}
	}
	return params
}

// DefSignature returns Signature of a def parsed from src.
func DefSignature(def *syntax.DefStmt, src []byte) string {
	return Signature(def.Name.Name, DefParams(def, src))
}

// text returns src from start to end, positions as go.starlark.net counts
// them (line and column from 1, the column in code points).
func text(src []byte, start, end syntax.Position) string {
	a, b := Offset(src, start), Offset(src, end)
	if a > b {
		return ""
	}
	return string(src[a:b])
}

// Offset returns the byte offset in src of p, a line and a column that
// count from 1, the column in runes (as go.starlark.net's positions
// count); past the end of src, len(src).
func Offset(src []byte, p syntax.Position) int {
	off := 0
	for line := int32(1); line < p.Line; line++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	for c := int32(1); c < p.Col && off < len(src); c++ {
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	return off
}
