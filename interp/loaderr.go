package interp

import (
	"errors"
	"regexp"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// loadNotFound matches go.starlark.net's message for a load of a name a
// module does not define.
var loadNotFound = regexp.MustCompile(`load: name (\S+) not found in module (\S+)`)

// explainLoad adds to a "name not found in module" error the names the
// module exports, and says so when the name is predeclared (a user who
// loads board from @stdlib/board.star wants the builtin board).
func (in *Interp) explainLoad(err error) error {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return err
	}
	m := loadNotFound.FindStringSubmatchIndex(ee.Msg)
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
