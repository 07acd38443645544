package native

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestDefiniteWhileTrue: after a while loop whose condition is a constant
// other than 0, what held at every break holds (a set's probe assigns its
// slot before its first break), and a variable some break leaves unset,
// or that a loop of another condition assigns, may be read unset.
func TestDefiniteWhileTrue(t *testing.T) {
	v := func(i int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpVar, Imm: uint64(i), Check: -1} }
	k := func(c uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpConst, Imm: c, Check: -1} }
	assign := func(i int, x *fuse.Expr) fuse.Stmt { return fuse.Stmt{Kind: fuse.SAssign, Var: i, X: x} }
	brk := func(cond *fuse.Expr) fuse.Stmt {
		return fuse.Stmt{Kind: fuse.SIf, X: cond, Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: 0}}}
	}
	read := func(i int) fuse.Stmt { return fuse.Stmt{Kind: fuse.SReturn, X: v(i)} }
	cases := []struct {
		name  string
		cond  *fuse.Expr
		body  []fuse.Stmt
		unset bool // whether v1 may be read unset after the loop
	}{
		{"while 1, assigned before every break", k(1), []fuse.Stmt{assign(1, v(0)), brk(v(1)), brk(v(0))}, false},
		{"while 1, a break before the assignment", k(1), []fuse.Stmt{brk(v(0)), assign(1, v(0)), brk(v(1))}, true},
		{"while 1, no break", k(1), []fuse.Stmt{assign(1, v(0))}, false},
		{"while x", v(0), []fuse.Stmt{assign(1, v(0)), brk(v(1))}, true},
		{"while 0", k(0), []fuse.Stmt{assign(1, v(0)), brk(v(1))}, true},
	}
	for _, c := range cases {
		f := &fuse.Func{Params: 1, Vars: 2, Labels: 1, Body: []fuse.Stmt{
			{Kind: fuse.SWhile, X: c.cond, Label: 0, Body: c.body},
			read(1),
		}}
		if got := definite(f)[1]; got != c.unset {
			t.Errorf("%s: v1 may be read unset: %v; want %v", c.name, got, c.unset)
		}
	}
}
