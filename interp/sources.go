package interp

import "sync"

// sources keeps the text of everything an interpreter runs (files, -c
// snippets, stdin, REPL inputs, loaded modules) under the name it ran as,
// so that fuse can find a function's def or lambda by its position.
// REPL inputs share one name ("<stdin>"): all of them are kept, newest
// last, and fuse takes the newest whose text has a def or lambda of the
// function's name at the function's line and column.
type sources struct {
	mu    sync.Mutex
	texts map[string][]string
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
