package builtins

import (
	"fmt"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// MaxJSONDepth is how deeply json.decode lets arrays and objects nest,
// as go.starlark.net's parser limits the nesting of brackets in code.
// go.starlark.net's decoder recurses once per level, and a text of a few
// million brackets used to exhaust the stack and kill the process.
const MaxJSONDepth = 1000

// JSON is the json module bitsh predeclares: go.starlark.net's lib/json,
// whose decode first checks the nesting of its input (MaxJSONDepth). The
// module is never modified.
var JSON = jsonModule()

func jsonModule() *starlarkstruct.Module {
	members := make(starlark.StringDict, len(json.Module.Members))
	for k, v := range json.Module.Members {
		members[k] = v
	}
	decode := json.Module.Members["decode"].(*starlark.Builtin)
	members["decode"] = starlark.NewBuiltin("json.decode", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			if s, ok := args[0].(starlark.String); ok {
				if err := checkJSONDepth(string(s)); err != nil {
					return nil, fmt.Errorf("%s: %v", b.Name(), err)
				}
			}
		}
		return starlark.Call(thread, decode, args, kwargs)
	})
	return &starlarkstruct.Module{Name: json.Module.Name, Members: members}
}

// checkJSONDepth returns an error when the JSON text s nests arrays and
// objects more than MaxJSONDepth deep; brackets inside strings do not
// count. It does not validate s: the decoder does.
func checkJSONDepth(s string) error {
	depth := 0
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxJSONDepth {
				return fmt.Errorf("JSON nested more than %d deep (at byte %d)", MaxJSONDepth, i)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
