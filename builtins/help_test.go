package builtins_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// helpText calls help(arg) and returns what it printed.
func helpText(t *testing.T, arg starlark.Value) (string, error) {
	t.Helper()
	var out bytes.Buffer
	thread := &starlark.Thread{}
	builtins.SetEnv(thread, builtins.Env{Stdout: &out, Stderr: &out})
	_, err := starlark.Call(thread, builtins.Predeclared()["help"], starlark.Tuple{arg}, nil)
	return out.String(), err
}

// TestHelpCoversStarlark checks that every name of starlark.Universe and
// every member of the predeclared modules has a docstring: by value and by
// name, each answer starting with the name.
func TestHelpCoversStarlark(t *testing.T) {
	env := builtins.Predeclared()
	for name, v := range starlark.Universe {
		if p, ok := env[name]; ok {
			v = p // bitsh's own version
		}
		for _, arg := range []starlark.Value{v, starlark.String(name)} {
			if _, ok := arg.(starlark.Bool); ok {
				continue // help(True) is help of a bool value
			}
			if arg == starlark.None {
				continue // help(None) is the index
			}
			got, err := helpText(t, arg)
			if err != nil {
				t.Errorf("help(%s): %v", arg, err)
				continue
			}
			if !strings.HasPrefix(got, name) {
				t.Errorf("help(%s) = %q; want it to start with %s", arg, got, name)
			}
		}
	}
	mods := map[string]*starlarkstruct.Module{"math": math.Module, "json": json.Module, "time": time.Module,
		"random": env["random"].(*starlarkstruct.Module)}
	for mod, m := range mods {
		got, err := helpText(t, m)
		if err != nil || !strings.HasPrefix(got, mod+"\n") {
			t.Errorf("help(%s) = %q, %v", mod, got, err)
		}
		for member, v := range m.Members {
			want := mod + "." + member
			for _, arg := range []starlark.Value{v, starlark.String(want)} {
				if _, ok := v.(*starlark.Builtin); !ok && arg == v {
					continue // a constant (math.pi, time.hour): by name only
				}
				got, err := helpText(t, arg)
				if err != nil || !strings.HasPrefix(got, want) {
					first, _, _ := strings.Cut(got, "\n")
					t.Errorf("help(%s) starts %q (err %v); want a line starting with %s", arg, first, err, want)
				}
			}
		}
	}
}

func TestHelpErrors(t *testing.T) {
	for _, c := range []struct {
		arg  starlark.Value
		want string
	}{
		{starlark.String("nope"), `help: name = "nope" is not a bitsh builtin, a Starlark builtin or a module`},
		{starlark.MakeInt(5), "help: name: got int, want a string, a builtin or a module"},
		{starlark.String("@stdlib/nope.star"), `help: no stdlib module "nope.star"`},
	} {
		if _, err := helpText(t, c.arg); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("help(%s): err = %v; want %q", c.arg, err, c.want)
		}
	}
}
