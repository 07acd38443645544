package native

import "github.com/bitsh/bitsh/builtins/fuse"

// Steady arrays: scratch arrays whose elements the amd64 engine reads and
// writes without their epochs.
//
// An array parameter of the Func (Scratch[:Arrays]: a list of the
// module's, a set or dict passed or of the module) is never made fresh:
// its epoch, at the layout's epochs, is 0 in a new worker's memory and
// stays 0, since the body makes fresh only its own arrays and Go's
// setters (SetArray, SetPrefix, SetElem) write each element's epoch as
// the array's. Every element's epoch is therefore 0 too: those the worker
// never wrote are zero memory, the others were written with the array's
// epoch. So the comparison of an element's epoch with the array's always
// finds them equal, and the value alone is the element, as the checked
// read would give it; a store's epoch word would write the 0 already
// there. A Proc's array parameter is as steady where every call of the
// Proc passes a steady array there, and none of the Func's Procs makes an
// array parameter fresh (a Proc's SFresh on one gives it a new epoch,
// which its stores would write into the caller's elements).
//
// Such an array's epoch is 0 wherever the code needs it as a word: a call
// that passes it to a Proc whose parameter is not steady passes 0.
// Without its epoch an array takes no register for it (useArray), and
// reading an element is one load instead of two, from two cache lines
// (the values and the epochs are two arrays): half the misses of a large
// table's probe (memo's dict, setqueens's sets).

// steadyArrays returns, for the Func's body and for each of its Procs,
// which scratch arrays are steady (above).
func steadyArrays(f *fuse.Func) (body []bool, procs [][]bool) {
	body = make([]bool, len(f.Scratch))
	procs = make([][]bool, len(f.Procs))
	for i := range f.Procs {
		procs[i] = make([]bool, len(f.Procs[i].Scratch))
	}
	for i := range f.Procs {
		if freshensParams(&f.Procs[i]) {
			return body, procs
		}
	}
	for a := 0; a < f.Arrays; a++ {
		body[a] = true
	}
	for a := f.Arrays; a < len(f.Scratch); a++ {
		// An element read only after it was written this run needs no
		// epoch either, whatever the array's epoch is.
		body[a] = f.Scratch[a].Stale
	}
	var fresh func(ss []fuse.Stmt)
	fresh = func(ss []fuse.Stmt) {
		for i := range ss {
			if ss[i].Kind == fuse.SFresh {
				body[ss[i].Arr] = false
			}
			fresh(ss[i].Body)
			fresh(ss[i].Else)
		}
	}
	fresh(f.Body)
	for i := range f.Procs {
		for a := 0; a < f.Procs[i].Arrays; a++ {
			procs[i][a] = true
		}
	}
	// A Proc's parameter loses steadiness where a call passes it an
	// array that is not steady where the call is; repeat until no call
	// changes one.
	for changed := true; changed; {
		changed = false
		calls := func(ss []fuse.Stmt, here []bool) {
			eachExprIn(ss, func(x *fuse.Expr) {
				if x.Op != fuse.OpCall {
					return
				}
				p := &f.Procs[x.Imm]
				for k, e := range x.Args[p.Params:] {
					if procs[x.Imm][k] && (e.Op != fuse.OpArray || !here[e.Imm]) {
						procs[x.Imm][k] = false
						changed = true
					}
				}
			})
		}
		calls(f.Body, body)
		for q := range f.Procs {
			calls(f.Procs[q].Body, procs[q])
		}
	}
	return body, procs
}

// steadyOf returns which scratch arrays of the code g generates are
// steady: the Func's body's (proc < 0) or Proc proc's.
func steadyOf(f *fuse.Func, calls *callState, proc int) []bool {
	if calls == nil {
		body, _ := steadyArrays(f)
		return body
	}
	body, procs := steadyArrays(calls.root)
	if proc < 0 {
		return body
	}
	return procs[proc]
}
