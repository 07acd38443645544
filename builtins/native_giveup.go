package builtins

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// A function whose code does little but call helpers that stay
// interpreted (callouts: native_callouts.go) costs more as code than in
// the interpreter: each callout leaves the code for Go and the
// interpreter and comes back, which costs more than the interpreter's own
// call from its loop, and the code saves only the few operations around
// it. `for i in range(n): s += h(i)` with a cheap h (1 op of its own in
// the IR) ran about 1.5 times as long as code as interpreted; s += h(i) +
// (i * 3 + 1) % 13 (16 ops) broke even (BenchmarkNativeCalloutLoop).
// Such a function is left to the interpreter once its calls have made
// calloutGrace callouts, calloutsPerCall or more a call on average.

// A call whose code fails is run again by the interpreter, from its
// start, which makes again the calls of helpers the code made: where
// those calls are most of the code's cost, the code saves little on a
// call that succeeds, and a few calls that fail cost more than that.
// calloutSaving estimates the share of the interpreter's time that a call
// run as code saves, from the ops of its own the code's loops do per
// callout, counted in its IR (measured with a cheap helper: `s += h(i) +
// (i * 3 + 1) % 13`, 16 ops, saved about 5%; four such terms, 61 ops,
// about half); once more than 16 calls that made callouts have failed, the
// function is left to the interpreter where more of its calls fail than
// that share.

// calloutFailGrace is the calls that made callouts and failed before the
// rule judges them.
const calloutFailGrace = 16

// calloutSaving returns the share of the interpreter's time that f's
// code saves on a call, estimated from the ops of its own per callout of
// its loops (calloutDensity), or -1 where its loops make no callout.
func calloutSaving(f *fuse.Func) float64 {
	ops, calls := calloutDensity(f)
	if calls == 0 {
		return -1
	}
	return min(max(float64(ops-11*calls)/float64(100*calls), 0), 0.9)
}

// calloutDensity counts the ops of f's loops (each statement once, in
// the innermost loop around it) and their calls of helpers that stay
// interpreted (loopCost's counts).
func calloutDensity(f *fuse.Func) (ops, calls int) {
	var walk func(ss []fuse.Stmt)
	walk = func(ss []fuse.Stmt) {
		for i := range ss {
			s := &ss[i]
			switch s.Kind {
			case fuse.SWhile, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
				o, c := loopCost(f, s)
				ops, calls = ops+o, calls+c
				continue // (loopCost counted the loops inside it)
			}
			walk(s.Body)
			walk(s.Else)
		}
	}
	walk(f.Body)
	return ops, calls
}

// calloutFailed counts a call that made callouts and failed in the code,
// the fails-th call to fail, and leaves the function to the interpreter
// where calloutSaving says its failures cost more than its code saves.
func (nf *nativeFunc) calloutFailed(fails int64) {
	if nf.calloutSave < 0 {
		return
	}
	cf := nf.calloutFails.Add(1)
	total := nf.runs.Load() + fails
	if cf > calloutFailGrace && float64(fails) > nf.calloutSave*float64(total) {
		nf.switchOff(fmt.Sprintf("its calls that failed in the code (%d of %d), each run again by the interpreter with its calls of helpers left to the interpreter, cost more than its code saved on the others", fails, total))
	}
}

// calloutLight is the ops of its own per callout that a loop of the
// function's code does at most (per iteration, counted in its IR) for the
// loop to be one that does little but call helpers.
const calloutLight = 12

// calloutGrace is the callouts a function's calls make before the rule
// judges it; calloutsPerCall the callouts a call makes on average, at
// least, for the rule to leave it to the interpreter (its loops, and not
// its straight-line code, make its cost).
const (
	calloutGrace    = 1 << 12
	calloutsPerCall = 16
)

// calloutBound reports whether f's work is loops that do little but call
// helpers that stay interpreted: f makes no call of its own Procs, has a
// loop, and each of its loops holds no other loop and calls such a helper
// with at most calloutLight ops of its own per call each iteration.
func calloutBound(f *fuse.Func) bool {
	if len(f.Procs) > 0 || len(f.Callouts) == 0 {
		return false
	}
	loops, light := 0, true
	var walk func(ss []fuse.Stmt, inLoop bool)
	walk = func(ss []fuse.Stmt, inLoop bool) {
		for i := range ss {
			s := &ss[i]
			switch s.Kind {
			case fuse.SWhile, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
				loops++
				if inLoop {
					light = false
					return
				}
				ops, calls := loopCost(f, s)
				light = light && calls > 0 && ops <= calloutLight*calls
				walk(s.Body, true)
				continue
			}
			walk(s.Body, inLoop)
			walk(s.Else, inLoop)
		}
	}
	walk(f.Body, false)
	return loops > 0 && light
}

// loopCost counts, in the loop s (its condition and its body), the ops
// of its own (the operations of its expressions, its statements but the
// callouts' own) and the calls of helpers that stay interpreted.
func loopCost(f *fuse.Func, s *fuse.Stmt) (ops, calls int) {
	var expr func(x *fuse.Expr)
	expr = func(x *fuse.Expr) {
		if x == nil {
			return
		}
		switch x.Op {
		case fuse.OpVar, fuse.OpConst, fuse.OpResult:
		default:
			ops++
		}
		for _, a := range x.Args {
			expr(a)
		}
	}
	var stmts func(ss []fuse.Stmt)
	stmts = func(ss []fuse.Stmt) {
		for i := range ss {
			t := &ss[i]
			switch t.Kind {
			case fuse.SCallout:
				if f.Callouts[t.Arr].Callee != nil {
					calls++
				} else {
					ops++ // a print: as costly in the interpreter
				}
			case fuse.SOperand:
				expr(t.X)
				continue
			case fuse.SAssign:
			default:
				ops++
			}
			expr(t.X)
			expr(t.Y)
			expr(t.Z)
			stmts(t.Body)
			stmts(t.Else)
		}
	}
	if s.Kind == fuse.SWhile {
		expr(s.X)
	}
	stmts(s.Body)
	return ops, calls
}

// countCallouts counts the callouts made, of a call run as code, and leaves the
// function to the interpreter where calloutBound holds of its code and
// its calls have made calloutGrace callouts, calloutsPerCall a call or
// more on average.
func (nf *nativeFunc) countCallouts(made uint64) {
	if !nf.calloutBound || made == 0 {
		return
	}
	c := nf.callouts.Add(int64(made))
	n := nf.calloutCalls.Add(1)
	if c >= calloutGrace && c >= calloutsPerCall*n {
		nf.switchOff(fmt.Sprintf("its loops do little but call helpers left to the interpreter, which calls them at less cost (%d helper %s in %s run as code)", c, plural(c, "call", "calls"), calls(n)))
	}
}

// plural returns one where n is 1, else many.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
