package builtins

import (
	"time"

	"go.starlark.net/starlark"
)

// nativeWait is how long a call waits for its function's machine code
// before it runs in the interpreter, once the thread has spent its
// nativeWaitBudget: the code is generated on another goroutine, and a
// function whose code takes longer (a perft with its helpers: a few ms)
// is interpreted until it is ready, so that a short run does not pay for
// it.
const nativeWait = 2 * time.Millisecond

// nativeWaitLong is how long the call that offers a function waits for
// its code while the thread's nativeWaitBudget lasts. On a quiet machine
// the code of most functions is ready within nativeWait; where the
// machine is loaded, the generating goroutine waits for a core, and the
// code can take 5-10 ms of wall time (bench/natural/memo.star's longest
// measured 10 ms at load 17). The interpreter would meanwhile run the
// whole call, and every frame under it that was entered before the code
// was ready, at a twentieth of the code's speed: memo's one call of
// longest (all of that program), setqueens' first call of place.
const nativeWaitLong = 25 * time.Millisecond

// nativeWaitBudget bounds what a thread's calls wait for code beyond
// nativeWait, all offers together: a script of many functions each
// called once, briefly, loses at most this much to the long waits on a
// loaded machine (and nativeWait a function after it).
const nativeWaitBudget = 50 * time.Millisecond

// waitCode waits for ready, the signal that a function's code is
// generated, as long as thread's budget allows, and says whether it
// came. It runs on thread's goroutine (the hook's offer).
func waitCode(thread *starlark.Thread, ready <-chan struct{}) bool {
	select {
	case <-ready:
		return true
	default:
	}
	wait := nativeWait
	e := envOf(thread)
	if e != nil && e.waited < nativeWaitBudget {
		wait = nativeWait + min(nativeWaitLong, nativeWaitBudget-e.waited)
	}
	start := time.Now()
	t := time.NewTimer(wait)
	defer t.Stop()
	came := true
	select {
	case <-ready:
	case <-t.C:
		came = false
	}
	if e != nil {
		e.waited += max(time.Since(start)-nativeWait, 0)
	}
	return came
}
