package machine

import (
	"errors"

	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
)

// A Loop is a loop of a module's top-level code lifted into a function
// (the bindings' native_loops.go): its Source, whose Free answers the
// module's globals it reads as values of the code's own (its parameters
// are the globals holding words or bools), and what the compiler asks
// of the functions it calls.
type Loop struct {
	// Top is the module's top-level function: the names Source.Free
	// does not answer resolve in its module, then among the builtins.
	Top *starlark.Function
	// Source is the lifted function; Bools says which parameters take
	// bools (nil: none).
	Source compile.Source
	Bools  []bool
	// Read, where not nil, hears each name a function the loop calls
	// reads from its module and the value it resolves to, and returns
	// the value the compiler is to see (a compile.Refused for a global
	// the loop assigns, which the code holds in a register).
	Read func(h *starlark.Function, name string, v starlark.Value) starlark.Value
}

// CompileLoop compiles a lifted loop as compilePlain compiles a plain
// function (compile.Options.Exact, the module's lists it writes as
// arrays of their own, those it reads as tables), or says why it cannot;
// its machine code is then generated on another goroutine
// (PlainCode.Ready).
func CompileLoop(l Loop, env Env) (*Code, error) {
	if env.Sources == nil {
		return nil, errors.New("its source text was not kept")
	}
	hide := env.sessionNames()
	src := l.Source
	var tables []Table
	var globals []compile.Global
	own, module := src.Free, freeOf(l.Top, env.Builtin)
	free := func(name string) (starlark.Value, bool) {
		if own != nil {
			if v, ok := own(name); ok {
				return v, true
			}
		}
		return module(name)
	}
	src.Free, src.Builtin = exactFree(env, free, l.Top, hide, &tables, &globals), exactBuiltin(builtinOf(l.Top), hide)
	opts := env.options()
	opts.Exact = true
	if len(l.Bools) == len(src.Params) {
		opts.Bools = l.Bools
	}
	var read func(h *starlark.Function, free func(string) (starlark.Value, bool)) func(string) (starlark.Value, bool)
	if l.Read != nil {
		read = func(h *starlark.Function, free func(string) (starlark.Value, bool)) func(string) (starlark.Value, bool) {
			return func(name string) (starlark.Value, bool) {
				v, ok := free(name)
				if ok {
					v = l.Read(h, name, v)
				}
				return v, ok
			}
		}
	}
	exactHelpers(env, &opts, hide, &tables, &globals, read)
	rule := &calloutRule{env: env, top: l.Top, read: l.Read}
	f, err := translateExact(&src, opts, &tables, &globals, rule)
	if err != nil {
		return nil, err
	}
	written := f.WrittenArrays()
	if f.Results > 0 || f.ReturnsList {
		written = written[:len(written)-1] // the returned tuple's, not a list's
	}
	if err := rule.stale(written); err != nil {
		return nil, err
	}
	var biases []uint64
	words := tableWords(tables)
	globalLists, hashes, biases, words := globalArrays(globals, biases, words)
	pc := &PlainCode{Bools: opts.Bools, Bias: biases, Written: written, Tables: tables, Globals: globalLists, Hashes: hashes, Words: words,
		ready: make(chan struct{})}
	go pc.generate(f)
	return &Code{Name: src.Name, Where: l.Top.Position().String(), Params: identNames(src.Params), Func: f, Plain: pc}, nil
}
