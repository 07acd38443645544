package builtins

import (
	"errors"

	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/machine"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// CheckFuse compiles a def or lambda (fn, a *syntax.DefStmt or a
// *syntax.LambdaExpr of a parsed file) as fuse(fn) compiles it, without
// running anything, and returns fuse's own error when it cannot be fused
// ("fuse: 4:12: ..."), with the position the message names (the zero
// Position when it names none). free resolves the function's free names
// to values (a source tool that has not run the file may answer with a
// stand-in int); callable reports whether a called name is bitsh's builtin
// rather than the script's own function; defs, when not nil, returns the
// top-level def a name binds, so that the helpers fn calls are checked too
// (a helper that prints, say).
func CheckFuse(fn syntax.Node, free func(name string) (starlark.Value, bool), callable func(name string) bool,
	defs func(name string) (*syntax.DefStmt, bool)) (syntax.Position, error) {
	var params []syntax.Expr
	var body []syntax.Stmt
	switch n := fn.(type) {
	case *syntax.DefStmt:
		params, body = n.Params, n.Body
	case *syntax.LambdaExpr:
		params = n.Params
		body = machine.LambdaBody(n)
	default:
		return syntax.Position{}, errors.New("fuse: fn: not a lambda or a def")
	}
	for _, p := range params {
		if _, ok := p.(*syntax.Ident); !ok {
			return pos(p), plainParamsError(p)
		}
	}
	_, end := fn.Span()
	opts := machine.CheckOptions(builtinValue, wordsOf)
	if defs != nil {
		opts.Defs = func(name string) (*compile.Source, bool) {
			d, ok := defs(name)
			if !ok {
				return nil, false
			}
			for _, p := range d.Params {
				if _, ok := p.(*syntax.Ident); !ok {
					return nil, false // fuse's own message comes when it runs
				}
			}
			_, end := d.Span()
			return &compile.Source{Name: name, Params: machine.IdentParams(d.Params), Body: d.Body, End: end, Free: free, Builtin: callable}, true
		}
	}
	src := &compile.Source{Name: "fn", Params: machine.IdentParams(params), Body: body, End: end, Free: free, Builtin: callable}
	_, err := compile.Func(src, opts)
	if err == nil {
		return syntax.Position{}, nil
	}
	var ce *compile.Error
	if errors.As(err, &ce) {
		return ce.Pos, errors.New("fuse: " + ShortText(err.Error()))
	}
	return pos(fn), errors.New("fuse: " + ShortText(err.Error()))
}
