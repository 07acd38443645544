package native

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestFixedArrays: a Proc's array parameter is the Func's array k where
// every call passes k, through chains of calls and calls of itself; it is
// not where calls pass different arrays, a Proc's own array, or an array
// of another length, nor where the Proc is never called.
func TestFixedArrays(t *testing.T) {
	arr := func(a int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a), Check: -1} }
	call := func(p int, arrays ...int) fuse.Stmt {
		x := &fuse.Expr{Op: fuse.OpCall, Imm: uint64(p), Check: -1}
		for _, a := range arrays {
			x.Args = append(x.Args, arr(a))
		}
		return fuse.Stmt{Kind: fuse.SAssign, Var: 0, X: x}
	}
	scratch := func(lens ...int) []fuse.Scratch {
		s := make([]fuse.Scratch, len(lens))
		for i, n := range lens {
			s[i].Len = n
		}
		return s
	}
	// The Func's arrays 0, 1 (parameters) and 2 (its own), all of 4
	// words; each Proc takes two of 4 words and has one of its own.
	build := func(body []fuse.Stmt, procs ...fuse.Proc) *fuse.Func {
		return &fuse.Func{Vars: 1, Arrays: 2, Scratch: scratch(4, 4, 4), Body: body, Procs: procs}
	}
	proc := func(body ...fuse.Stmt) fuse.Proc {
		return fuse.Proc{Arrays: 2, Vars: 1, Scratch: scratch(4, 4, 4), Body: body}
	}
	cases := []struct {
		f    *fuse.Func
		want string
	}{
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(call(0, 0, 1))), "[[0 1 -1]]"},
		// In place the other way round: the parameters swap at each call.
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(call(0, 1, 0))), "[[-1 -1 -1]]"},
		{build([]fuse.Stmt{call(0, 0, 1), call(0, 2, 1)}, proc()), "[[-1 1 -1]]"},
		// p0 passes its first parameter and its own array to p1.
		{build([]fuse.Stmt{call(0, 1, 0)}, proc(call(1, 0, 2)), proc()), "[[1 0 -1] [1 -1 -1]]"},
		// p1 is never called.
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(), proc()), "[[0 1 -1] [-1 -1 -1]]"},
	}
	for i, c := range cases {
		if got := fmt.Sprint(fixedArrays(c.f)); got != c.want {
			t.Errorf("case %d: fixed arrays %s; want %s", i, got, c.want)
		}
	}
	// An array of another length than the parameter's.
	f := build([]fuse.Stmt{call(0, 0, 1)}, proc())
	f.Scratch[1].Len = 8
	if got := fmt.Sprint(fixedArrays(f)); got != "[[0 -1 -1]]" {
		t.Errorf("lengths differ: fixed arrays %s; want [[0 -1 -1]]", got)
	}
}
