package interp

import (
	"context"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// ExitError is the error (found with errors.As) of a run that called
// exit() or quit(): a REPL ends, a command-line run exits with Code.
type ExitError = builtins.ExitError

// ExecInteractive runs an input as a REPL does, against the interpreter's
// globals (as Exec): each top-level statement runs in turn, and the value
// of each expression statement, None excepted, is passed to echo as soon
// as it is computed and bound to the global _, as in Python's REPL. So
// "t0 = time.now(); f(); time.now() - t0" echoes f()'s value (unless
// None) and then the elapsed time. The REPL and the notebook kernel share
// it. It stops at the first error.
func (in *Interp) ExecInteractive(ctx context.Context, filename, src string, echo func(starlark.Value)) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	opts := dialect
	opts.LoadBindsGlobally = true
	f, err := parse(&opts, filename, src)
	if err != nil {
		return explainHabit(err, func(string) string { return src })
	}
	guardRepeats(f)
	in.src.keep(filename, src)
	r := in.newRun(ctx)
	defer r.close()
	thread := r.thread(filename, in.maxSteps)
	in.setScope(thread)
	defer in.runs.Enter(thread)()
	for _, stmt := range f.Stmts {
		if e, ok := stmt.(*syntax.ExprStmt); ok {
			v, err := starlark.EvalExprOptions(&opts, thread, e.X, in.globals)
			if err != nil {
				return r.wrap(err)
			}
			if v != starlark.None {
				in.globals["_"] = v
				if echo != nil {
					echo(v)
				}
			}
			continue
		}
		chunk := &syntax.File{Path: f.Path, Stmts: []syntax.Stmt{stmt}, Options: f.Options}
		if err := starlark.ExecREPLChunk(chunk, thread, in.globals); err != nil {
			return r.wrap(err)
		}
	}
	return nil
}

// setScope lets dir() at the top level of an input list the session's
// globals (those not predeclared) with the input's own.
func (in *Interp) setScope(thread *starlark.Thread) {
	env := builtins.EnvOf(thread)
	env.Scope = func(module starlark.StringDict) []string {
		var names []string
		for _, d := range []starlark.StringDict{in.globals, module} {
			for k, v := range d {
				if p, ok := in.predeclared[k]; !ok || p != v {
					names = append(names, k)
				}
			}
		}
		return names
	}
	builtins.SetEnv(thread, env)
}
