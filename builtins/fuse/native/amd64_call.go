package native

import (
	"fmt"
	"math/bits"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Calls of helpers (fuse.Proc, fuse.OpCall) in the amd64 engine.
//
// A Func with Procs runs on a stack of its own in the worker's memory: the
// code saves Go's stack pointer at ctlGoSP when Go calls it, moves RSP to
// the top of that stack, and moves it back to return to Go (and to come
// back to be polled: the code's own RSP waits at ctlCodeSP). Each Proc is
// a function reached by CALL and left by RET, with its frame below the
// return address: the homes of its slots (from RSP) and its spill area.
// A Proc may change every pool register: the caller saves in its spill
// area, around the call, the registers that hold what it needs after the
// call (the slots live after it, and values held in the middle of an
// expression), so that a call in tail position saves nothing. The word
// arguments pass through the argument area (args); the result comes back
// in RDX. A Proc's call of itself that passes its own array parameters in
// place (debruijn's find_debruijn(..., state, found)) leaves their
// addresses and epochs in their registers: the callee enters past their
// loads (callState.passOn) and, where it never makes them fresh, the
// caller does not save them. Where every call of a Proc from a Proc is
// such a call, those addresses and epochs that have no registers live in
// one place for the whole chain of its calls (callState.shared), not in
// each frame (setqueens's place(..., cols, d1, d2), whose three sets are
// twelve arrays). ctlDepth counts the calls in progress: a call that would pass
// the Func's depth fails its check before it runs, as Eval's does. Every
// call counts one unit of fuel, which all the code shares, in fuelReg where
// there are loops (no caller saves it around a call), else in memory; a Proc that runs out saves every pool
// register on its stack and comes back to Go, to resume there.
//
// The leading guards of a Proc (procGuards: "if X: return Y" on its
// parameters alone) also run at each call whose arguments are pure, on
// the argument expressions themselves, so that a call a guard ends costs
// no call at all; where every call of a Proc runs them, its body skips
// them (else it runs them again, to no effect).
//
// Procs with scratch arrays of their own or passed (array arguments) are
// not compiled here yet: such a Func goes to the WebAssembly engine.

// callState is what the code of a Func and of its Procs share.
type callState struct {
	root     *fuse.Func
	entries  []int       // each Proc's entry label
	fuel     mem         // the fuel of the whole run
	args     int32       // the argument area
	stackTop int32       // the top of the stack
	failExit int         // where a failed check ends the run
	frames   int32       // the largest frame of a call, return address included (found by the first pass)
	procs    []*amd64Gen // each Proc's generator, its slots given registers before any code
	// guarded has the Procs whose every call runs their leading guards
	// (all of them have pure arguments): their bodies skip the guards.
	guarded []bool
	frameOf []int32 // each Proc's frame, where the first pass found it (else nil)
	// uniform, where the first pass found the frames (else 0), is the
	// size of every call's frame, return address included: the depth of
	// a call is then how far RSP is below the top, in frames.
	uniform int32
	raw     map[*fuse.Expr]*fuse.Expr // the calls the guards were emitted for: the call they stand for
	// fuelInReg: the Func or a Proc loops, and the fuel is in fuelReg.
	fuelInReg bool
	// passOn has, for each Proc, the label of the entry that a call of
	// itself passing its own array parameters in place takes (sameArrays):
	// past the loads of the arrays' addresses and epochs, which are in
	// their registers already.
	passOn []int
	// shared has, for each Proc whose every call from a Proc is its own
	// call of itself passing its array parameters in place (and which
	// never makes them fresh), where the addresses and epochs of those
	// parameters live without registers: in one place for the whole
	// chain of its calls, not in each frame (sharedArrays); else -1.
	shared []int32
}

// amd64CallCode generates the code of a Func with Procs. It generates it
// twice: the first time to learn the sizes of the Func's spill area and
// of the frames, which place the argument area and the stack.
func amd64CallCode(f *fuse.Func, l *layout, ctl int32) (amd64Out, error) {
	maxArgs := 0
	for i := range f.Procs {
		maxArgs = max(maxArgs, f.Procs[i].Params+2*f.Procs[i].Arrays)
	}
	var uniform int32
	// The shared homes of array parameters (callState.shared), after the
	// argument area.
	sharing := sharedArrays(f)
	sharedWords := 0
	for i, ok := range sharing {
		if ok {
			sharedWords += 2 * f.Procs[i].Arrays
		}
	}
	loops := hasLoop(f.Body)
	for i := range f.Procs {
		loops = loops || hasLoop(f.Procs[i].Body)
	}
	gen := func(args, top int32, frameOf []int32) (*amd64Gen, *callState, error) {
		a := &assembler{}
		cs := &callState{root: f, args: args, stackTop: top, raw: map[*fuse.Expr]*fuse.Expr{}, frameOf: frameOf, fuelInReg: loops}
		if frameOf != nil {
			cs.uniform = uniform
			for i := range cs.frameOf {
				cs.frameOf[i] = uniform - 8
			}
		}
		at := args + 8*int32(maxArgs)
		for i := range f.Procs {
			cs.entries = append(cs.entries, a.newLabel())
			cs.passOn = append(cs.passOn, a.newLabel())
			cs.shared = append(cs.shared, -1)
			if sharing[i] {
				cs.shared[i] = at
				at += 16 * int32(f.Procs[i].Arrays)
			}
		}
		g := newAMD64Gen(f, l, ctl, a, cs, -1)
		cs.fuel = g.home(g.sFuel)
		cs.guarded = guardedProcs(f)
		for i := range f.Procs {
			p := &f.Procs[i]
			pf := &fuse.Func{Params: p.Params, Vars: p.Vars, Tables: f.Tables, Scratch: p.Scratch, Checks: f.Checks,
				Body: p.Body, Labels: p.Labels, Procs: f.Procs, Depth: f.Depth}
			cs.procs = append(cs.procs, newAMD64Gen(pf, l, ctl, a, cs, i))
		}
		g.run()
		return g, cs, a.finish()
	}
	g, cs, err := gen(0, 0, nil)
	if err != nil {
		return amd64Out{}, err
	}
	mainEnd := uint64(ctlSlots + 8*(g.nSlots+g.maxSpill))
	args := uint64(ctl) + mainEnd
	// The stack: the deepest chain of calls, each in the largest frame,
	// and below it the registers a Proc saves to come back to be polled.
	stack := uint64(f.MaxCalls())*uint64(cs.frames) + 8*uint64(len(poolRegs)) + 64
	top := (args + 8*uint64(maxArgs+sharedWords) + stack + 63) / 64 * 64
	if top > 1<<31-1 {
		return amd64Out{}, fmt.Errorf("amd64: the stack of %d calls takes more than 2 GiB", f.MaxCalls())
	}
	sizes := make([]int32, len(f.Procs))
	for i, pg := range cs.procs {
		sizes[i] = 8 * int32(pg.nSlots+pg.maxSpill)
	}
	uniform = cs.frames
	g2, cs2, err := gen(int32(args), int32(top), make([]int32, len(f.Procs)))
	if err != nil {
		return amd64Out{}, err
	}
	for i, pg := range cs2.procs {
		if 8*int32(pg.nSlots+pg.maxSpill) != sizes[i] {
			return amd64Out{}, fmt.Errorf("amd64: the two passes over a function with calls disagree")
		}
	}
	if g2.nSlots != g.nSlots || g2.maxSpill != g.maxSpill || cs2.frames != cs.frames {
		return amd64Out{}, fmt.Errorf("amd64: the two passes over a function with calls disagree")
	}
	return amd64Out{g2.a.b, uint32(ctl), uint32(top - uint64(ctl)), g2.sIt, g2.sFuel}, nil
}

// procCode emits Procs[pi]: its entry (the frame and the saved registers,
// emitted after the body, when the registers it uses are known), its
// body, its return and its out-of-line code.
func (g *amd64Gen) procCode(pi int) {
	cs := g.calls
	p := &g.f.Procs[pi]
	pg := cs.procs[pi]
	pf := pg.f
	pg.failExit = cs.failExit
	pg.retL = g.a.newLabel()
	a := g.a
	body, arrays := a.newLabel(), a.newLabel()
	a.bind(body)
	// Each array passed: the address of its values and its epoch (a call
	// of the Proc itself that passes its own arrays in place enters past
	// these, at arrays).
	for i := 0; i < p.Arrays; i++ {
		if pg.fixedOf(i) < 0 {
			a.load(rAX, at(rDI, cs.args+8*int32(p.Params+2*i)))
			pg.setSlot(pg.sPtr[i], rAX)
		}
		if !pg.steady[i] {
			a.load(rAX, at(rDI, cs.args+8*int32(p.Params+2*i+1)))
			pg.setSlot(pg.sEpoch[i], rAX)
		}
	}
	a.bind(arrays)
	// The parameters with registers from the argument area (the others
	// the caller wrote in their homes, where it knew the frame); a
	// variable that may be read before it is set reads 0, as in a fresh
	// frame of Eval's.
	for i := 0; i < p.Params; i++ {
		arg := at(rDI, cs.args+8*int32(i))
		if r := pg.slotReg[i]; r >= 0 {
			a.load(poolRegs[r], arg)
		} else if cs.frameOf == nil {
			a.load(rAX, arg)
			a.store(pg.home(i), rAX)
		}
	}
	for v, unset := range definite(pf) {
		if unset && v >= p.Params {
			pg.setSlotI(v, 0)
		}
	}
	// The Proc's own arrays: in its frame at its own depth,
	// frames[pi] + level*frameBytes[pi].
	own := len(p.Scratch) > p.Arrays
	if own {
		_, elems, _ := frameLayout(p)
		level := at(rDI, int32(g.l.levels[pi]))
		a.load(rAX, level)
		a.lea(rDX, at(rAX, 1))
		a.store(level, rDX)
		a.imulI(rAX, rAX, int32(g.l.frameBytes[pi]))
		a.alu(aluAdd, rAX, R(rDI))
		for i := p.Arrays; i < len(p.Scratch); i++ {
			a.lea(rDX, at(rAX, int32(g.l.frames[pi]+elems[i-p.Arrays])))
			pg.setSlot(pg.sPtr[i], rDX)
		}
	}
	// One unit of fuel a call.
	stub, back := a.newLabel(), a.newLabel()
	pg.slotAddI(pg.sFuel, -1)
	a.jcc(ccLE, stub)
	a.bind(back)
	pg.later = append(pg.later, func() {
		a.bind(stub)
		pg.pollExit(back)
	})
	stmts := p.Body
	if cs.guarded[pi] {
		stmts = stmts[len(procGuards(p)):]
	}
	pg.stmts(stmts)
	a.movRI(rDX, 0)
	a.bind(pg.retL) // the result in RDX
	if own {
		a.aluI(aluSub, M(at(rDI, int32(g.l.levels[pi]))), 1)
	}
	frame := 8 * int32(pg.nSlots+pg.maxSpill)
	if cs.uniform > 0 {
		frame = cs.uniform - 8
	}
	if frame > 0 {
		a.aluI(aluAdd, R(rSP), frame)
	}
	a.ret()
	a.bind(cs.entries[pi])
	if frame > 0 {
		a.aluI(aluSub, R(rSP), frame)
	}
	a.jmp(body)
	a.bind(cs.passOn[pi])
	if frame > 0 {
		a.aluI(aluSub, R(rSP), frame)
	}
	a.jmp(arrays)
	pg.tail()
	cs.frames = max(cs.frames, 8*int32(pg.nSlots+pg.maxSpill)+8)
}

// procPollExit comes back to Go from a Proc to be polled: every pool
// register (a caller's among them) goes below the frame, the code's RSP to
// ctlCodeSP; the code resumes at to with a full tank of fuel.
func (g *amd64Gen) procPollExit(to int) {
	g.procExit(1)
	g.setSlotI(g.sFuel, fuse.PollEvery)
	g.a.jmp(to)
}

// procExit comes back to Go from a Proc with ctlPoll set to why (1: to be
// polled; 2+k: callout k), every pool register (a caller's among them)
// below the frame and the code's RSP in ctlCodeSP, and resumes after it
// with the registers as they were.
func (g *amd64Gen) procExit(why int32) {
	a := g.a
	resume := a.newLabel()
	n := int32(8 * len(poolRegs))
	a.aluI(aluSub, R(rSP), n)
	for i, r := range poolRegs {
		a.store(at(rSP, 8*int32(i)), r)
	}
	a.store(at(rDI, g.ctl+ctlCodeSP), rSP)
	a.leaRIP(rAX, resume)
	a.store(at(rDI, g.ctl+ctlResume), rAX)
	a.storeI(at(rDI, g.ctl+ctlPoll), why)
	g.toGo()
	a.bind(resume)
	a.storeI(at(rDI, g.ctl+ctlResume), 0)
	for i, r := range poolRegs {
		a.load(r, at(rSP, 8*int32(i)))
	}
	a.aluI(aluAdd, R(rSP), n)
}

// call emits the call x of a Proc and returns the register of its result:
// the depth check, then the Proc's guards on the arguments where they are
// pure, then the call itself.
func (g *amd64Gen) call(x *fuse.Expr) reg {
	cs := g.calls
	if orig, ok := cs.raw[x]; ok {
		return g.rawCall(x, orig)
	}
	a := g.a
	if cs.uniform > 0 {
		// RSP at or below the limit (ctlDepth): MaxCalls frames in use.
		// The depth it was at, for the failure, out of line.
		deep, top := a.newLabel(), cs.stackTop
		a.alu(aluCmp, rSP, M(at(rDI, g.ctl+ctlDepth)))
		a.jcc(ccBE, deep)
		check, size := x.Check, cs.uniform
		g.later = append(g.later, func() {
			a.bind(deep)
			a.lea(rAX, at(rDI, top))
			a.alu(aluSub, rAX, R(rSP))
			a.movRI(rCX, uint64(size))
			a.movRI(rDX, 0)
			a.div(rCX)
			a.store(at(rDI, 8), rAX)
			a.store32I(at(rDI, 4), uint32(check))
			a.jmp(g.failExit)
		})
	} else {
		a.load(rAX, at(rDI, g.ctl+ctlDepth))
		a.aluI(aluCmp, R(rAX), int32(min(cs.root.MaxCalls(), 1<<31-1)))
		g.failIf(ccAE, x.Check, rAX, true)
	}
	p := &cs.root.Procs[x.Imm]
	guards := procGuards(p)
	if len(guards) == 0 || !pureArgs(x.Args[:p.Params]) {
		return g.rawCall(x, x)
	}
	// if guard 0: result 0 elif guard 1: result 1 ... else: the call.
	raw := &fuse.Expr{Op: fuse.OpCall, Imm: x.Imm, Args: x.Args, Check: x.Check}
	cs.raw[raw] = x
	e := raw
	for i := len(guards) - 1; i >= 0; i-- {
		e = &fuse.Expr{Op: fuse.OpCond, Check: -1, Args: []*fuse.Expr{
			substitute(guards[i].X, x.Args), substitute(guards[i].Body[0].X, x.Args), e}}
	}
	return g.expr(e)
}

// depth returns a register holding the calls in progress (fuse.OpDepth),
// counting from the run's bias (Worker.SetDepth; 0 unless set): the bias
// in the Func's body; in a Proc, ctlDepth's count, or, where every frame
// has one size, how far RSP is below the top in frames (an exact division
// by that size, done as a shift and a multiplication by the inverse of
// its odd part modulo 2^64) plus the bias.
func (g *amd64Gen) depth() reg {
	a, cs := g.a, g.calls
	r := g.alloc()
	switch {
	case g.proc < 0:
		a.load(r, at(rDI, g.ctl+ctlBias))
	case cs.uniform == 0:
		a.load(r, at(rDI, g.ctl+ctlDepth))
	default:
		size := uint64(cs.uniform)
		s := bits.TrailingZeros64(size)
		a.lea(r, at(rDI, cs.stackTop))
		a.alu(aluSub, r, R(rSP))
		if s > 0 {
			a.shiftI(shShr, r, uint8(s))
		}
		if odd := size >> s; odd > 1 {
			t := g.alloc()
			a.movRI(t, inverse(odd))
			a.imul(r, R(t))
			g.release(t)
		}
		a.alu(aluAdd, r, M(at(rDI, g.ctl+ctlBias)))
	}
	return r
}

// inverse returns the inverse of the odd m modulo 2^64 (Newton's
// iteration: each step doubles the bits that are right).
func inverse(m uint64) uint64 {
	x := m // right to 3 bits: m*m = 1 mod 8 for odd m
	for range 5 {
		x *= 2 - m*x
	}
	return x
}

// rawCall evaluates x's arguments into the argument area and calls the
// Proc, saving around the call the registers that hold what the code
// needs after it. orig is the call of the text x stands for.
func (g *amd64Gen) rawCall(x, orig *fuse.Expr) reg {
	cs := g.calls
	a := g.a
	// Each argument goes to the argument area as soon as it is known,
	// unless a later one makes a call (which fills the area itself): then
	// they wait in the spill area.
	wait := hasCall(x.Args)
	base := g.spill
	if wait {
		g.spill += len(x.Args)
		g.maxSpill = max(g.maxSpill, g.spill)
	}
	p := &cs.root.Procs[x.Imm]
	// Where argument i goes: the callee's home of parameter i, below this
	// frame, where the callee keeps it in memory and its frame is known;
	// else the argument area.
	dst := func(i int) mem {
		if cs.frameOf != nil && cs.procs[x.Imm].slotReg[i] < 0 {
			return at(rSP, -8-cs.frameOf[x.Imm]+8*int32(i))
		}
		return at(rDI, cs.args+8*int32(i))
	}
	for i, e := range x.Args[:p.Params] {
		to := dst(i)
		if wait {
			to = g.spillAt(base + i)
		}
		switch {
		case e.Op == fuse.OpConst && int64(e.Imm) == int64(int32(e.Imm)):
			a.storeI(to, int32(e.Imm))
		case e.Op == fuse.OpVar && g.slotReg[e.Imm] >= 0:
			a.store(to, poolRegs[g.slotReg[e.Imm]])
		default:
			r := g.expr(e)
			a.store(to, r)
			g.release(r)
		}
	}
	if wait {
		for i := range x.Args[:p.Params] {
			a.load(rAX, g.spillAt(base+i))
			a.store(dst(i), rAX)
		}
		g.spill = base
	}
	// Each array: the address of its values and its epoch; none where
	// the Proc calls itself with its own arrays in place.
	same := g.sameArrays(x)
	for i, e := range x.Args[p.Params:] {
		if same {
			break
		}
		arr := int(e.Imm)
		ptr := at(rDI, cs.args+8*int32(p.Params+2*i))
		switch k := g.fixedOf(arr); {
		case cs.procs[x.Imm].fixedOf(i) >= 0:
			// the callee reads no address (amd64_fixed.go)
		case g.proc < 0:
			a.lea(rAX, at(rDI, int32(g.l.scratch[arr])))
			a.store(ptr, rAX)
		case k >= 0:
			a.lea(rAX, at(rDI, int32(g.l.scratch[k])))
			a.store(ptr, rAX)
		default:
			g.getSlot(rAX, g.sPtr[arr])
			a.store(ptr, rAX)
		}
		switch {
		case cs.procs[x.Imm].steady[i]:
			// the callee reads no epoch
		case g.steady[arr]:
			a.storeI(at(rDI, cs.args+8*int32(p.Params+2*i+1)), 0) // a steady array's epoch
		default:
			g.getSlot(rAX, g.sEpoch[arr])
			a.store(at(rDI, cs.args+8*int32(p.Params+2*i+1)), rAX)
		}
	}
	save := g.liveAcross(orig)
	if same && !freshensParams(p) {
		save = g.keptAcrossSelf(save)
	}
	at0 := g.spill
	g.spill += len(save)
	g.maxSpill = max(g.maxSpill, g.spill)
	for k, r := range save {
		a.store(g.spillAt(at0+k), r)
	}
	entry := cs.entries[x.Imm]
	if same {
		entry = cs.passOn[x.Imm]
	}
	if cs.uniform > 0 {
		a.callL(entry)
	} else {
		a.aluI(aluAdd, M(at(rDI, g.ctl+ctlDepth)), 1)
		a.callL(entry)
		a.aluI(aluSub, M(at(rDI, g.ctl+ctlDepth)), 1)
	}
	for k, r := range save {
		a.load(r, g.spillAt(at0+k))
	}
	g.spill = at0
	if g.called == nil {
		g.called = map[*fuse.Expr]bool{}
	}
	g.called[orig] = true
	d := g.alloc()
	a.movRR(d, rDX)
	return d
}

// liveAcross returns the pool registers that hold, at call x, what the
// code needs after it: values held in the middle of an expression, and
// the registers of the slots that live through the whole code, that a
// later statement (or a loop around this one) may read, or that the
// statement being emitted reads outside x and the calls it made before x
// (the expressions of a statement that is not a loop are emitted once;
// a loop's are read again, which its slots' intervals say).
func (g *amd64Gen) liveAcross(x *fuse.Expr) []reg {
	var mask uint16
	for i := range poolRegs {
		if g.free&(1<<i) == 0 {
			mask |= 1 << i // held
		}
	}
	slotMask := uint16(0)
	for _, r := range g.slotReg {
		if r >= 0 {
			slotMask |= 1 << r
		}
	}
	mask &^= slotMask
	reads := map[int]bool{}
	pos := -1
	if s := g.cur; s != nil {
		pos = g.posOf[s]
		var walk func(e *fuse.Expr)
		walk = func(e *fuse.Expr) {
			if e == nil || e == x || g.called[e] {
				return
			}
			switch e.Op {
			case fuse.OpVar:
				reads[int(e.Imm)] = true
			case fuse.OpScratch, fuse.OpArray:
				reads[g.sEpoch[e.Imm]] = true
				if g.sPtr != nil {
					reads[g.sPtr[e.Imm]] = true
				}
			}
			for _, a := range e.Args {
				walk(a)
			}
		}
		walk(s.X)
		walk(s.Y)
		walk(s.Z)
		if s.Kind == fuse.SStore {
			reads[g.sEpoch[s.Arr]] = true
			if g.sPtr != nil {
				reads[g.sPtr[s.Arr]] = true
			}
		}
	}
	// A variable is live after the call where some path reads it before
	// assigning it (varLiveness); other slots, and a statement it does
	// not cover, by their intervals.
	var after varSet
	if g.cur != nil {
		if g.vlive == nil {
			g.vlive = liveVars(g.f.Body, g.f.Vars)
		}
		after = g.vlive.after[g.cur]
	}
	for sl, r := range g.slotReg {
		if r < 0 || sl == g.sFuel {
			continue // the fuel's register goes on in the callee
		}
		later := g.iv[sl].end > 2*pos+1
		if after != nil && sl < g.f.Vars {
			later = after.has(sl)
		}
		if pos < 0 || g.whole[sl] || reads[sl] || later {
			mask |= 1 << r
		}
	}
	var rs []reg
	for m := mask; m != 0; m &= m - 1 {
		rs = append(rs, poolRegs[bits.TrailingZeros16(m)])
	}
	return rs
}

// guardedProcs reports, for each of f's Procs, whether every call of it
// (in f and in the Procs) has pure arguments, so that each runs the
// Proc's leading guards where it calls (see call).
func guardedProcs(f *fuse.Func) []bool {
	g := make([]bool, len(f.Procs))
	for i := range g {
		g[i] = true
	}
	f.EachExpr(func(x *fuse.Expr) {
		if x.Op == fuse.OpCall && !pureArgs(x.Args[:f.Procs[x.Imm].Params]) {
			g[x.Imm] = false
		}
	})
	return g
}

// pureArgs reports whether evaluating each of xs twice is as evaluating it
// once: no calls, no checks.
func pureArgs(xs []*fuse.Expr) bool {
	for _, x := range xs {
		if x.Check >= 0 || x.Op == fuse.OpCall || x.Op == fuse.OpArray || x.Op == fuse.OpDepth || x.Op == fuse.OpResult || !pureArgs(x.Args) {
			return false
		}
	}
	return true
}

// hasCall reports whether one of xs makes a call.
func hasCall(xs []*fuse.Expr) bool {
	for _, x := range xs {
		if x.Op == fuse.OpCall || hasCall(x.Args) {
			return true
		}
	}
	return false
}

// substitute returns x with each parameter variable i replaced by args[i].
func substitute(x *fuse.Expr, args []*fuse.Expr) *fuse.Expr {
	if x.Op == fuse.OpVar {
		return args[x.Imm]
	}
	y := *x
	y.Args = make([]*fuse.Expr, len(x.Args))
	for i, a := range x.Args {
		y.Args[i] = substitute(a, args)
	}
	return &y
}

// sameArrays reports whether call x is a Proc's call of itself that passes
// its own array parameters in place (array parameter i as argument i),
// each of whose addresses and epochs has a register: the callee's
// registers then hold them already, and it enters past their loads
// (callState.passOn).
func (g *amd64Gen) sameArrays(x *fuse.Expr) bool {
	p := &g.calls.root.Procs[x.Imm]
	if g.proc != int(x.Imm) || p.Arrays == 0 {
		return false
	}
	shared := g.calls.shared[g.proc] >= 0
	for i, e := range x.Args[p.Params:] {
		if e.Op != fuse.OpArray || int(e.Imm) != i || !shared && (g.fixedOf(i) < 0 && g.slotReg[g.sPtr[i]] < 0 || !g.steady[i] && g.slotReg[g.sEpoch[i]] < 0) {
			return false
		}
	}
	return true
}

// sharedArrays reports, for each of f's Procs, whether the addresses and
// epochs of its array parameters can live in one place for a whole chain
// of its calls (callState.shared): it has array parameters and never
// makes them fresh, and every call of it from a Proc is its own call of
// itself that passes them in place, so that from a call of the Func's
// body to its return they do not change.
func sharedArrays(f *fuse.Func) []bool {
	ok := make([]bool, len(f.Procs))
	for i := range f.Procs {
		ok[i] = f.Procs[i].Arrays > 0 && !freshensParams(&f.Procs[i])
	}
	for q := range f.Procs {
		eachExprIn(f.Procs[q].Body, func(x *fuse.Expr) {
			if x.Op != fuse.OpCall {
				return
			}
			i := int(x.Imm)
			p := &f.Procs[i]
			if i != q {
				ok[i] = false
				return
			}
			for k, a := range x.Args[p.Params:] {
				if a.Op != fuse.OpArray || int(a.Imm) != k {
					ok[i] = false
				}
			}
		})
	}
	return ok
}

// eachExprIn calls visit with every expression of ss and of the
// statements in them, and every expression in those.
func eachExprIn(ss []fuse.Stmt, visit func(*fuse.Expr)) {
	var walk func(x *fuse.Expr)
	walk = func(x *fuse.Expr) {
		if x == nil {
			return
		}
		visit(x)
		for _, a := range x.Args {
			walk(a)
		}
	}
	for i := range ss {
		walk(ss[i].X)
		walk(ss[i].Y)
		walk(ss[i].Z)
		eachExprIn(ss[i].Body, visit)
		eachExprIn(ss[i].Else, visit)
	}
}

// freshensParams reports whether Proc p makes one of its array parameters
// fresh (a new epoch in its register).
func freshensParams(p *fuse.Proc) bool {
	fresh := false
	var walk func(ss []fuse.Stmt)
	walk = func(ss []fuse.Stmt) {
		for i := range ss {
			if ss[i].Kind == fuse.SFresh && ss[i].Arr < p.Arrays {
				fresh = true
			}
			walk(ss[i].Body)
			walk(ss[i].Else)
		}
	}
	walk(p.Body)
	return fresh
}

// keptAcrossSelf returns save without the registers of the array
// parameters' addresses and epochs, for a call of the Proc itself that
// passes them in place (sameArrays) where the Proc never changes them:
// set at the Proc's entry to the values they hold, changed by nothing
// after it, and saved around the Proc's calls of other Procs, they come
// back from the call as they went.
func (g *amd64Gen) keptAcrossSelf(save []reg) []reg {
	p := &g.calls.root.Procs[g.proc]
	keep := map[reg]bool{}
	for i := 0; i < p.Arrays; i++ {
		for _, sl := range []int{g.sPtr[i], g.sEpoch[i]} {
			if r := g.slotReg[sl]; r >= 0 {
				keep[poolRegs[r]] = true
			}
		}
	}
	var out []reg
	for _, r := range save {
		if !keep[r] {
			out = append(out, r)
		}
	}
	return out
}
