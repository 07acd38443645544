package native

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestSteadyArrays: the Func's array parameters are steady, its own
// arrays are not; a Proc's array parameter is steady where every call
// passes it a steady array, through chains of calls; a Proc that makes an
// array parameter fresh leaves no array steady.
func TestSteadyArrays(t *testing.T) {
	arr := func(a int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpArray, Imm: uint64(a), Check: -1} }
	call := func(p int, arrays ...int) fuse.Stmt {
		x := &fuse.Expr{Op: fuse.OpCall, Imm: uint64(p), Check: -1}
		for _, a := range arrays {
			x.Args = append(x.Args, arr(a))
		}
		return fuse.Stmt{Kind: fuse.SAssign, Var: 0, X: x}
	}
	scratch := func(n int) []fuse.Scratch { return make([]fuse.Scratch, n) }
	// Scratch 0, 1: the Func's parameters; 2: its own.
	build := func(body []fuse.Stmt, procs ...fuse.Proc) *fuse.Func {
		return &fuse.Func{Vars: 1, Arrays: 2, Scratch: scratch(3), Body: body, Procs: procs}
	}
	proc := func(body ...fuse.Stmt) fuse.Proc {
		return fuse.Proc{Arrays: 2, Vars: 1, Scratch: scratch(3), Body: body}
	}
	cases := []struct {
		f     *fuse.Func
		body  string
		procs string
	}{
		{build(nil), "[true true false]", "[]"},
		// p0 gets 0 and 1 from the body, and passes them on in place.
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(call(0, 0, 1))), "[true true false]", "[[true true false]]"},
		// p0's second parameter gets the body's own array at one call.
		{build([]fuse.Stmt{call(0, 0, 1), call(0, 1, 2)}, proc()), "[true true false]", "[[true false false]]"},
		// p0 passes its own array to p1's first: p1's first is not steady,
		// nor, through p1's call of p0, p0's second.
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(call(1, 2, 0)), proc(call(0, 1, 0))), "[true true false]", "[[true false false] [false true false]]"},
		// A Proc makes an array parameter fresh: nothing is steady.
		{build([]fuse.Stmt{call(0, 0, 1)}, proc(fuse.Stmt{Kind: fuse.SFresh, Arr: 0})), "[false false false]", "[[false false false]]"},
		// The body makes a parameter fresh.
		{build([]fuse.Stmt{{Kind: fuse.SFresh, Arr: 1}, call(0, 0, 1)}, proc()), "[true false false]", "[[true false false]]"},
	}
	for i, c := range cases {
		body, procs := steadyArrays(c.f)
		if got := fmt.Sprint(body); got != c.body {
			t.Errorf("case %d: the body's steady arrays %s; want %s", i, got, c.body)
		}
		if got := fmt.Sprint(procs); got != c.procs {
			t.Errorf("case %d: the Procs' steady arrays %s; want %s", i, got, c.procs)
		}
	}
}
