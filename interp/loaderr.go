package interp

import (
	"errors"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

// loadNotFound matches go.starlark.net's message for a load of a name a
// module does not define.
var loadNotFound = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`load: name (\S+) not found in module (\S+)`) }) // compiled when first used

// explainLoad adds to a "name not found in module" error the names the
// module exports, and says so when the name is predeclared (a user who
// loads board from @stdlib/board.star wants the builtin board).
func (in *Interp) explainLoad(err error) error {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return err
	}
	m := loadNotFound().FindStringSubmatchIndex(ee.Msg)
	if m == nil {
		return err
	}
	name, module := ee.Msg[m[2]:m[3]], ee.Msg[m[4]:m[5]]
	mod, ok := in.modules[module]
	if !ok {
		if key, err := in.resolve("", module); err == nil {
			mod, ok = in.modules[key]
		}
	}
	if !ok || mod.err != nil {
		return err
	}
	var exports []string
	for k := range mod.globals {
		if !strings.HasPrefix(k, "_") {
			exports = append(exports, k)
		}
	}
	sort.Strings(exports)
	hint := " (it exports " + strings.Join(exports, ", ") + ")"
	if len(exports) == 0 {
		hint = " (it exports nothing)"
	}
	if _, ok := in.predeclared[name]; ok {
		hint += "; " + name + " is predeclared: use it without a load"
	}
	ee.Msg = ee.Msg[:m[1]] + hint + ee.Msg[m[1]:]
	return err
}

// A loadError is the error of a module that failed while it ran for a
// load: the cause, with its position in the module that failed, and the
// chain of modules being loaded, the outermost first. go.starlark.net
// prefixes "cannot load m.star: " at every level, so a chain of 900 loads
// made a line of 20 KB whose cause came last, without its position; wrap
// replaces the message with Error's, the cause first.
type loadError struct {
	pos   string   // the cause's file:line:column, "" when its message has it
	msg   string   // the cause's message
	chain []string // the modules being loaded, the outermost first
	err   error    // the module's own error
}

func (e *loadError) Unwrap() error { return e.err }

// Error returns the cause, its position, and the chain of loads
// abbreviated to its first and last loadChainShown modules.
func (e *loadError) Error() string {
	var b strings.Builder
	if e.pos != "" {
		b.WriteString(e.pos)
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	b.WriteString(" (while loading ")
	b.WriteString(abbreviateChain(e.chain))
	b.WriteString(")")
	return b.String()
}

// loadChainShown is how many modules a chain of loads shows at each end.
const loadChainShown = 4

// abbreviateChain joins the modules of a chain of loads with " -> ",
// leaving out (and counting) those past loadChainShown at each end.
func abbreviateChain(chain []string) string {
	if len(chain) > 2*loadChainShown+1 {
		hidden := len(chain) - 2*loadChainShown
		chain = append(append(slices.Clone(chain[:loadChainShown]), "… "+group(hidden)+" more …"), chain[len(chain)-loadChainShown:]...)
	}
	return strings.Join(chain, " -> ")
}

// newLoadError returns the error of module key, which failed with err
// while it ran for a load.
func newLoadError(key string, err error) *loadError {
	var inner *loadError
	if errors.As(err, &inner) {
		return &loadError{pos: inner.pos, msg: inner.msg, chain: append([]string{key}, inner.chain...), err: err}
	}
	le := &loadError{msg: err.Error(), chain: []string{key}, err: err}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		le.msg = ee.Msg
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if pos := ee.CallStack[i].Pos; pos.Filename() != "<builtin>" {
				le.pos = pos.String()
				break
			}
		}
	}
	return le
}

// explainLoadChain gives the error of a run whose load failed the
// message of the loadError it wraps: the cause first.
func explainLoadChain(err error) error {
	var ee *starlark.EvalError
	var le *loadError
	if errors.As(err, &ee) && errors.As(err, &le) {
		ee.Msg = le.Error()
	}
	return err
}
