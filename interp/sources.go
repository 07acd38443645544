package interp

import (
	"sync"

	"go.starlark.net/syntax"
)

// sources keeps the text of everything an interpreter runs (files, -c
// snippets, stdin, REPL inputs, loaded modules) under the name it ran as,
// so that fuse can find a function's def or lambda by its position.
// The REPL names each input <stdin:N>; snippets that an embedder runs all
// under one name ("<stdin>") are all kept, newest last, and fuse takes the
// newest whose text has a def or lambda of the function's name at the
// function's line and column.
type sources struct {
	mu    sync.Mutex
	texts map[string][]string
	// files caches the parse of each text (nil until asked; a text that
	// does not parse keeps a nil file), so that fuse parses a text once
	// however many functions it compiles from it.
	files map[string][]*syntax.File
}

// keep records src (a string or []byte) as run under name.
func (s *sources) keep(name string, src any) {
	var text string
	switch v := src.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.texts == nil {
		s.texts = map[string][]string{}
	}
	list := s.texts[name]
	if n := len(list); n > 0 && list[n-1] == text {
		return
	}
	s.texts[name] = append(list, text)
}

// Texts returns the texts run under name, oldest first.
func (s *sources) Texts(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.texts[name]...)
}

// Files returns the texts run under name parsed in bitsh's dialect, oldest
// first, parsing each text once (a text that does not parse is nil).
func (s *sources) Files(name string) []*syntax.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	texts := s.texts[name]
	if s.files == nil {
		s.files = map[string][]*syntax.File{}
	}
	files := s.files[name]
	for i := len(files); i < len(texts); i++ {
		f, err := dialect.Parse(name, texts[i], 0)
		if err != nil {
			f = nil
		}
		files = append(files, f)
	}
	s.files[name] = files
	return append([]*syntax.File(nil), files...)
}
