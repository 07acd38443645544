package builtins

// dir(), exit() and quit(): the REPL habits of Python users (docs/repl.md).

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"
)

func init() {
	register(
		Builtin{Name: "dir", Topic: "help", Fn: dirFn, Doc: `dir(x=None)
With an argument, as Starlark's dir: the names of x's attributes and methods.
Without one, the names in scope where it is called, sorted: inside a function
its local variables, at the top level the globals the script (or the REPL
session) has defined, _ included. help() lists the builtins.`},
		Builtin{Name: "exit", Topic: "help", Fn: exitFn, Doc: exitDoc("exit")},
		Builtin{Name: "quit", Topic: "help", Fn: exitFn, Doc: exitDoc("quit")},
	)
}

func exitDoc(name string) string {
	return name + `(code=0)
In the REPL, ends the session. In a script (bitsh FILE, -c), stops it there:
bitsh exits with status code (0..255) and prints nothing more. An embedder
sees the run fail with an error wrapping *builtins.ExitError (errors.As).`
}

// An ExitError is the error of a run stopped by exit() or quit(): the
// command line exits with Code, the REPL ends.
type ExitError struct {
	Code int
	Name string // "exit" or "quit", as the script spelled it
}

func (e *ExitError) Error() string { return fmt.Sprintf("%s(%d)", e.Name, e.Code) }

func exitFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	code := 0
	if err := unpack(b.Name(), args, kwargs, "code?", &code); err != nil {
		return nil, err
	}
	if code < 0 || code > 255 {
		return nil, fmt.Errorf("%s: code = %d is out of range 0..255", b.Name(), code)
	}
	return nil, &ExitError{Code: code, Name: b.Name()}
}

func dirFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 || len(kwargs) > 0 {
		return starlark.Call(thread, starlark.Universe["dir"], args, kwargs)
	}
	var names []string
	if thread.CallStackDepth() > 1 {
		fr := thread.DebugFrame(1)
		if fn, ok := fr.Callable().(*starlark.Function); ok {
			if name := fn.Name(); name == "<toplevel>" || name == "<expr>" {
				module := fn.Globals()
				if e := envOf(thread); e != nil && e.Scope != nil {
					names = e.Scope(module)
				} else {
					names = module.Keys()
				}
			} else {
				for i := 0; i < fr.NumLocals(); i++ {
					if bind, v := fr.Local(i); v != nil {
						names = append(names, bind.Name)
					}
				}
			}
		}
	}
	sort.Strings(names)
	out := make([]starlark.Value, 0, len(names))
	for i, n := range names {
		if i == 0 || n != names[i-1] {
			out = append(out, starlark.String(n))
		}
	}
	return starlark.NewList(out), nil
}
