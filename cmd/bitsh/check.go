package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/stdlib"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const checkUsage = `usage: bitsh check FILE...

Parses and resolves each file with bitsh's dialect and predeclared names,
without running it: syntax errors, undefined names, and loads of modules
or names that cannot be found are printed as file:line:col: message.
Exit status 1 when any problem is found.
`

// runCheck implements "bitsh check".
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, checkUsage)
			return exitOK
		}
		return usageError(stderr, "check: %v (bitsh check -h for usage)", err)
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "check: no files given (bitsh check -h for usage)")
	}
	c := newChecker()
	status := exitOK
	for _, name := range fs.Args() {
		problems := c.checkFile(name)
		sort.SliceStable(problems, func(i, j int) bool { return lineCol(problems[i]).less(lineCol(problems[j])) })
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
			status = exitError
		}
	}
	return status
}

// A checker resolves files against bitsh's predeclared names, parsing each
// loaded module once.
type checker struct {
	predeclared starlark.StringDict
	exports     map[string]map[string]bool // module key -> its public globals
}

func newChecker() *checker {
	p := interp.Predeclared()
	p["argv"] = starlark.NewList(nil)
	return &checker{predeclared: p, exports: map[string]map[string]bool{}}
}

// checkFile returns the problems of one file, each "file:line:col: message".
func (c *checker) checkFile(name string) []string {
	src, err := os.ReadFile(name)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, unwrapPath(err))}
	}
	predeclared := c.predeclared
	if isStdlibFile(name, src) {
		predeclared = c.stdlibPredeclared()
	}
	f, errs := c.resolve(name, src, predeclared)
	if f == nil {
		return errs
	}
	for _, stmt := range f.Stmts {
		load, ok := stmt.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		module := load.ModuleName()
		exports, err := c.moduleExports(name, module)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", load.Module.TokenPos, err))
			continue
		}
		for _, from := range load.From {
			if !exports[from.Name] && !strings.HasPrefix(from.Name, "_") { // the resolver reports private names
				errs = append(errs, fmt.Sprintf("%s: load: module %s has no public name %s", from.NamePos, module, from.Name))
			}
		}
	}
	return errs
}

// resolve parses and resolves src, returning the file (nil on a syntax
// error) and its problems.
func (c *checker) resolve(name string, src []byte, predeclared starlark.StringDict) (*syntax.File, []string) {
	f, err := interp.FileOptions().Parse(name, src, 0)
	if err == nil {
		err = interp.CheckNesting(f)
	}
	if err != nil {
		var se syntax.Error
		if errors.As(err, &se) {
			return nil, []string{fmt.Sprintf("%s: %s", se.Pos, se.Msg)}
		}
		return nil, []string{err.Error()}
	}
	isPredeclared := func(n string) bool { _, ok := predeclared[n]; return ok }
	isUniversal := func(n string) bool { _, ok := starlark.Universe[n]; return ok }
	if err := resolve.File(f, isPredeclared, isUniversal); err != nil {
		var el resolve.ErrorList
		if errors.As(err, &el) {
			out := make([]string, len(el))
			for i, e := range el {
				out[i] = fmt.Sprintf("%s: %s", e.Pos, e.Msg)
			}
			return f, out
		}
		return f, []string{err.Error()}
	}
	return f, nil
}

// moduleExports returns the public globals of the module that the file
// from loads as name, with bitsh's rules for @stdlib/ and relative paths.
func (c *checker) moduleExports(from, name string) (map[string]bool, error) {
	var key string
	var src []byte
	var err error
	predeclared := c.predeclared
	switch {
	case strings.HasPrefix(name, interp.StdlibPrefix):
		key = name
		src, err = fs.ReadFile(stdlib.FS, strings.TrimPrefix(name, interp.StdlibPrefix))
		if err != nil {
			return nil, fmt.Errorf("load: no stdlib module %q", name)
		}
		predeclared = c.stdlibPredeclared()
	case strings.HasPrefix(name, "@"):
		return nil, fmt.Errorf("load: unknown module prefix in %q (bitsh knows %q)", name, interp.StdlibPrefix)
	default:
		key = name
		if !filepath.IsAbs(name) {
			key = filepath.Join(filepath.Dir(from), name)
		}
		src, err = os.ReadFile(key)
		if err != nil {
			return nil, fmt.Errorf("load: cannot read module %q: %v", name, unwrapPath(err))
		}
	}
	if ex, ok := c.exports[key]; ok {
		return ex, nil
	}
	c.exports[key] = map[string]bool{} // a load cycle sees no names rather than recursing
	f, errs := c.resolve(key, src, predeclared)
	if f == nil || len(errs) > 0 {
		return nil, fmt.Errorf("load: module %q has errors (bitsh check %s)", name, key)
	}
	ex := map[string]bool{}
	if m, ok := f.Module.(*resolve.Module); ok {
		for _, b := range m.Globals {
			if !strings.HasPrefix(b.First.Name, "_") {
				ex[b.First.Name] = true
			}
		}
	}
	c.exports[key] = ex
	return ex, nil
}

// unwrapPath drops the operation and path of an *fs.PathError, which the
// message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// stdlibPredeclared adds the private helpers stdlib modules are written
// with to the predeclared names.
func (c *checker) stdlibPredeclared() starlark.StringDict {
	d := starlark.StringDict{"_bitsh": starlark.None}
	for k, v := range c.predeclared {
		d[k] = v
	}
	return d
}

// isStdlibFile reports whether the file is a copy of one of bitsh's stdlib
// modules (its source in the repository's stdlib/ directory).
func isStdlibFile(name string, src []byte) bool {
	lib, err := fs.ReadFile(stdlib.FS, filepath.Base(name))
	return err == nil && string(lib) == string(src)
}

type position struct{ line, col int }

func (p position) less(q position) bool {
	return p.line < q.line || p.line == q.line && p.col < q.col
}

var posPattern = regexp.MustCompile(`^[^\n]*?:(\d+):(\d+): `)

// lineCol reads the line and column back from a problem's text.
func lineCol(problem string) position {
	m := posPattern.FindStringSubmatch(problem)
	if m == nil {
		return position{}
	}
	l, _ := strconv.Atoi(m[1])
	c, _ := strconv.Atoi(m[2])
	return position{l, c}
}
