// Package fusescript runs Starlark source with bitsh's builtins and compiles
// its functions into Funcs, for the tests of the fuse packages.
package fusescript

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// A Script is Starlark source that has run.
type Script struct {
	file    *syntax.File
	Globals starlark.StringDict
	thread  *starlark.Thread
}

// Load runs src.
func Load(src string) (*Script, error) {
	opts := dialect.FileOptions()
	file, err := opts.Parse("test.star", src, 0)
	if err != nil {
		return nil, err
	}
	thread := &starlark.Thread{Name: "test"}
	pre := builtins.Predeclared()
	globals, err := starlark.ExecFileOptions(opts, thread, "test.star", src, pre)
	if err != nil {
		return nil, err
	}
	for k, v := range pre {
		if _, ok := globals[k]; !ok {
			globals[k] = v
		}
	}
	return &Script{file: file, Globals: globals, thread: thread}, nil
}

// Source finds the def of fn.
func (s *Script) Source(fn *starlark.Function) (*compile.Source, error) {
	for _, st := range s.file.Stmts {
		d, ok := st.(*syntax.DefStmt)
		if !ok || d.Name.Name != fn.Name() {
			continue
		}
		var params []*syntax.Ident
		for _, p := range d.Params {
			params = append(params, p.(*syntax.Ident))
		}
		_, end := d.Span()
		return &compile.Source{Name: fn.Name(), Params: params, Body: d.Body, End: end,
			Free: func(name string) (starlark.Value, bool) {
				v, ok := s.Globals[name]
				return v, ok
			},
			Builtin: func(name string) bool {
				v, ok := s.Globals[name]
				b, isB := v.(*starlark.Builtin)
				return !ok || isB && b.Name() == name
			},
		}, nil
	}
	return nil, fmt.Errorf("no def %s", fn.Name())
}

// Compile compiles the script's function name.
func (s *Script) Compile(name string) (*fuse.Func, error) { return s.CompileWith(name, nil) }

// CompileWith is Compile with the compiler's options changed by change
// (nil: none).
func (s *Script) CompileWith(name string, change func(*compile.Options)) (*fuse.Func, error) {
	fn, ok := s.Globals[name].(*starlark.Function)
	if !ok {
		return nil, fmt.Errorf("no function %s", name)
	}
	src, err := s.Source(fn)
	if err != nil {
		return nil, err
	}
	opt := compile.Options{Helper: s.Source, Words: func(v starlark.Value) ([]uint64, bool) {
		if a, ok := v.(interface{ Uint64s() []uint64 }); ok {
			return a.Uint64s(), true
		}
		return nil, false
	}}
	if change != nil {
		change(&opt)
	}
	return compile.Func(src, opt)
}

// Call calls the script's function name on words; ok is false when it
// fails or returns something else than a word.
func (s *Script) Call(name string, args ...uint64) (uint64, bool) {
	targs := make(starlark.Tuple, len(args))
	for i, a := range args {
		targs[i] = starlark.MakeUint64(a)
	}
	v, err := starlark.Call(s.thread, s.Globals[name], targs, nil)
	if err != nil {
		return 0, false
	}
	return compile.WordOf(v)
}
