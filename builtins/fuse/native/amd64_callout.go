package native

import "github.com/bitsh/bitsh/builtins/fuse"

// calloutExit comes back to Go for callout k (fuse.SCallout), whose
// operands the SOperand statements before it stored at ctlOps: it saves
// the registers as a poll does (pollExit, procPollExit), sets ctlPoll to
// 2 + k, and, called again, goes on after the callout with the registers
// and the fuel as they were.
func (g *amd64Gen) calloutExit(k int) {
	if g.proc >= 0 {
		g.procExit(int32(2 + k))
		return
	}
	a := g.a
	resume := a.newLabel()
	g.saveRegs()
	g.saveSlots()
	a.leaRIP(rAX, resume)
	a.store(at(rDI, g.ctl+ctlResume), rAX)
	a.storeI(at(rDI, g.ctl+ctlPoll), int32(2+k))
	if g.calls != nil {
		a.store(at(rDI, g.ctl+ctlCodeSP), rSP)
	}
	g.toGo()
	a.bind(resume)
	a.storeI(at(rDI, g.ctl+ctlResume), 0)
	g.loadRegs()
}

// SetCallout makes the worker's runs hand the Func's callouts
// (fuse.Func.Callouts) to do, with the callout's index and its operands
// (a view, valid during the call); an error from do ends the run with it,
// and Run returns it. Without one, a callout ends the run with
// fuse.ErrNoCallout. WebAssembly refuses a Func with callouts.
func (w *Worker) SetCallout(do func(k int, ops []uint64) error) {
	w.callout = do
	if st, ok := w.evalOf(); ok {
		st.SetCallout(do)
	}
}

// doCallout does callout k with the operands at ops.
func (w *Worker) doCallout(k int, ops []uint64) error {
	if w.callout == nil {
		return fuse.ErrNoCallout
	}
	return w.callout(k, w.p.f.Callouts[k].View(ops))
}
