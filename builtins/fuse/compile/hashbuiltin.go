package compile

import "go.starlark.net/syntax"

// builtinCall reports whether call calls one of bitsh's builtins by its
// name (len(s), sorted(d)), known as one (Source.Builtin): a builtin is
// no helper, so a table passed to it keeps its state in variables (a
// header array only where a helper that recurses may take the table).
// Where Source.Builtin is nil no call is known as a builtin's.
func (c *compiler) builtinCall(call *syntax.CallExpr) bool {
	id, ok := unparen(call.Fn).(*syntax.Ident)
	return ok && c.scope.src.Builtin != nil && c.isBuiltin(id.Name)
}
