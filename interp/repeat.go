package interp

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// go.starlark.net evaluates [0] * 100000000 in one allocation of 1.6 GB
// that nothing can check or interrupt: under a memory limit the process
// dies, and a timeout waits for it. bitsh rewrites the repetition of a
// literal sequence (a list, tuple, comprehension or string written in the
// code, on either side of *) into a call of repeat, which checks the
// result's size against the budget first and fills a big result while
// polling the run's context. Other products are left to the interpreter,
// so arithmetic costs nothing more; l * n with l a variable is checked
// by bitsh's fork of go.starlark.net before it allocates (its allocation
// check, builtins.Env.MaxMemory), though not interrupted, and not at all
// with upstream go.starlark.net (docs/reliability.md, "Doubling").

// repeatName is the name the rewritten calls use: not an identifier, so
// no script can write, shadow or see it.
const repeatName = "bitsh.repeat"

var repeatBuiltin = starlark.NewBuiltin("repeat", repeat)

var (
	exprType = reflect.TypeFor[syntax.Expr]()
	nodeType = reflect.TypeFor[syntax.Node]()
	exprs    = reflect.TypeFor[[]syntax.Expr]()
)

// guardRepeats rewrites, in place, every seq * n of n's syntax tree whose
// seq is a literal sequence into bitsh.repeat(seq, n).
func guardRepeats(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return true
		}
		v = v.Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			switch f.Type() {
			case exprType, nodeType:
				if e, ok := f.Interface().(syntax.Expr); ok {
					if c := repeatCall(e); c != nil {
						f.Set(reflect.ValueOf(c))
					}
				}
			case exprs:
				for j := range f.Len() {
					if c := repeatCall(f.Index(j).Interface().(syntax.Expr)); c != nil {
						f.Index(j).Set(reflect.ValueOf(c))
					}
				}
			}
		}
		return true // Walk reads the children after this, so it visits the new call's arguments
	})
}

// repeatCall returns the call that replaces e, or nil to keep e.
func repeatCall(e syntax.Expr) syntax.Expr {
	b, ok := e.(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.STAR || !(literalSeq(b.X) || literalSeq(b.Y)) {
		return nil
	}
	return &syntax.CallExpr{
		Fn:     &syntax.Ident{NamePos: b.OpPos, Name: repeatName},
		Lparen: b.OpPos,
		Args:   []syntax.Expr{b.X, b.Y},
		Rparen: b.OpPos,
	}
}

func literalSeq(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.ListExpr, *syntax.TupleExpr, *syntax.Comprehension:
		return true
	case *syntax.ParenExpr:
		return literalSeq(e.X)
	case *syntax.Literal:
		return e.Token == syntax.STRING || e.Token == syntax.BYTES
	}
	return false
}

// repeat is x * y with a size check and, for big lists and tuples, a fill
// that polls the run's context.
func repeat(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	x, y := args[0], args[1]
	seq, count := x, y
	if _, ok := seq.(starlark.Int); ok {
		seq, count = y, x
	}
	ci, ok := count.(starlark.Int)
	if !ok {
		return starlark.Binary(syntax.STAR, x, y)
	}
	n, ok := ci.Int64()
	if !ok || n <= 0 {
		return starlark.Binary(syntax.STAR, x, y)
	}
	var elems []starlark.Value
	switch s := seq.(type) {
	case *starlark.List:
		elems = make([]starlark.Value, s.Len())
		for i := range elems {
			elems[i] = s.Index(i)
		}
	case starlark.Tuple:
		elems = s
	case starlark.String, starlark.Bytes:
		size := memory.AllocSize(int64(starlark.Len(s)), n)
		if err := builtins.CheckAlloc(thread, b.Name(), size); err != nil {
			return nil, err
		}
		return starlark.Binary(syntax.STAR, x, y)
	default:
		return starlark.Binary(syntax.STAR, x, y)
	}
	total := memory.AllocSize(int64(len(elems)), n)
	if err := builtins.CheckAlloc(thread, b.Name(), memory.AllocSize(total, 16)); err != nil {
		return nil, err
	}
	if total <= 1<<16 || len(elems) == 0 {
		return starlark.Binary(syntax.STAR, x, y) // its own limits and messages
	}
	if total >= 1<<30 {
		return starlark.Binary(syntax.STAR, x, y) // "excessive repeat", as go.starlark.net says
	}
	out := make([]starlark.Value, total)
	ctx := builtins.Context(thread)
	// Copy what is filled onto what follows, a chunk (a whole number of
	// periods) at a time, looking at the context between chunks.
	chunk := max(1, (1<<20)/len(elems)) * len(elems)
	for k := copy(out, elems); k < len(out); k += copy(out[k:], out[:min(k, chunk)]) {
		if ctx.Err() != nil {
			thread.Cancel(causeText(ctx))
			return nil, fmt.Errorf("%s", causeText(ctx))
		}
	}
	if _, ok := seq.(starlark.Tuple); ok {
		return starlark.Tuple(out), nil
	}
	return starlark.NewList(out), nil
}

func causeText(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil {
		return c.Error()
	}
	return "cancelled"
}

// withoutHidden drops the names a script cannot see from a list of names.
func withoutHidden(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if !strings.Contains(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

// execFile is starlark.ExecFileOptions with the repetitions guarded; its
// globals are frozen only where freeze is true (WithUnfrozenScript).
func execFile(opts *syntax.FileOptions, thread *starlark.Thread, filename string, src any, predeclared starlark.StringDict, freeze bool) (starlark.StringDict, error) {
	f, err := parse(opts, filename, src)
	if err != nil {
		return nil, err
	}
	guardRepeats(f)
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return nil, err
	}
	g, err := prog.Init(thread, predeclared)
	if freeze {
		g.Freeze()
	}
	return g, err
}
