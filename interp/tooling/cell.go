package tooling

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// RunCell runs a notebook cell: its statements, then, when the last one
// is an expression, that expression, whose value it returns (as IPython
// shows a cell's last value).
func RunCell(ctx context.Context, in *interp.Interp, name, code string) (starlark.Value, error) {
	f, err := interp.ParseFile(dialect.FileOptions(), name, code, 0)
	if err != nil {
		return nil, interp.ExplainHabit(err, code)
	}
	if len(f.Stmts) == 0 {
		return starlark.None, nil
	}
	last, ok := f.Stmts[len(f.Stmts)-1].(*syntax.ExprStmt)
	if !ok || len(f.Stmts) == 1 {
		return in.Exec(ctx, name, code)
	}
	start, _ := last.Span()
	off := offsetOf(code, start)
	// The expression keeps its line numbers in errors: pad it with the
	// newlines and indentation that preceded it.
	head, tail := code[:off], code[off:]
	if _, err := in.Exec(ctx, name, head); err != nil {
		return nil, err
	}
	pad := strings.Repeat("\n", strings.Count(head, "\n"))
	return in.Exec(ctx, name, pad+tail)
}

// offsetOf converts a position (1-based line, rune column) of src into a
// byte offset.
func offsetOf(src string, p syntax.Position) int {
	off := 0
	for line := int32(1); line < p.Line; line++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	for c := int32(1); c < p.Col && off < len(src); c++ {
		_, size := utf8.DecodeRuneInString(src[off:])
		off += size
	}
	return off
}
