// Package tooling is bitsh's source tooling, the one home of what the
// REPL, the notebook kernel, bitsh check, bitsh fmt and the language
// server (bitsh lsp) know about bitsh source without the terminal or a
// wire protocol: parsing in bitsh's dialect, diagnostics as values,
// formatting, the help text of a name, completion, signatures,
// definitions, and running a notebook cell.
//
// A Checker analyses files without running them. Loads follow the same
// rules as at run time (interp.Interp.ModuleSource): relative paths from
// the loading file, "@stdlib/" modules, and, when the interpreter was made
// with interp.WithFS, nothing outside that file system.
package tooling

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/stdlib"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Severity says how bad a Diagnostic is.
type Severity int

// The severities, numbered as the Language Server Protocol numbers them.
const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
)

// A Diagnostic is one problem found in a file.
type Diagnostic struct {
	// Pos is where the problem starts (Line 0 when the problem is the
	// whole file, such as one that cannot be read); End, when not zero,
	// where it ends.
	Pos, End syntax.Position
	Severity Severity
	Message  string
}

// String formats the diagnostic as bitsh check prints it:
// "file:line:col: message".
func (d Diagnostic) String() string {
	if d.Pos.Line == 0 {
		return d.Pos.Filename() + ": " + d.Message
	}
	return d.Pos.String() + ": " + d.Message
}

// SortDiagnostics sorts diagnostics by position, keeping the order of
// those at the same position.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if a.Pos.Line != b.Pos.Line {
			return int(a.Pos.Line) - int(b.Pos.Line)
		}
		return int(a.Pos.Col) - int(b.Pos.Col)
	})
}

// A Checker analyses bitsh files with the predeclared names and the load
// rules of an interpreter, without running them. It remembers the
// modules it has read (by key and text), so checking many files that
// load the same modules parses each once. A Checker is used by one
// goroutine at a time.
type Checker struct {
	in          *interp.Interp
	predeclared starlark.StringDict
	stdlibNames starlark.StringDict
	modules     map[string]*Module    // by module key
	loading     []string              // keys being analysed, to report cycles
	members     map[string][]string   // a predeclared module's member names
	signatures  map[string]*Signature // a builtin's signature, nil for none
}

// NewChecker returns a checker for files run by an interpreter made with
// opts (interp.WithFS confines loads to a file system). The names a
// script sees from the command line (argv) are predeclared.
func NewChecker(opts ...interp.Option) *Checker {
	opts = append([]interp.Option{interp.WithPredeclared(starlark.StringDict{"argv": starlark.NewList(nil)})}, opts...)
	in := interp.New(opts...)
	return &Checker{
		in:          in,
		predeclared: in.PredeclaredFor(""),
		stdlibNames: in.PredeclaredFor(interp.StdlibPrefix),
		modules:     map[string]*Module{},
		members:     map[string][]string{},
		signatures:  map[string]*Signature{},
	}
}

// memberNames returns the sorted member names of the predeclared module
// mod, remembered.
func (c *Checker) memberNames(mod string, ha starlark.HasAttrs) []string {
	names, ok := c.members[mod]
	if !ok {
		names = ha.AttrNames()
		slices.Sort(names)
		c.members[mod] = names
	}
	return names
}

// signature returns BuiltinSignature(name), remembered.
func (c *Checker) signature(name string) (Signature, bool) {
	sig, ok := c.signatures[name]
	if !ok {
		if s, found := BuiltinSignature(name); found {
			sig = &s
		}
		c.signatures[name] = sig
	}
	if sig == nil {
		return Signature{}, false
	}
	return *sig, true
}

// A Module is one analysed file: its text, its syntax tree (nil when it
// does not parse) and its diagnostics.
type Module struct {
	Name        string // the file name, or a module key ("@stdlib/board.star")
	Src         []byte
	File        *syntax.File
	Diagnostics []Diagnostic

	c           *Checker
	predeclared starlark.StringDict
	defs        map[*resolve.Binding]syntax.Node // a def's or lambda's binding -> its node
	loads       map[*resolve.Binding]loadedName  // a loaded name's binding -> where from
}

// loadedName is a name a load binds: the module's argument and the name
// in that module.
type loadedName struct {
	module string
	name   string
}

// Check returns the diagnostics of the file name with text src, sorted.
func (c *Checker) Check(name string, src []byte) []Diagnostic {
	return c.Analyze(name, src).Diagnostics
}

// Analyze parses and resolves src as the file name, follows its loads and
// checks its calls, and returns the result with its diagnostics sorted.
func (c *Checker) Analyze(name string, src []byte) *Module {
	m, _ := c.AnalyzeContext(context.Background(), name, src)
	return m
}

// AnalyzeContext is Analyze, given up when ctx is cancelled (a language
// server's document changed again): it polls ctx between its steps
// (parsing, which it cannot interrupt, resolving, following each load,
// checking the calls) and returns nil and ctx's cause then. What it
// remembers of loaded modules stays valid.
func (c *Checker) AnalyzeContext(ctx context.Context, name string, src []byte) (*Module, error) {
	predeclared := c.predeclared
	if strings.HasPrefix(name, interp.StdlibPrefix) || isStdlibFile(name, src) {
		predeclared = c.stdlibNames
	}
	m, err := c.resolve(ctx, name, src, predeclared)
	if err != nil {
		return nil, err
	}
	if m.File == nil {
		return m, nil
	}
	c.loading = append(c.loading, name)
	defer func() { c.loading = c.loading[:len(c.loading)-1] }()
	for _, stmt := range m.File.Stmts {
		load, ok := stmt.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		module := load.ModuleName()
		lm, err := c.load(name, module)
		if err != nil {
			m.add(load.Module.TokenPos, Error, err.Error())
			continue
		}
		if len(lm.errors()) > 0 {
			m.add(load.Module.TokenPos, Error, fmt.Sprintf("load: module %q has errors (bitsh check %s)", module, lm.Name))
			continue
		}
		exports := lm.exports()
		for _, from := range load.From {
			if !exports[from.Name] && !strings.HasPrefix(from.Name, "_") { // the resolver reports private names
				m.add(from.NamePos, Error, fmt.Sprintf("load: module %s has no public name %s", module, from.Name))
			}
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	m.lint()
	SortDiagnostics(m.Diagnostics)
	return m, nil
}

// load returns the analysed module that the file from loads as module,
// by the interpreter's load rules.
func (c *Checker) load(from, module string) (*Module, error) {
	key, src, err := c.in.ModuleSource(from, module)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("load: cannot read module %q: %v", module, pe.Err)
		}
		return nil, fmt.Errorf("load: %v", err)
	}
	if i := slices.Index(c.loading, key); i >= 0 {
		return nil, fmt.Errorf("load cycle: %s -> %s", strings.Join(c.loading[i:], " -> "), key)
	}
	if m, ok := c.modules[key]; ok && string(m.Src) == string(src) {
		return m, nil
	}
	m := c.Analyze(key, src)
	c.modules[key] = m
	return m, nil
}

// LoadedModule returns the analysed module that the module m loads as
// name, or nil when it cannot be read.
func (m *Module) LoadedModule(name string) *Module {
	lm, err := m.c.load(m.Name, name)
	if err != nil {
		return nil
	}
	return lm
}

// errors returns the module's diagnostics of severity Error.
func (m *Module) errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range m.Diagnostics {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// exports returns the public globals of the module.
func (m *Module) exports() map[string]bool {
	ex := map[string]bool{}
	if m.File == nil {
		return ex
	}
	if rm, ok := m.File.Module.(*resolve.Module); ok {
		for _, b := range rm.Globals {
			if !strings.HasPrefix(b.First.Name, "_") {
				ex[b.First.Name] = true
			}
		}
	}
	return ex
}

func (m *Module) add(pos syntax.Position, sev Severity, msg string) {
	m.Diagnostics = append(m.Diagnostics, Diagnostic{Pos: pos, Severity: sev, Message: msg})
}

// resolve parses and resolves src, keeping the bindings of defs and loads;
// it returns ctx's cause when ctx is cancelled after the parse.
func (c *Checker) resolve(ctx context.Context, name string, src []byte, predeclared starlark.StringDict) (*Module, error) {
	m := &Module{Name: name, Src: src, c: c, predeclared: predeclared,
		defs: map[*resolve.Binding]syntax.Node{}, loads: map[*resolve.Binding]loadedName{}}
	f, err := interp.ParseFile(dialect.FileOptions(), name, src, syntax.RetainComments) // nesting checked before any recursive walk
	if err != nil {
		var se syntax.Error
		if errors.As(interp.ExplainHabit(err, string(src)), &se) {
			m.add(se.Pos, Error, se.Msg)
		} else {
			m.add(syntax.MakePosition(&name, 0, 0), Error, err.Error())
		}
		return m, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	m.File = f
	isPredeclared := func(n string) bool { _, ok := predeclared[n]; return ok }
	isUniversal := func(n string) bool { _, ok := starlark.Universe[n]; return ok }
	if err := resolve.File(f, isPredeclared, isUniversal); err != nil {
		var el resolve.ErrorList
		if errors.As(err, &el) {
			for _, e := range el {
				m.add(e.Pos, Error, e.Msg)
			}
		} else {
			m.add(syntax.MakePosition(&name, 0, 0), Error, err.Error())
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DefStmt:
			if b, ok := n.Name.Binding.(*resolve.Binding); ok {
				m.defs[b] = n
			}
		case *syntax.LoadStmt:
			for i, to := range n.To {
				if b, ok := to.Binding.(*resolve.Binding); ok {
					m.loads[b] = loadedName{module: n.ModuleName(), name: n.From[i].Name}
				}
			}
		}
		return true
	})
	return m, nil
}

// isStdlibFile reports whether the file is a copy of one of bitsh's stdlib
// modules (its source in the repository's stdlib/ directory), which may
// use the stdlib's private helpers.
func isStdlibFile(name string, src []byte) bool {
	i := strings.LastIndexAny(name, `/\`)
	lib, err := fs.ReadFile(stdlib.FS, name[i+1:])
	return err == nil && string(lib) == string(src)
}
