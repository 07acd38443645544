package builtins

import (
	"errors"
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
)

// Calls that stay interpreted (docs/internals/fuse.md, "Callouts"): a
// helper the compiler left to the interpreter (package machine,
// callout.go) is a callout of the code (fuse.Callout.Callee). The code
// stops there, Go calls the helper on the thread of the run with the
// operands as its arguments, writes its result's word where the code reads
// it (operand 0: fuse.OpResult) and lets the code go on. A helper that
// fails, or whose result is not of the kind the code takes (an int beyond
// the words, a string), fails the run, which the interpreter then runs
// again from its start: the helper changes nothing the program sees but
// what it prints, and its lines are replayed as the code's are
// (native_print.go).

// calloutWork is the work (native.Worker.Work: the code's calls and loop
// iterations) one call of a helper in the interpreter counts as, for the
// rules that give a function up (giveUp): a call in the interpreter costs
// about what a hundred iterations of code do.
const calloutWork = 100

// errCalloutResult fails a run whose helper gave back what its code cannot
// take.
var errCalloutResult = errors.New("a helper that stays interpreted gave back a value its caller's code cannot take")

// callOut calls the helper of callout c on the thread of r's run, with the
// operands ops, and writes its result into ops[0] where the code takes it.
func (nf *nativeFunc) callOut(r *nativeRun, k int, c *fuse.Callout, ops []uint64) error {
	var fn starlark.Callable
	switch f := c.Callee.(type) {
	case *starlark.Function:
		fn = f
	case compile.Builtin:
		fn = nf.builtin(string(f))
	}
	if fn == nil {
		return fmt.Errorf("callout %d: nothing to call", k)
	}
	r.calls++
	if t := nf.tally; t != nil && k < len(t.callouts) {
		t.callouts[k].Add(1)
	}
	if cap(r.args) < c.Operands {
		r.args = make(starlark.Tuple, c.Operands)
	}
	args := r.args[:c.Operands] // (the callee keeps no reference to it: exactShape's helpers take no *args)
	for i := range args {
		if c.Parts[i].Bool {
			args[i] = starlark.Bool(ops[i] != 0)
		} else {
			args[i] = starlark.MakeUint64(ops[i])
		}
	}
	if r.env == nil {
		r.env = envOf(r.thread)
	}
	v, err := callInterpreted(r.thread, r.env, fn, args)
	clear(args)
	if err != nil {
		return fmt.Errorf("%s, which stays interpreted: %w", c.Name, err)
	}
	if c.Keep {
		// For a print's part (fuse.CalloutPart.Kept).
		if len(r.kept) < len(nf.f.Callouts) {
			r.kept = make([]starlark.Value, len(nf.f.Callouts))
		}
		r.kept[k] = v
	}
	switch c.Result {
	case fuse.ResultWord:
		x, ok := v.(starlark.Int)
		if !ok {
			return errCalloutResult
		}
		if ops[0], ok = x.Uint64(); !ok {
			return errCalloutResult
		}
	case fuse.ResultBool:
		b, ok := v.(starlark.Bool)
		if !ok {
			return errCalloutResult
		}
		ops[0] = 0
		if b {
			ops[0] = 1
		}
	}
	// (No poll here: a cancelled run stops the helper at its next step,
	// which fails the run, and the code polls as it always does.)
	return nil
}

// inCallout reports whether thread is running a helper that code left to
// the interpreter: strict mode (Env.NativeStrict) does not hold a function
// first offered there to run as code, since the code asked for it to be
// interpreted.
func inCallout(thread *starlark.Thread) bool {
	te := envOf(thread)
	return te != nil && te.calling > 0
}

// callInterpreted calls fn on thread (whose environment is te, nil: none), counting the call as one in
// progress of a helper left to the interpreter (inCallout).
func callInterpreted(thread *starlark.Thread, te *threadEnv, fn starlark.Callable, args starlark.Tuple) (starlark.Value, error) {
	if te != nil {
		te.calling++
		defer func() { te.calling-- }()
	}
	return starlark.Call(thread, fn, args, nil)
}

// keptText writes the result callout k kept (fuse.CalloutPart.Kept) as
// print writes a value (verb 's': a string as it is) or as repr does
// ('r'), then drops it.
func (r *nativeRun) keptText(k int, verb byte) string {
	if k >= len(r.kept) || r.kept[k] == nil {
		return "" // (not reached: a print's kept calls come before it)
	}
	v := r.kept[k]
	r.kept[k] = nil
	if s, ok := v.(starlark.String); ok && verb == 's' {
		return string(s)
	}
	return v.String()
}

// builtin returns the builtin name as nf's module sees it (its
// interpreter's predeclared one, or Starlark's own), nil where there is
// none.
func (nf *nativeFunc) builtin(name string) starlark.Callable {
	var v starlark.Value
	if m := nf.fn.Module(); m != nil {
		v = m.Predeclared()[name]
	}
	if v == nil {
		v = starlark.Universe[name]
	}
	c, _ := v.(starlark.Callable)
	return c
}
