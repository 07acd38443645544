// Package builtins binds bitsh's native kernels to Starlark. Each builtin
// is registered once, with its topic and docstring, in a read-only table
// that produces a fresh predeclared dictionary for every interpreter,
// drives help(), and generates docs/builtins.md.
package builtins

//go:generate go run ./internal/gendocs -o ../docs/builtins.md

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/starlark"
)

// A Builtin describes one predeclared name: a function (Fn) or a constant
// (Value), with the docstring help(name) prints.
type Builtin struct {
	Name  string
	Topic string // one of Topics()
	// Doc starts with the call signature on its own line, then the contract.
	Doc   string
	Fn    func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
	Value starlark.Value
}

var topics = []string{"bits", "subsets", "debruijn", "endgame", "set", "words", "chess", "pictures", "shards", "fuse", "starlark", "help"}

// Topics returns the help() topics in display order.
func Topics() []string { return slices.Clone(topics) }

// registry is filled by register calls from init functions only and is
// read-only afterwards, so interpreters never share mutable state through it.
var registry = make(map[string]*Builtin, 128) // about 80 builtins: no growing at init

func register(bs ...Builtin) {
	for i := range bs {
		b := bs[i]
		if _, dup := registry[b.Name]; dup {
			panic("builtins: duplicate registration of " + b.Name)
		}
		if (b.Fn == nil) == (b.Value == nil) {
			panic("builtins: " + b.Name + " needs exactly one of Fn and Value")
		}
		registry[b.Name] = &b
	}
}

// All returns every registered builtin sorted by topic order, then name.
func All() []Builtin {
	order := map[string]int{}
	for i, t := range topics {
		order[t] = i
	}
	out := make([]Builtin, 0, len(registry))
	for _, b := range registry {
		out = append(out, *b)
	}
	sort.Slice(out, func(i, j int) bool {
		if oi, oj := order[out[i].Topic], order[out[j].Topic]; oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the registered builtin with the given name.
func Lookup(name string) (Builtin, bool) {
	b, ok := registry[name]
	if !ok {
		return Builtin{}, false
	}
	return *b, true
}

// Predeclared returns a new dictionary of all bitsh builtins, for use as
// the predeclared environment of a go.starlark.net thread. Each call
// returns a fresh dictionary, so callers may add to it freely.
func Predeclared() starlark.StringDict {
	d := make(starlark.StringDict, len(registry))
	for name, b := range registry {
		if b.Value != nil {
			d[name] = b.Value
		} else if name == "enumerate" {
			d[name] = enumerateBuiltin // the one the fork's loops know (collect.go)
		} else if name == "len" {
			d[name] = lenBuiltin // the one the fork's loop knows (len_key.go)
		} else {
			d[name] = starlark.NewBuiltin(name, b.Fn)
		}
	}
	return d
}

// Context returns the context of thread's Env, or context.Background.
// Long-running kernels poll it; the interpreter cancels it on Ctrl-C, on
// timeout and when the embedder's context ends.
func Context(thread *starlark.Thread) context.Context {
	if e := envOf(thread); e != nil && e.Context != nil {
		return e.Context
	}
	return context.Background()
}

// Stdout returns the thread's standard output (os.Stdout if unset).
func Stdout(thread *starlark.Thread) io.Writer {
	if e := envOf(thread); e != nil && e.Stdout != nil {
		return e.Stdout
	}
	return os.Stdout
}

// Stderr returns the thread's standard error (os.Stderr if unset). Progress
// bars draw on it only when it is an *os.File that is a terminal.
func Stderr(thread *starlark.Thread) io.Writer {
	if e := envOf(thread); e != nil && e.Stderr != nil {
		return e.Stderr
	}
	return os.Stderr
}

// Workers returns the worker cap for parallel kernels (GOMAXPROCS unless set).
func Workers(thread *starlark.Thread) int {
	if e := envOf(thread); e != nil && e.Workers > 0 {
		return e.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Summary returns the first line of a docstring: the call signature.
func Summary(doc string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(doc), "\n")
	return line
}

func init() {
	register(Builtin{
		Name:  "help",
		Topic: "help",
		Doc: `help(name=None)
Prints the docstring of name: a bitsh builtin, one of Starlark's own (print,
range, ...), a module (math, json, time, random, ...) or a module's member
(math.sqrt), given by value or as a string, or a Starlark function (its
signature and docstring); a string "` + dialect.StdlibPrefix + `NAME.star"
lists what that stdlib module exports, with their docstrings. Without an
argument, lists every builtin grouped by topic.`,
		Fn: help,
	})
}

func writeIndex(w io.Writer) {
	topic := ""
	for _, b := range All() {
		if b.Topic != topic {
			if topic != "" {
				fmt.Fprintln(w)
			}
			topic = b.Topic
			fmt.Fprintf(w, "%s:\n", topic)
		}
		fmt.Fprintf(w, "  %s\n", Summary(b.Doc))
	}
	writeIndexMore(w)
}

// Runs tracks the thread now running in one interpreter. Lazy values
// (subsets, debruijn_sequences, set_classes) outlive the run that made
// them: in a REPL, s = subsets(d) in one input is iterated in the next,
// whose context is the one to poll. The interpreter shares one Runs
// between its threads (Env.Runs) and marks each run with Enter.
type Runs struct {
	cur atomic.Pointer[starlark.Thread]
}

// Enter records thread as the running one and returns the function that
// restores the previous one (a loaded module runs inside its loader).
func (r *Runs) Enter(thread *starlark.Thread) (leave func()) {
	prev := r.cur.Swap(thread)
	return func() { r.cur.Store(prev) }
}

// An Origin remembers where a lazy value was made, to find at iteration
// time the thread that iterates it.
type Origin struct {
	runs    *Runs
	creator *starlark.Thread
}

// OriginOf returns the origin of a value made by a builtin called on thread.
func OriginOf(thread *starlark.Thread) Origin {
	var r *Runs
	if e := envOf(thread); e != nil {
		r = e.Runs
	}
	return Origin{runs: r, creator: thread}
}

// Thread returns the thread running now in the value's interpreter, or
// nil if unknown: without Runs, the creating thread while it still runs.
func (o Origin) Thread() *starlark.Thread {
	if o.runs != nil {
		if t := o.runs.cur.Load(); t != nil {
			return t
		}
	}
	if o.creator != nil && o.creator.CallStackDepth() > 0 {
		return o.creator
	}
	return nil
}

// Context returns the context of the run iterating the value now
// (context.Background when unknown).
func (o Origin) Context() context.Context {
	if t := o.Thread(); t != nil {
		return Context(t)
	}
	return context.Background()
}
