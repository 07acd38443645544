package native

// Dense scratch arrays. A scratch array is made fresh in O(1) by giving it
// a new epoch (every element then reads Init until it is written), at the
// price of an epoch beside each element: a read loads both and compares,
// a write stores both, and the array takes twice its words of memory (a
// sieve's list of 60,000 flags, 960 KB, no longer fits a core's cache).
//
// The function's own arrays of dense use (not a hash table's slots,
// fuse.Scratch.Sparse; in a plain function, fuse.Func.IsExact, without
// Procs; at least minDense elements) keep no epochs on x86-64. Their epoch slot
// holds instead a high-water mark D: the elements from D up hold Init in
// memory, so that a read is one load and a write one store and a max. To
// make the array fresh, the code stores Init into the elements below D
// (a loop, or REP STOSQ for many) and sets D to 0: that costs what the
// writes since the last fresh cost, and at most the elements the list the
// program made (a list [0] * n of Starlark holds n elements; a list built
// by append is written below its length).
//
// A worker's memory starts as zeros: where Init is 0 the mark of a new
// worker, 0, is right. Where it is not, the slot holds D + 1, and 0 says
// that the array was never filled: the first fresh fills all of it.

// minDense is the least length of an array kept dense: a short array
// (the values of a loop over a tuple, made fresh at each loop) is made
// fresh in one add with an epoch, and its epochs take little memory.
const minDense = 64

// findDense decides which of the function's scratch arrays are dense.
func (g *amd64Gen) findDense() {
	g.dense = make([]bool, len(g.f.Scratch))
	if g.proc >= 0 || len(g.f.Procs) > 0 || !g.f.IsExact {
		// A check that fails in a Proc ends the run with the Proc's
		// values in the pool registers, which the exit stores as the
		// function's slots: a mark in a register would come back lower
		// than the elements written. A fused function makes its arrays
		// fresh at every item, where a few writes at scattered indices
		// would cost a fill each; a plain call's list costs its
		// elements in the interpreter too.
		return
	}
	for arr := g.f.Arrays; arr < len(g.f.Scratch); arr++ {
		s := g.f.Scratch[arr]
		// A Stale array is steady instead (amd64_steady.go): no mark to
		// raise, nothing to clear.
		g.dense[arr] = !s.Sparse && !s.Stale && s.Len >= minDense
	}
}

// isDense reports whether scratch array arr keeps no epochs (findDense).
func (g *amd64Gen) isDense(arr int) bool { return arr < len(g.dense) && g.dense[arr] }

// denseBias is what the mark slot of dense array arr holds beyond D: 1
// where Init is not 0 (0 then says never filled), else 0.
func (g *amd64Gen) denseBias(arr int) int32 {
	if g.f.Scratch[arr].Init != 0 {
		return 1
	}
	return 0
}

// denseFresh makes dense array arr fresh: Init into the elements below
// its mark, then the mark to 0.
func (g *amd64Gen) denseFresh(arr int) {
	a := g.a
	sc := g.f.Scratch[arr]
	k := g.denseBias(arr)
	vals := int32(g.l.scratch[arr])
	done, small, loop := a.newLabel(), a.newLabel(), a.newLabel()
	g.getSlot(rAX, g.sEpoch[arr])
	if k != 0 {
		// 0: never filled, so all of it; else D + 1.
		known := a.newLabel()
		a.aluI(aluSub, R(rAX), 1)
		a.jcc(ccAE, known)
		a.movRI(rAX, uint64(sc.Len))
		a.bind(known)
	}
	a.test(rAX, rAX)
	a.jcc(ccE, done)
	a.aluI(aluCmp, R(rAX), 32)
	a.jcc(ccB, small)
	// REP STOSQ: RCX words of RAX from RDI on. RCX is a pool register
	// (saved in RDX) and RDI the memory (saved in XMM0, which the code
	// uses for nothing else).
	a.movRR(rDX, rCX)
	a.movRR(rCX, rAX)
	a.b = append(a.b, 0x66, 0x48, 0x0f, 0x6e, 0xc7) // MOVQ XMM0, RDI
	a.lea(rDI, at(rDI, vals))
	a.movRI(rAX, sc.Init)
	a.b = append(a.b, 0xf3, 0x48, 0xab)             // REP STOSQ
	a.b = append(a.b, 0x66, 0x48, 0x0f, 0x7e, 0xc7) // MOVQ RDI, XMM0
	a.movRR(rCX, rDX)
	a.jmp(done)
	a.bind(small)
	a.movRI(rDX, sc.Init)
	a.bind(loop)
	a.store(indexed(rDI, rAX, 8, vals-8), rDX)
	a.aluI(aluSub, R(rAX), 1)
	a.jcc(ccNE, loop)
	a.bind(done)
	g.setSlotI(g.sEpoch[arr], uint64(k))
}

// denseMark raises dense array arr's mark past element i (a register
// holding an index in range), after a write of it.
func (g *amd64Gen) denseMark(arr int, i reg) {
	a := g.a
	a.lea(rAX, at(i, 1+g.denseBias(arr)))
	g.raiseMark(arr)
}

// denseMarkConst raises dense array arr's mark past element k.
func (g *amd64Gen) denseMarkConst(arr int, k uint64) {
	g.a.movRI(rAX, k+1+uint64(g.denseBias(arr)))
	g.raiseMark(arr)
}

// raiseMark sets dense array arr's mark slot to RAX where RAX is above it.
func (g *amd64Gen) raiseMark(arr int) {
	a := g.a
	m := g.slotRM(g.sEpoch[arr])
	if !m.isMem {
		a.alu(aluCmp, m.r, R(rAX))
		a.cmov(ccB, m.r, rAX)
		return
	}
	skip := a.newLabel()
	a.alu(aluCmp, rAX, m)
	a.jcc(ccBE, skip)
	a.store(m.m, rAX)
	a.bind(skip)
}
