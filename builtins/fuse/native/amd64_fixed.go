package native

import "github.com/bitsh/bitsh/builtins/fuse"

// Fixed arrays: a Proc's array parameter that every call gives the same
// array of the Func (memo's steps(n), given the module's dict at every
// call; setqueens's place, given the same three sets all the way down)
// is where the layout puts that array, at a constant offset from RDI, as
// in the Func's body: the Proc addresses it so, and keeps no pointer to
// it in a register or its frame, nor does a call pass one. setqueens's
// twelve arrays held seven of a Proc's eight registers; they go to its
// variables.

// fixedArrays returns, for each of f's Procs, the array of the Func that
// each of its array parameters always is (its index in f.Scratch), or -1
// where calls give it different ones, or one of a Proc's own, or the
// Proc is never called; its own arrays are -1 too.
func fixedArrays(f *fuse.Func) [][]int {
	const unseen = -2
	fixed := make([][]int, len(f.Procs))
	for q := range f.Procs {
		fixed[q] = make([]int, len(f.Procs[q].Scratch))
		for i := range fixed[q] {
			fixed[q][i] = -1
			if i < f.Procs[q].Arrays {
				fixed[q][i] = unseen
			}
		}
	}
	// meet joins what a call passes (k: the Func's array k; -1: varies)
	// into what parameter i of Proc q is.
	changed := false
	meet := func(q, i, k int) {
		old := fixed[q][i]
		switch {
		case old == -1:
			return
		case k >= 0 && f.Scratch[k].Len != f.Procs[q].Scratch[i].Len:
			k = -1
		case old != unseen && old != k:
			k = -1
		}
		if k != old && k != unseen {
			fixed[q][i] = k
			changed = true
		}
	}
	calls := func(ss []fuse.Stmt, of func(j int) int) {
		eachExprIn(ss, func(x *fuse.Expr) {
			if x.Op != fuse.OpCall {
				return
			}
			p := &f.Procs[x.Imm]
			for i, e := range x.Args[p.Params:] {
				k := -1
				if e.Op == fuse.OpArray {
					k = of(int(e.Imm))
				}
				meet(int(x.Imm), i, k)
			}
		})
	}
	for changed = true; changed; {
		changed = false
		calls(f.Body, func(j int) int { return j })
		for q := range f.Procs {
			calls(f.Procs[q].Body, func(j int) int { return fixed[q][j] })
		}
	}
	for q := range fixed {
		for i, k := range fixed[q] {
			if k == unseen {
				fixed[q][i] = -1
			}
		}
	}
	return fixed
}

// fixedOf returns the Func's array that scratch array arr of the code g
// generates always is, in a Proc's code (fixedArrays), or -1.
func (g *amd64Gen) fixedOf(arr int) int {
	if g.fixed == nil {
		return -1
	}
	return g.fixed[arr]
}

// fixedFor returns the fixed arrays of Proc proc's code (nil for the
// Func's body: it addresses every array from RDI already).
func fixedFor(calls *callState, proc int) []int {
	if calls == nil || proc < 0 {
		return nil
	}
	return fixedArrays(calls.root)[proc]
}
