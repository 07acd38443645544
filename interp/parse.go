package interp

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.starlark.net/syntax"
)

// ParseFile parses src (a string or a []byte; other sources as
// go.starlark.net reads them) as a file with opts and mode, and refuses
// what go.starlark.net's parser lets through but bitsh does not run: a
// NUL byte, which its scanner takes for the end of the file (the text
// after it would vanish without a word), and nesting deeper than
// MaxNesting (CheckNesting). Every reader of a script's text parses
// through it: runs, loads, interactive inputs and notebook cells, and
// check, fmt and the language server (package tooling).
func ParseFile(opts *syntax.FileOptions, filename string, src any, mode syntax.Mode) (*syntax.File, error) {
	if err := CheckNUL(filename, src); err != nil {
		return nil, err
	}
	f, err := opts.Parse(filename, src, mode)
	if err != nil {
		return nil, err
	}
	if err := CheckNesting(f); err != nil {
		return nil, err
	}
	return f, nil
}

// parse is ParseFile without comments kept.
func parse(opts *syntax.FileOptions, filename string, src any) (*syntax.File, error) {
	return ParseFile(opts, filename, src, 0)
}

// CheckNUL returns a syntax.Error at the first NUL byte of src (a string
// or a []byte), nil when there is none. Its position counts lines as
// go.starlark.net's scanner does (LF, CR LF or CR ends one) and columns in
// runes from 1.
func CheckNUL(filename string, src any) error {
	var text []byte
	switch s := src.(type) {
	case string:
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return nil
		}
		text = []byte(s[:i])
	case []byte:
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			return nil
		}
		text = s[:i]
	default:
		return nil
	}
	line, col := int32(1), int32(1)
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		text = text[size:]
		switch {
		case r == '\r' && len(text) > 0 && text[0] == '\n':
			text = text[1:]
			fallthrough
		case r == '\n' || r == '\r':
			line, col = line+1, 1
		default:
			col++
		}
	}
	return syntax.Error{Pos: syntax.MakePosition(&filename, line, col),
		Msg: "a NUL byte (U+0000) in the source, which a script may not hold"}
}
