package native

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// This file generates x86-64 machine code for a Func (the amd64 engine).
// The code has the WebAssembly module's memory layout and protocol (status
// at address 0, parameter and result blocks, tables and scratch arrays),
// addressed from RDI, plus a control area of its own at ctl, laid out by
// the ctl constants below (TestControlAreaComment holds this table to them):
//
//	offset  constant   what
//	0       ctlResume  the address to resume at (0: start)
//	8       ctlN       n, the items to run
//	16      ctlWrite   ^0: item i's result goes to its place; 0: every result to place 0 (counting)
//	24      ctlPoll    set to 1 when the code returns to be polled, to 2 + k for callout k
//	32      ctlCount   the count of results that are not 0
//	40      ctlStop    ^0: stop after the first result that is not 0; else 0
//	48      ctlAffine  for each of the first 8 parameters: on, base, step; where on is
//	                   not 0 the parameter of item j is base + j*step, not read from its block
//	240     ctlRegs    the slot registers, saved while Go polls
//	312     ctlGoSP    with calls: Go's stack pointer while the code runs
//	320     ctlCodeSP  with calls: the code's stack pointer while Go polls
//	328     ctlDepth   with calls: the lowest RSP a call may be made at
//	336     ctlEpoch   with calls: the last epoch given to a Proc's scratch array
//	344     ctlBias    with calls: the calls a run counts as in progress at its start
//	                   (Worker.SetDepth: it allows MaxCalls less these)
//	352     ctlOps     the operands of a callout (fuse.MaxCalloutOperands words)
//	480     ctlSlots   the home of each slot (variables and hidden loop state), then
//	                   the spill area of expressions
//
// Variables and the hidden state of loops are slots; the most used live in
// registers, the others at their homes. Expressions are evaluated into the
// pool's registers, with RAX and RDX as scratch for single instructions. A
// loop counts its iterations in the fuel slot and, every fuse.PollEvery of
// them, stores its registers, records where to resume, and returns to Go;
// Go polls for cancellation (and lets the runtime reach the goroutine) and
// calls again. Failing checks jump to stubs after the code that store the
// check and its value. A callout (fuse.SCallout, amd64_callout.go) comes
// back to Go the same way, with ctlPoll set to 2 + the callout's index
// and its operands at ctlOps; Go does it and calls again.

const (
	ctlResume = 0
	ctlN      = 8
	ctlWrite  = 16 // ^0: item i's result goes to its place; 0: every result to place 0 (counting)
	ctlPoll   = 24
	ctlCount  = 32                                 // the results that are not 0
	ctlStop   = 40                                 // ^0: stop after the first result that is not 0; else 0
	ctlAffine = 48                                 // parameter p: on, base, step at ctlAffine+24p
	ctlRegs   = ctlAffine + 24*maxAffine           // the slot registers while Go polls
	ctlGoSP   = ctlRegs + 8*maxSlotRegs            // with calls: Go's stack pointer while the code runs
	ctlCodeSP = ctlGoSP + 8                        // with calls: the code's stack pointer while Go polls
	ctlDepth  = ctlCodeSP + 8                      // with calls: the lowest RSP a call may be made at (the calls in progress in a first pass)
	ctlEpoch  = ctlDepth + 8                       // with calls: the last epoch given to a Proc's scratch array
	ctlBias   = ctlEpoch + 8                       // with calls: the calls a run counts as in progress at its start (Worker.SetDepth)
	ctlOps    = ctlBias + 8                        // the operands of a callout
	ctlSlots  = ctlOps + 8*fuse.MaxCalloutOperands // the slots' homes
	maxAffine = 8                                  // the parameters that can be ranges
)

// The registers of the pool, in the order they are handed out; RDI holds
// the memory, RAX and RDX are scratch, RSP and RBP are left alone.
var poolRegs = []reg{rBX, rCX, rSI, r8, r9, r10, r11, r12, rBP, r13, r14, r15}

// maxSlotRegs is how many pool registers slots may take; the rest (at
// least 3, what an op of three operands holds) evaluate expressions.
const maxSlotRegs = 9

// fuelReg is the pool register (an index into poolRegs) that holds the
// fuel in a Func with calls and loops, in its code and in every Proc's, so
// that a loop's count and a call's unit of fuel cost no memory access;
// slots then take at most maxSlotRegs-1 registers. Without loops the fuel
// stays in memory, where a call's unit costs less than a register's slot.
const fuelReg = 11 // R15

// fuelInReg reports whether the fuel is in fuelReg (see there).
func (g *amd64Gen) fuelInReg() bool { return g.calls != nil && g.calls.fuelInReg }

type loopLabels struct{ brk, cont int }

type failStub struct {
	label, check int
	value        reg
	hasValue     bool
}

type amd64Gen struct {
	f   *fuse.Func
	l   *layout
	ctl int32
	a   *assembler

	slotReg  []int // the register of each slot (an index into poolRegs), -1 for its home
	slotHome []int32
	whole    []bool // the slot lives through the whole function
	nSlots   int
	sIt      int
	sFuel    int
	sEpoch   []int
	sPtr     []int  // in a Proc: the address of each scratch array's values
	steady   []bool // the scratch arrays read and written without epochs (amd64_steady.go)
	fixed    []int  // in a Proc: the Func's array each array parameter always is, or -1 (amd64_fixed.go)
	loopSlot map[*fuse.Stmt][]int
	ranges   map[*fuse.Stmt]rangePlan
	weight   []float64
	rare     int // the Rare ifs around the statements weighed (amd64_rare.go)

	free     uint16 // the free pool registers, by index in poolRegs
	spill    int    // spill words in use
	maxSpill int

	labels  map[int]loopLabels
	fails   []failStub
	later   []func()     // code emitted after the function: out-of-line poll exits
	nonzero map[int]bool // variables known not to be 0 here (after while v:, if v:)
	// fits has, for variables a check of their width passed on, the bound
	// (exclusive) it showed, where that holds here: from the check to an
	// assignment of the variable or the end of the if, loop or block the
	// check was in.
	fits map[int]uint64
	// uncond has the expressions of the statement being emitted that run
	// whenever it does (not the right of an and or or, nor a branch of a
	// conditional): only a check there gives a fact.
	uncond map[*fuse.Expr]bool
	// rowLen and belowRow are the facts about tables' rows
	// (amd64_rows.go): a variable holding a row's length, a range loop's
	// variable below it.
	rowLen, belowRow map[int]rowRef
	// rowBaseOf has the range loops whose body reads a row whose index
	// it does not assign, that row; rowBase, while such a loop's body is
	// emitted, the slot holding that row's address (where the index was
	// known in range at the loop's entry).
	rowBaseOf map[*fuse.Stmt]rowRef
	rowBase   map[rowRef]int
	// called has the calls of the statement being emitted that are done:
	// what their arguments read was read before any later call.
	called   map[*fuse.Expr]bool
	failExit int
	retL     int

	need     map[*fuse.Expr]int
	varBound []uint64 // an exclusive bound of each variable's values (0: none known)
	// stride has, for the variables only a range loop with a constant
	// start and a positive constant step assigns, that step and the
	// start's remainder by it: every value is rem mod step.
	stride map[int][2]uint64

	// bottom, where not nil, emits a copy of the code that follows the
	// statement being emitted (a loop's step and test, which leave by
	// jumping), for a branch to run in place of jumping there.
	bottom func()
	// fresh, where not nil, is a scratch element known fresh (its epoch
	// is the array's) at the start of the statement being emitted.
	fresh *fuse.Expr
	// dense has the scratch arrays that keep no epochs (amd64_dense.go).
	dense []bool
	// pow2 are the variables that hold a power of two or 0 (findPow2);
	// pow2Here those that do here, after an assignment (pow2Facts).
	pow2, pow2Here map[int]bool
	// rest are the statements after the one stmts emits, in its list:
	// belowAssign looks ahead at them.
	rest []fuse.Stmt
	// belowFit, where not 0, is the bound belowAssign showed of the
	// variable it assigned (the statement's fact, in place of its
	// expression's bound).
	belowFit uint64

	// Calls of Procs (amd64_call.go): calls is nil where the Func has
	// none; proc is the Proc being emitted, -1 for the Func's own code;
	// touched has the pool registers the code uses, which a Proc saves.
	calls   *callState
	proc    int
	touched uint16
	// The live intervals of the slots and the position of each statement
	// (see liveness), and the statement being emitted: a call saves the
	// registers of the slots live after it.
	iv    []interval
	posOf map[*fuse.Stmt]int
	cur   *fuse.Stmt
	vlive *varLiveness // the variables live after each statement's expressions (made at the first call)
}

// amd64Out is the machine code of a Func, and where its control area is.
type amd64Out struct {
	code         []byte
	ctl, ctlSize uint32
	itSlot       int // the slot counting the items done
	fuelSlot     int // with calls, the slot of the fuel, in memory; else -1
}

// amd64Code generates the machine code of f with layout l.
func amd64Code(f *fuse.Func, l *layout) (amd64Out, error) {
	start := (uint64(l.size) + 63) / 64 * 64
	if start > 1<<31-1<<20 {
		return amd64Out{}, fmt.Errorf("amd64: the memory layout is too large")
	}
	if len(f.Procs) > 0 {
		return amd64CallCode(f, l, int32(start))
	}
	g := newAMD64Gen(f, l, int32(start), &assembler{}, nil, -1)
	g.run()
	if err := g.a.finish(); err != nil {
		return amd64Out{}, err
	}
	size := uint64(ctlSlots + 8*(g.nSlots+g.maxSpill))
	if start+size > 1<<31-1 {
		return amd64Out{}, fmt.Errorf("amd64: the memory layout is too large")
	}
	return amd64Out{g.a.b, uint32(start), uint32(size), g.sIt, -1}, nil
}

// newAMD64Gen prepares the generation of f (of Procs[proc] where proc >= 0,
// f then being the Proc as a Func) into a: its slots, their registers and
// the bounds of its variables.
func newAMD64Gen(f *fuse.Func, l *layout, ctl int32, a *assembler, calls *callState, proc int) *amd64Gen {
	g := &amd64Gen{f: f, l: l, ctl: ctl, a: a, calls: calls, proc: proc, loopSlot: map[*fuse.Stmt][]int{}, rowBaseOf: map[*fuse.Stmt]rowRef{}, ranges: map[*fuse.Stmt]rangePlan{}, labels: map[int]loopLabels{},
		need: map[*fuse.Expr]int{}, nonzero: map[int]bool{}, fits: map[int]uint64{}, posOf: map[*fuse.Stmt]int{}}
	g.steady = steadyOf(f, calls, proc)
	g.fixed = fixedFor(calls, proc)
	g.findDense()
	g.findPow2()
	g.slots()
	g.bounds()
	g.free = uint16(1)<<len(poolRegs) - 1
	for _, r := range g.slotReg {
		if r >= 0 {
			g.free &^= 1 << r
			g.touched |= 1 << r
		}
	}
	return g
}

// slots numbers the slots, weighs them by their uses (8 times more for
// each loop around a use) and gives registers to the heaviest.
func (g *amd64Gen) slots() {
	g.nSlots = g.f.Vars
	g.sIt = -1
	if g.proc < 0 {
		g.sIt = g.newSlot()
	}
	g.sFuel = g.newSlot()
	for range g.f.Scratch {
		g.sEpoch = append(g.sEpoch, g.newSlot())
		if g.proc >= 0 {
			g.sPtr = append(g.sPtr, g.newSlot())
		}
	}
	g.weight = make([]float64, g.nSlots)
	if g.sIt >= 0 {
		g.use(g.sIt, 0, 1)
	}
	g.weigh(g.f.Body, 0)
	g.weight = append(g.weight, make([]float64, g.nSlots-len(g.weight))...)
	g.slotReg = make([]int, g.nSlots)
	g.slotHome = make([]int32, g.nSlots)
	for s := range g.slotReg {
		g.slotReg[s] = -1
		g.slotHome[s] = g.ctl + ctlSlots + 8*int32(s)
		if g.proc >= 0 {
			g.slotHome[s] = 8 * int32(s) // in the frame, from RSP
		}
	}
	if g.proc < 0 {
		for i, s := range g.sEpoch {
			g.slotHome[s] = int32(g.l.epochs) + 8*int32(i)
		}
	}
	g.allocate()
	if g.calls != nil {
		// The item counter stays in memory, where Go finds it when a
		// Proc comes back to be polled. The fuel stays in memory too,
		// or, with loops, is in fuelReg in the body and every Proc,
		// stored at its home where the body comes back to Go
		// (saveSlots), and on the Proc's stack with the other registers
		// where a Proc does (procExit).
		g.slotReg[g.sFuel] = -1
		if g.fuelInReg() {
			g.slotReg[g.sFuel] = fuelReg
		}
		if g.sIt >= 0 {
			g.slotReg[g.sIt] = -1
		}
		if g.proc < 0 {
			// The epochs stay in memory too: a check that fails in a
			// Proc ends the run with the Proc's values in the pool
			// registers, which the exit would store as the epochs
			// (saveSlots), and a later run would take a used epoch
			// again and read that run's elements as fresh.
			for _, s := range g.sEpoch {
				g.slotReg[s] = -1
			}
		}
	}
}

func (g *amd64Gen) newSlot() int {
	g.nSlots++
	return g.nSlots - 1
}

// use weighs a use of slot s at loop depth depth: a read weighs 1 and a
// write 3 (a slot written in a loop carries a value from one iteration to
// the next, through memory unless it has a register).
func (g *amd64Gen) use(s int, depth int, w float64) {
	for len(g.weight) <= s {
		g.weight = append(g.weight, 0)
	}
	g.weight[s] += w * float64(uint64(1)<<(3*min(depth, 20))) * g.rareScale()
}

func (g *amd64Gen) weigh(ss []fuse.Stmt, depth int) {
	for i := range ss {
		s := &ss[i]
		for _, x := range []*fuse.Expr{s.X, s.Y, s.Z} {
			g.weighExpr(x, depth)
		}
		switch s.Kind {
		case fuse.SAssign:
			g.use(s.Var, depth, 3)
		case fuse.SStore:
			g.useArray(s.Arr, depth, 1)
		case fuse.SFresh:
			g.use(g.sEpoch[s.Arr], depth, 4)
		}
		if isLoop(s) {
			// The hidden slots and the reads and writes of them every
			// iteration makes.
			var hidden []int
			var uses []float64
			switch s.Kind {
			case fuse.SForRange:
				hidden = []int{g.newSlot(), g.newSlot(), g.newSlot()} // cur, cnt, step
				uses = []float64{5, 5, 1}
				pl := g.planRange(s)
				g.ranges[s] = pl
				if pl.induct {
					uses[0] = 0 // the variable is the cursor
					g.use(s.Var, depth+1, 2)
				}
				if pl.constant {
					uses[1], uses[2] = 0, 0
				}
			case fuse.SForSubsets:
				hidden = []int{g.newSlot(), g.newSlot(), g.newSlot()} // m, cur, k
				uses = []float64{2, 5, 1}
			case fuse.SForBits:
				hidden = []int{g.newSlot()} // cur
				uses = []float64{5}
			}
			if s.Kind == fuse.SForRange {
				if ref, ok := g.rowInLoop(s); ok {
					// The address of the row the body reads (amd64_rows.go).
					hidden = append(hidden, g.newSlot())
					uses = append(uses, 4)
					g.rowBaseOf[s] = ref
				}
			}
			g.loopSlot[s] = hidden
			for i, h := range hidden {
				if uses[i] > 0 {
					g.use(h, depth+1, uses[i])
				}
			}
			if s.Kind != fuse.SWhile {
				g.use(s.Var, depth+1, 3)
			}
			g.use(g.sFuel, depth+1, 4)
			g.weigh(s.Body, depth+1)
			continue
		}
		if s.Rare {
			g.weighRare(s, depth)
			continue
		}
		g.weigh(s.Body, depth)
		g.weigh(s.Else, depth)
	}
}

func (g *amd64Gen) weighExpr(x *fuse.Expr, depth int) {
	if x == nil {
		return
	}
	switch x.Op {
	case fuse.OpVar:
		g.use(int(x.Imm), depth, 1)
	case fuse.OpScratch, fuse.OpArray:
		g.useArray(int(x.Imm), depth, 1)
	}
	for _, a := range x.Args {
		g.weighExpr(a, depth)
	}
}

// useArray weighs a use of scratch array arr's slots.
func (g *amd64Gen) useArray(arr, depth int, w float64) {
	if !g.steady[arr] {
		g.use(g.sEpoch[arr], depth, w)
	}
	if g.sPtr != nil && g.fixedOf(arr) < 0 {
		g.use(g.sPtr[arr], depth, 2*w)
	}
}

// bounds finds, for the variables that only assignments set, an exclusive
// bound of every value they are given, so that indexing with them needs no
// check.
func (g *amd64Gen) bounds() {
	g.varBound = make([]uint64, g.f.Vars)
	free := make([]bool, g.f.Vars) // set by something other than an assignment
	for p := 0; p < g.f.Params; p++ {
		free[p] = true
	}
	var walk func(ss []fuse.Stmt, f func(*fuse.Stmt))
	walk = func(ss []fuse.Stmt, f func(*fuse.Stmt)) {
		for i := range ss {
			f(&ss[i])
			walk(ss[i].Body, f)
			walk(ss[i].Else, f)
		}
	}
	walk(g.f.Body, func(s *fuse.Stmt) {
		if s.Kind == fuse.SForSubsets {
			free[s.Var] = true
		}
	})
	sets := make([]int, g.f.Vars)
	walk(g.f.Body, func(s *fuse.Stmt) {
		switch s.Kind {
		case fuse.SAssign, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
			sets[s.Var]++
		}
	})
	g.stride = map[int][2]uint64{}
	walk(g.f.Body, func(s *fuse.Stmt) {
		if s.Kind == fuse.SForRange && !free[s.Var] && sets[s.Var] == 1 && s.X.Op == fuse.OpConst && s.Z.Op == fuse.OpConst && int64(s.Z.Imm) > 1 {
			g.stride[s.Var] = [2]uint64{s.Z.Imm, s.X.Imm % s.Z.Imm}
		}
	})
	// Each round bounds every assignment from the previous round's
	// bounds, the first from none (0, unknown): a round whose inputs
	// hold of every value holds too, so each round's bounds are sound,
	// fixed point or not; later rounds only follow longer chains
	// (TestNativeGrowingBounds tries loops that grow their locals).
	for round := 0; round < 3; round++ {
		next := make([]uint64, g.f.Vars)
		known := make([]bool, g.f.Vars)
		for v := range known {
			known[v] = !free[v]
		}
		walk(g.f.Body, func(s *fuse.Stmt) {
			var b uint64
			switch s.Kind {
			case fuse.SAssign:
				b = g.bound(s.X)
			case fuse.SForBits:
				b = 64
			case fuse.SForRange:
				b = g.rangeBound(s)
			default:
				return
			}
			if b == 0 {
				known[s.Var] = false
			}
			next[s.Var] = max(next[s.Var], b)
		})
		for v := range next {
			if !known[v] {
				next[v] = 0
			}
		}
		g.varBound = next
	}
}

// rangeBound returns an exclusive bound of the values of a range loop's
// variable, or 0: where its bounds are constants, non-negative as signed
// words; or where the step is a positive constant and the start and the
// end are known not to be negative, the end's bound (every value is at
// least the start and below the end).
func (g *amd64Gen) rangeBound(s *fuse.Stmt) uint64 {
	x, y, z := s.X, s.Y, s.Z
	if z.Op == fuse.OpConst && int64(z.Imm) > 0 && (x.Op != fuse.OpConst || y.Op != fuse.OpConst) {
		bx, by := g.bound(x), g.bound(y)
		if bx == 0 || bx > 1<<63 || by == 0 || by > 1<<63 {
			return 0
		}
		return max(by, 1)
	}
	if x.Op != fuse.OpConst || y.Op != fuse.OpConst || z.Op != fuse.OpConst || int64(x.Imm) < 0 || int64(y.Imm) < 0 {
		return 0
	}
	if int64(z.Imm) > 0 {
		return max(y.Imm, 1)
	}
	return x.Imm + 1
}

// bound returns an exclusive upper bound of x's values, or 0 for none.
func (g *amd64Gen) bound(x *fuse.Expr) uint64 {
	known := func(a, b uint64) uint64 { // the lesser known bound
		switch {
		case a == 0:
			return b
		case b == 0:
			return a
		}
		return min(a, b)
	}
	switch x.Op {
	case fuse.OpConst:
		if x.Imm == ^uint64(0) {
			return 0
		}
		return x.Imm + 1
	case fuse.OpVar:
		return known(g.varBound[x.Imm], g.fits[int(x.Imm)])
	case fuse.OpShr:
		if k := g.least(x.Args[1]); k > 0 {
			if k >= 64 {
				return 1
			}
			return known(uint64(1)<<(64-k), g.bound(x.Args[0]))
		}
		return g.bound(x.Args[0])
	case fuse.OpAnd:
		return known(g.bound(x.Args[0]), g.bound(x.Args[1]))
	case fuse.OpMod:
		return g.bound(x.Args[1])
	case fuse.OpMin:
		return known(g.bound(x.Args[0]), g.bound(x.Args[1]))
	case fuse.OpMax, fuse.OpCond:
		a, b := g.bound(x.Args[len(x.Args)-2]), g.bound(x.Args[len(x.Args)-1])
		if c := x.Args[0]; x.Op == fuse.OpCond && c.Op == fuse.OpLt && sameVar(c.Args[0], x.Args[1]) {
			// v if v < n else k: v is below n's bound where chosen.
			a = known(a, g.bound(c.Args[1]))
		}
		if a == 0 || b == 0 {
			return 0
		}
		return max(a, b)
	case fuse.OpPopcount, fuse.OpBsf:
		return 65
	case fuse.OpAdd:
		// Below 2^64 with no wrap: the greatest values' sum.
		if a, b := g.bound(x.Args[0]), g.bound(x.Args[1]); a != 0 && b != 0 {
			if s, c := bits.Add64(a-1, b-1, 0); c == 0 && s != ^uint64(0) {
				return s + 1
			}
		}
	case fuse.OpSub:
		// A checked difference is at most its first operand; an
		// unchecked one may wrap.
		if x.Check >= 0 && g.f.Checks[x.Check].Kind == fuse.CheckSubExact {
			return g.bound(x.Args[0])
		}
	case fuse.OpMul:
		if a, b := g.bound(x.Args[0]), g.bound(x.Args[1]); a != 0 && b != 0 {
			if hi, lo := bits.Mul64(a-1, b-1); hi == 0 && lo != ^uint64(0) {
				return lo + 1
			}
		}
	case fuse.OpOr, fuse.OpXor:
		// No bit above the greater operand's highest.
		if a, b := g.bound(x.Args[0]), g.bound(x.Args[1]); a != 0 && b != 0 {
			if n := bits.Len64(max(a, b) - 1); n < 64 {
				return 1 << n
			}
		}
	case fuse.OpShl:
		if a, k := g.bound(x.Args[0]), x.Args[1]; a != 0 && k.Op == fuse.OpConst && k.Imm < 64 {
			if n := bits.Len64(a-1) + int(k.Imm); n < 64 {
				return 1 << n
			}
		}
	case fuse.OpDiv:
		return g.bound(x.Args[0])
	case fuse.OpRowLen:
		var m uint64
		for _, r := range g.f.Tables[x.Imm].Rows {
			m = max(m, uint64(len(r)))
		}
		return m + 1
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe, fuse.OpLNot, fuse.OpBool, fuse.OpParity:
		return 2
	case fuse.OpLoad, fuse.OpLoad2:
		// Where the element index is rem mod step (the pairs of a row
		// read two at a time) and not negative (a negative one counts
		// from the end), only those columns.
		step, rem := uint64(1), uint64(0)
		if x.Op == fuse.OpLoad2 {
			if b := g.bound(x.Args[1]); b != 0 && b <= 1<<63 {
				step, rem = g.residue(x.Args[1])
			}
		}
		var m uint64
		for _, r := range g.f.Tables[x.Imm].Rows {
			for j, v := range r {
				if uint64(j)%step == rem {
					m = max(m, v)
				}
			}
		}
		if m == ^uint64(0) {
			return 0
		}
		return m + 1
	}
	return 0
}

// residue returns a step and a remainder below it such that every value
// of x is rem mod step (step 1: nothing known): a range loop's variable
// (stride), plus a constant, masked with low bits that keep the
// remainder or that a width check shows change nothing.
func (g *amd64Gen) residue(x *fuse.Expr) (step, rem uint64) {
	switch x.Op {
	case fuse.OpVar:
		if st, ok := g.stride[int(x.Imm)]; ok {
			return st[0], st[1]
		}
	case fuse.OpAdd:
		if c := x.Args[1]; c.Op == fuse.OpConst && x.Check < 0 || c.Op == fuse.OpConst && g.f.Checks[x.Check].Kind == fuse.CheckAddExact {
			// (a checked sum that passes is the integer sum)
			if step, rem := g.residue(x.Args[0]); step > 1 && step&(step-1) == 0 {
				return step, (rem + c.Imm) % step
			}
		}
	case fuse.OpAnd:
		m := x.Args[1]
		if m.Op != fuse.OpConst || m.Imm&(m.Imm+1) != 0 {
			break
		}
		step, rem := g.residue(x.Args[0])
		checked := x.Check >= 0 && g.f.Checks[x.Check].Kind == fuse.CheckFits && m.Imm == 1<<g.f.Checks[x.Check].Imm-1
		if checked || step&(step-1) == 0 && step-1 <= m.Imm {
			return step, rem
		}
	}
	return 1, 0
}

// sameVar reports whether x and y read the same variable.
func sameVar(x, y *fuse.Expr) bool {
	return x.Op == fuse.OpVar && y.Op == fuse.OpVar && x.Imm == y.Imm
}

// cannotFail reports whether x's check (of + * << on Starlark's ints,
// fuse.Func.Exact) cannot fail: the bounds of its operands keep the
// result below 2^64.
func (g *amd64Gen) cannotFail(x *fuse.Expr) bool {
	if x.Check < 0 {
		return true
	}
	a, b := g.bound(x.Args[0]), uint64(0)
	if len(x.Args) > 1 {
		b = g.bound(x.Args[1])
	}
	if a == 0 || b == 0 {
		return false
	}
	switch g.f.Checks[x.Check].Kind {
	case fuse.CheckAddExact:
		_, c := bits.Add64(a-1, b-1, 0)
		return x.Op == fuse.OpAdd && c == 0
	case fuse.CheckMulExact:
		hi, _ := bits.Mul64(a-1, b-1)
		return x.Op == fuse.OpMul && hi == 0
	case fuse.CheckShlExact:
		// a << k >> k == a for every a and k below their bounds.
		return x.Op == fuse.OpShl && b <= 64 && bits.Len64(a-1)+int(b-1) <= 64
	}
	return false
}

// least returns a value that x is known to be at least (0 where nothing
// is known): a constant, or the least element of the table it loads from.
func (g *amd64Gen) least(x *fuse.Expr) uint64 {
	switch x.Op {
	case fuse.OpConst:
		return x.Imm
	case fuse.OpLoad, fuse.OpLoad2:
		m := ^uint64(0)
		for _, r := range g.f.Tables[x.Imm].Rows {
			for _, v := range r {
				m = min(m, v)
			}
		}
		return m
	}
	return 0
}

// Registers of the pool.

func (g *amd64Gen) alloc() reg {
	if g.free == 0 {
		panic("amd64: out of registers")
	}
	i := bits.TrailingZeros16(g.free)
	g.free &^= 1 << i
	g.touched |= 1 << i
	return poolRegs[i]
}

func poolIndex(r reg) int {
	for i, p := range poolRegs {
		if p == r {
			return i
		}
	}
	panic("amd64: not a pool register")
}

func (g *amd64Gen) release(r reg) { g.free |= 1 << poolIndex(r) }
func (g *amd64Gen) take(r reg) {
	g.free &^= 1 << poolIndex(r)
	g.touched |= 1 << poolIndex(r)
}
func (g *amd64Gen) nFree() int { return bits.OnesCount16(g.free) }

// Slots.

func (g *amd64Gen) home(s int) mem {
	switch {
	case g.proc < 0:
		return at(rDI, g.slotHome[s])
	case s == g.sFuel:
		return g.calls.fuel
	}
	if at0 := g.calls.shared[g.proc]; at0 >= 0 {
		// An array parameter's address or epoch in its shared home.
		for i := 0; i < g.calls.root.Procs[g.proc].Arrays; i++ {
			switch s {
			case g.sPtr[i]:
				return at(rDI, at0+16*int32(i))
			case g.sEpoch[i]:
				return at(rDI, at0+16*int32(i)+8)
			}
		}
	}
	return at(rSP, g.slotHome[s])
}

// slotRM returns slot s as an operand: its register or its home.
func (g *amd64Gen) slotRM(s int) rm {
	if r := g.slotReg[s]; r >= 0 {
		return R(poolRegs[r])
	}
	return M(g.home(s))
}

func (g *amd64Gen) getSlot(d reg, s int) {
	if r := g.slotReg[s]; r >= 0 {
		g.a.movRR(d, poolRegs[r])
	} else {
		g.a.load(d, g.home(s))
	}
}

func (g *amd64Gen) setSlot(s int, v reg) {
	if r := g.slotReg[s]; r >= 0 {
		g.a.movRR(poolRegs[r], v)
	} else {
		g.a.store(g.home(s), v)
	}
}

func (g *amd64Gen) setSlotI(s int, v uint64) {
	if r := g.slotReg[s]; r >= 0 {
		g.a.movRI(poolRegs[r], v)
	} else {
		g.a.movRI(rAX, v)
		g.a.store(g.home(s), rAX)
	}
}

// slotAddI adds v to slot s.
func (g *amd64Gen) slotAddI(s int, v int32) { g.a.aluI(aluAdd, g.slotRM(s), v) }

// saveSlots stores the slots that live through the whole function, and
// have registers, at their homes; loadSlots loads them back.
func (g *amd64Gen) saveSlots() {
	for s, r := range g.slotReg {
		if r >= 0 && g.whole[s] {
			g.a.store(g.home(s), poolRegs[r])
		}
	}
}

func (g *amd64Gen) loadSlots() {
	for s, r := range g.slotReg {
		if r >= 0 && g.whole[s] {
			g.a.load(poolRegs[r], g.home(s))
		}
	}
}

// saveRegs stores every slot register while Go polls; loadRegs loads them
// back.
func (g *amd64Gen) saveRegs() {
	for i := 0; i < maxSlotRegs; i++ {
		if g.slotRegUsed(i) {
			g.a.store(at(rDI, g.ctl+ctlRegs+8*int32(i)), poolRegs[i])
		}
	}
}

func (g *amd64Gen) loadRegs() {
	for i := 0; i < maxSlotRegs; i++ {
		if g.slotRegUsed(i) {
			g.a.load(poolRegs[i], at(rDI, g.ctl+ctlRegs+8*int32(i)))
		}
	}
	if g.fuelInReg() {
		// The fuel in fuelReg, which saveSlots stored at its home.
		g.a.load(poolRegs[fuelReg], g.home(g.sFuel))
	}
}

func (g *amd64Gen) slotRegUsed(i int) bool { return slices.Contains(g.slotReg, i) }

// fail jumps to a stub failing check with the value in v (hasValue) or 0,
// when condition c holds.
func (g *amd64Gen) failIf(c cond, check int, v reg, hasValue bool) {
	l := g.a.newLabel()
	g.fails = append(g.fails, failStub{label: l, check: check, value: v, hasValue: hasValue})
	g.a.jcc(c, l)
}

// run emits the whole function: the entry, the item loop, the exits and
// the failure stubs.
func (g *amd64Gen) run() {
	a := g.a
	start, items, done, exit := a.newLabel(), a.newLabel(), a.newLabel(), a.newLabel()
	g.failExit, g.retL = a.newLabel(), a.newLabel()
	if g.calls != nil {
		g.calls.failExit = g.failExit
		a.store(at(rDI, g.ctl+ctlGoSP), rSP)
	}
	a.load(rAX, at(rDI, g.ctl+ctlResume))
	a.test(rAX, rAX)
	a.jcc(ccE, start)
	if g.calls != nil {
		a.load(rSP, at(rDI, g.ctl+ctlCodeSP))
	}
	a.jmpR(rAX)
	a.bind(start)
	if g.calls != nil {
		a.lea(rSP, at(rDI, g.calls.stackTop))
		if u := g.calls.uniform; u > 0 {
			// The lowest RSP a call may be made at: MaxCalls frames, less
			// the bias, below the top (see call).
			a.lea(rAX, at(rDI, g.calls.stackTop-int32(g.calls.root.MaxCalls())*u))
			a.load(rDX, at(rDI, g.ctl+ctlBias))
			a.imulI(rDX, rDX, u)
			a.alu(aluAdd, rAX, R(rDX))
			a.store(at(rDI, g.ctl+ctlDepth), rAX)
		} else {
			a.load(rAX, at(rDI, g.ctl+ctlBias))
			a.store(at(rDI, g.ctl+ctlDepth), rAX)
		}
		for _, lv := range g.l.levels {
			if lv > 0 {
				a.storeI(at(rDI, int32(lv)), 0)
			}
		}
	}
	g.loadSlots()
	g.setSlotI(g.sIt, 0)
	g.setSlotI(g.sFuel, fuse.PollEvery)
	a.bind(items)
	// The item counter, in its register or loaded into RAX.
	itReg := func() reg {
		if r := g.slotReg[g.sIt]; r >= 0 {
			return poolRegs[r]
		}
		a.load(rAX, g.home(g.sIt))
		return rAX
	}
	it := itReg()
	a.alu(aluCmp, it, M(at(rDI, g.ctl+ctlN)))
	a.jcc(ccAE, done)
	for p := 0; p < g.f.Params; p++ {
		m := indexed(rDI, it, 8, int32(g.l.params)+int32(p)*Batch*8)
		d := rDX
		if r := g.slotReg[p]; r >= 0 {
			d = poolRegs[r]
		}
		if p < maxAffine {
			// base + it*step in line; a parameter read from its block
			// out of line.
			block, got := a.newLabel(), a.newLabel()
			on := g.ctl + ctlAffine + 24*int32(p)
			a.aluI(aluCmp, M(at(rDI, on)), 0)
			a.jcc(ccE, block)
			a.movRR(d, it)
			a.imul(d, M(at(rDI, on+16)))
			a.alu(aluAdd, d, M(at(rDI, on+8)))
			a.bind(got)
			g.later = append(g.later, func() {
				a.bind(block)
				a.load(d, m)
				a.jmp(got)
			})
		} else {
			a.load(d, m)
		}
		if d == rDX {
			a.store(g.home(p), rDX)
		}
	}
	for i, e := range g.sEpoch[g.f.Arrays:] {
		if arr := g.f.Arrays + i; g.isDense(arr) {
			g.denseFresh(arr)
			continue
		}
		g.slotAddI(e, 1) // fresh for every item, but the array parameters
	}
	g.stmts(g.f.Body)
	a.movRI(rDX, 0)
	a.bind(g.retL) // the result in RDX
	// Without branches: the result goes to its place (or place 0 when
	// counting), the count grows when it is not 0, and the run stops
	// after it where asked to.
	if r := itReg(); r != rAX {
		a.movRR(rAX, r)
	}
	a.alu(aluAnd, rAX, M(at(rDI, g.ctl+ctlWrite)))
	a.store(indexed(rDI, rAX, 8, int32(g.l.out)), rDX)
	a.movRR(rAX, rDX)
	a.neg(rAX) // CF: the result is not 0
	a.aluI(aluAdc, M(at(rDI, g.ctl+ctlCount)), 0)
	g.slotAddI(g.sIt, 1)
	a.movRR(rAX, rDX)
	a.alu(aluAnd, rAX, M(at(rDI, g.ctl+ctlStop)))
	a.jcc(ccNE, done)
	// Loops without fuel of their own charged it: poll between items when
	// it runs out.
	a.aluI(aluCmp, g.slotRM(g.sFuel), 0)
	a.jcc(ccG, items)
	g.pollExit(items)
	a.bind(done)
	a.store32I(at(rDI, 0), statusOK)
	a.bind(exit)
	g.saveSlots()
	g.toGo()
	a.bind(g.failExit)
	a.store32I(at(rDI, 0), statusFailed)
	a.jmp(exit)
	g.tail()
	if g.calls != nil {
		for i := range g.f.Procs {
			g.procCode(i)
		}
	}
}

// tail emits the code after a function's: the out-of-line code and the
// failure stubs.
func (g *amd64Gen) tail() {
	a := g.a
	for _, f := range g.later {
		f()
	}
	for _, s := range g.fails {
		a.bind(s.label)
		if s.hasValue {
			a.store(at(rDI, 8), s.value)
		} else {
			a.storeI(at(rDI, 8), 0)
		}
		a.store32I(at(rDI, 4), uint32(s.check))
		a.jmp(g.failExit)
	}
}

// toGo returns to Go, on Go's stack where calls moved it.
func (g *amd64Gen) toGo() {
	if g.calls != nil {
		g.a.load(rSP, at(rDI, g.ctl+ctlGoSP))
	}
	g.a.ret()
}

// stmts emits ss. Only the last statement is followed by what follows ss:
// it alone inherits the bottom.
func (g *amd64Gen) stmts(ss []fuse.Stmt) {
	bottom := g.bottom
	for i := range ss {
		g.bottom = nil
		if i == len(ss)-1 {
			g.bottom = bottom
		}
		g.rest = ss[i+1:]
		g.stmt(&ss[i])
	}
	g.bottom, g.fresh = nil, nil
}

// unconditional returns the expressions of s that run whenever s does.
func unconditional(s *fuse.Stmt) map[*fuse.Expr]bool {
	m := map[*fuse.Expr]bool{}
	if isLoop(s) {
		// A loop's expressions run before the body, which may assign
		// what they check for the next pass: no facts from them.
		return m
	}
	unconditionalIn(m, s.X)
	unconditionalIn(m, s.Y)
	unconditionalIn(m, s.Z)
	return m
}

// unconditionalIn adds to m the expressions of x that run whenever x does.
func unconditionalIn(m map[*fuse.Expr]bool, x *fuse.Expr) {
	var walk func(x *fuse.Expr)
	walk = func(x *fuse.Expr) {
		if x == nil {
			return
		}
		m[x] = true
		switch x.Op {
		case fuse.OpAndThen, fuse.OpOrElse, fuse.OpCond:
			walk(x.Args[0])
			return
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(x)
}

// breaks reports whether a statement of ss breaks out of label.
func breaks(ss []fuse.Stmt, label int) bool {
	for i := range ss {
		s := &ss[i]
		if s.Kind == fuse.SBreak && s.Label == label || breaks(s.Body, label) || breaks(s.Else, label) {
			return true
		}
	}
	return false
}

// nonzeroVar returns the variable that condition x tests for not being 0
// (x is v, bool(v) or v != 0), or -1.
func nonzeroVar(x *fuse.Expr) int {
	switch {
	case x.Op == fuse.OpVar:
		return int(x.Imm)
	case x.Op == fuse.OpBool:
		return nonzeroVar(x.Args[0])
	case x.Op == fuse.OpNe && x.Args[1].Op == fuse.OpConst && x.Args[1].Imm == 0 && x.Args[0].Op == fuse.OpVar:
		return int(x.Args[0].Imm)
	}
	return -1
}

// forAssigned calls f with every variable s or a statement in it assigns.
func forAssigned(s *fuse.Stmt, f func(v int)) {
	switch s.Kind {
	case fuse.SAssign, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
		f(s.Var)
	}
	for i := range s.Body {
		forAssigned(&s.Body[i], f)
	}
	for i := range s.Else {
		forAssigned(&s.Else[i], f)
	}
}

// loop emits a loop: pre (which may leave by jumping to brk), the body,
// post, and the count of fuel that returns to Go every fuse.PollEvery
// iterations. With tail (a range loop) the loop is rotated: entry tests
// once before it, and tail, after the fuel, jumps back to head while there
// are iterations left. An innermost loop with a small constant number of
// iterations (bounded) counts no fuel: it charges its iterations to the
// fuel on entry, and the enclosing loop or the item loop polls when the
// fuel runs out, so that all fuel tests are signed (fuel <= 0).
func (g *amd64Gen) loop(s *fuse.Stmt, entry, pre, post func(brk int), tail func(head int)) {
	a := g.a
	head, cont, brk := a.newLabel(), a.newLabel(), a.newLabel()
	g.labels[s.Label] = loopLabels{brk, cont}
	n := bounded(s)
	if n > 0 {
		a.aluI(aluSub, g.slotRM(g.sFuel), int32(n))
	}
	if entry != nil {
		entry(brk)
	}
	if !hasLoop(s.Body) {
		// An innermost loop starts at 16 bytes, whatever the no-ops
		// (one or two, run once at its entry): with a no-op of at most
		// 8 bytes only (gcc's -falign-loops=16:9), two instructions
		// fewer before cover's loop over a row left it unaligned and
		// cost 24%.
		a.align(16)
	}
	a.bind(head)
	pre(brk)
	g.bottom = nil
	if tail != nil && n > 0 {
		// A branch at the end of the body steps, tests and leaves itself,
		// where it would jump to the step and test.
		g.bottom = func() {
			post(brk)
			tail(head)
			a.jmp(brk)
		}
	}
	g.fresh = nil
	g.stmts(s.Body)
	a.bind(cont)
	post(brk)
	switch {
	case tail != nil && n == 0:
		stub, back := a.newLabel(), a.newLabel()
		g.slotAddI(g.sFuel, -1)
		a.jcc(ccLE, stub)
		a.bind(back)
		tail(head)
		g.later = append(g.later, func() {
			a.bind(stub)
			g.pollExit(back)
		})
	case tail != nil:
		tail(head)
	case n == 0:
		g.slotAddI(g.sFuel, -1)
		a.jcc(ccG, head)
		g.pollExit(head)
	default:
		a.jmp(head)
	}
	a.bind(brk)
}

// pollExit returns to Go to be polled, to resume at label to with the
// slot registers back and a full tank of fuel.
func (g *amd64Gen) pollExit(to int) {
	a := g.a
	if g.proc >= 0 {
		g.procPollExit(to)
		return
	}
	resume := a.newLabel()
	g.saveRegs()
	g.saveSlots()
	a.leaRIP(rAX, resume)
	a.store(at(rDI, g.ctl+ctlResume), rAX)
	a.storeI(at(rDI, g.ctl+ctlPoll), 1)
	if g.calls != nil {
		a.store(at(rDI, g.ctl+ctlCodeSP), rSP)
	}
	g.toGo()
	a.bind(resume)
	a.storeI(at(rDI, g.ctl+ctlResume), 0)
	g.loadRegs()
	g.setSlotI(g.sFuel, fuse.PollEvery)
	a.jmp(to)
}

// bounded returns the number of iterations of an innermost loop that
// makes at most fuse.PollEvery of them, known now (at least 1), or 0.
func bounded(s *fuse.Stmt) uint64 {
	if hasLoop(s.Body) {
		return 0
	}
	c := func(x *fuse.Expr) bool { return x != nil && x.Op == fuse.OpConst }
	switch s.Kind {
	case fuse.SForRange:
		if c(s.X) && c(s.Y) && c(s.Z) && s.Z.Imm != 0 {
			if n := fuse.RangeLen(s.X.Imm, s.Y.Imm, s.Z.Imm); n <= fuse.PollEvery {
				return max(n, 1)
			}
		}
	case fuse.SForBits:
		return 64
	case fuse.SForSubsets:
		if c(s.X) && s.Y == nil && bits.OnesCount64(s.X.Imm) <= 16 {
			return 1 << bits.OnesCount64(s.X.Imm)
		}
	}
	return 0
}

func hasLoop(ss []fuse.Stmt) bool {
	for i := range ss {
		if isLoop(&ss[i]) || hasLoop(ss[i].Body) || hasLoop(ss[i].Else) {
			return true
		}
	}
	return false
}

func (g *amd64Gen) stmt(s *fuse.Stmt) {
	a := g.a
	defer g.pow2Facts(s)() // (amd64_pow2.go)
	outer, outerUncond, outerCalled := g.cur, g.uncond, g.called
	g.cur, g.uncond, g.called = s, unconditional(s), nil
	defer func() { g.cur, g.uncond, g.called = outer, outerUncond, outerCalled }()
	bottom, fresh := g.bottom, g.fresh
	g.bottom, g.fresh = nil, nil
	// What s assigns (in loops, on every pass) is no longer known non-zero.
	// (Only walked when something is known: a chain of nested ifs would
	// otherwise cost the square of its length.)
	if len(g.nonzero) > 0 {
		forAssigned(s, func(v int) { delete(g.nonzero, v) })
	}
	if len(g.fits) > 0 && s.Kind != fuse.SAssign {
		forAssigned(s, func(v int) { delete(g.fits, v) })
	}
	defer g.rowFacts(s)()
	compound := s.Kind == fuse.SIf || s.Kind == fuse.SLabeled || isLoop(s)
	var fitsBefore map[int]uint64
	if compound {
		fitsBefore = maps.Clone(g.fits)
		defer func() { g.fits = fitsBefore }()
	}
	if s.Kind == fuse.SAssign {
		// The expression reads the variable's old value, with what was
		// known of it; then the variable holds the expression's bound
		// (its value was computed from the values those facts are
		// about, the checks it ran included).
		defer func() {
			b := g.bound(s.X)
			if g.belowFit != 0 {
				b, g.belowFit = g.belowFit, 0 // belowAssign's
			}
			if b != 0 {
				g.fits[s.Var] = b
			} else {
				delete(g.fits, s.Var)
			}
		}()
	}
	rest := g.rest
	g.rest = nil
	switch s.Kind {
	case fuse.SAssign:
		if g.belowAssign(s, rest) {
			break
		}
		if op, y := lowBitOf(s.X); y != nil && g.slotReg[s.Var] >= 0 {
			// b &= b - 1 and the like: one instruction into the register.
			d := poolRegs[g.slotReg[s.Var]]
			if v, ok := g.varReg(y); ok {
				a.lowBit(op, d, v)
			} else {
				t := g.expr(y)
				a.lowBit(op, d, t)
				g.release(t)
			}
			break
		}
		if g.assignInPlace(s) || g.addInPlace(s) {
			break
		}
		if s.X.Op == fuse.OpVar {
			// One variable into another: from register or home to
			// register or home, through RAX from home to home.
			src := int(s.X.Imm)
			switch {
			case g.slotReg[s.Var] >= 0:
				g.getSlot(poolRegs[g.slotReg[s.Var]], src)
			case g.slotReg[src] >= 0:
				a.store(g.home(s.Var), poolRegs[g.slotReg[src]])
			default:
				a.load(rAX, g.home(src))
				a.store(g.home(s.Var), rAX)
			}
			break
		}
		if r := g.slotReg[s.Var]; r >= 0 && !g.whole[s.Var] && !g.readsReg(s.X, r) {
			// The variable's value is dead until the assignment, and no
			// slot the expression reads shares its register (linear scan
			// may give it to one that dies here): it serves the
			// expression, first in line.
			g.free |= 1 << r
			t := g.expr(s.X)
			if v := poolRegs[r]; t != v {
				a.movRR(v, t)
				g.release(t)
			}
			g.free &^= 1 << r
			break
		}
		r := g.expr(s.X)
		g.setSlot(s.Var, r)
		g.release(r)
	case fuse.SStore:
		if g.storeConst(s) {
			break
		}
		sc := g.f.Scratch[s.Arr]
		i, owned := g.indexOperand(s.X, uint64(sc.Len), s.Check)
		held := []reg{i}
		if !owned {
			held = nil
		}
		// A constant that a sign-extended 32-bit immediate holds is
		// stored as one.
		constY := s.Y.Op == fuse.OpConst && int64(s.Y.Imm) == int64(int32(s.Y.Imm))
		var v reg
		if !constY {
			v = g.evalWith(s.Y, held)
			if owned {
				i = held[0]
			}
		}
		base, vals, epochs, tmp := g.scratchAt(s.Arr)
		if constY {
			a.storeI(indexed(base, i, 8, vals), int32(s.Y.Imm))
		} else {
			a.store(indexed(base, i, 8, vals), v)
		}
		if g.isDense(s.Arr) {
			g.denseMark(s.Arr, i)
		} else if !g.steady[s.Arr] {
			e := g.slotRM(g.sEpoch[s.Arr])
			if e.isMem {
				a.load(rAX, e.m)
				e = R(rAX)
			}
			a.store(indexed(base, i, 8, epochs), e.r)
		}
		if tmp {
			g.release(base)
		}
		if owned {
			g.release(i)
		}
		if !constY {
			g.release(v)
		}
	case fuse.SFresh:
		if g.proc >= 0 {
			// A Proc's arrays take their epochs from the worker's
			// counter, so that a frame's epochs only grow.
			a.load(rAX, at(rDI, g.ctl+ctlEpoch))
			a.aluI(aluAdd, R(rAX), 1)
			a.store(at(rDI, g.ctl+ctlEpoch), rAX)
			g.setSlot(g.sEpoch[s.Arr], rAX)
			break
		}
		if g.isDense(s.Arr) {
			g.denseFresh(s.Arr)
			break
		}
		g.slotAddI(g.sEpoch[s.Arr], 1)
	case fuse.SIf:
		els, end := a.newLabel(), a.newLabel()
		g.branchFresh(s.X, els, false, fresh)
		// The condition ran, whichever way it went: what its checks
		// showed holds in both branches, and after the if for the
		// variables neither branch assigns (the deferred restore).
		fitsCond := maps.Clone(g.fits)
		fitsBefore = maps.Clone(g.fits)
		if len(fitsBefore) > 0 { // (walked only then, as above)
			forAssigned(s, func(v int) { delete(fitsBefore, v) })
		}
		known := maps.Clone(g.nonzero)
		if v := nonzeroVar(s.X); v >= 0 {
			g.nonzero[v] = true
		}
		elem, freshWhen := freshFact(g.f, s.X)
		g.bottom = bottom
		if elem != nil && freshWhen {
			g.fresh = elem
		}
		g.stmts(s.Body)
		g.nonzero = maps.Clone(known)
		g.fits = maps.Clone(fitsCond)
		if len(s.Else) > 0 {
			switch {
			case fuse.Leaves(s.Body):
			case bottom != nil:
				bottom()
			default:
				a.jmp(end)
			}
			a.bind(els)
			g.bottom = bottom
			if elem != nil && !freshWhen {
				g.fresh = elem
			}
			g.stmts(s.Else)
		} else {
			a.bind(els)
		}
		a.bind(end)
		g.nonzero = known
	case fuse.SWhile:
		if g.popcountLoop(s) { // amd64_popcount.go
			break
		}
		scanEnd, scanned := g.bitScan(s) // amd64_scan.go
		if scanned {
			break
		}
		known := maps.Clone(g.nonzero)
		// The condition runs at the head of every pass: what its checks
		// show holds in the body until an assignment, and after the
		// loop where only the condition leaves it.
		var shown map[int]uint64
		g.loop(s, nil, func(brk int) {
			before := maps.Clone(g.fits)
			g.uncond = map[*fuse.Expr]bool{}
			unconditionalIn(g.uncond, s.X)
			g.branch(s.X, brk, false)
			g.uncond = nil
			shown = map[int]uint64{}
			for v, b := range g.fits {
				if c, ok := before[v]; !ok || b < c {
					shown[v] = b
				}
			}
			if v := nonzeroVar(s.X); v >= 0 {
				g.nonzero[v] = true
			}
		}, func(int) {}, nil)
		g.nonzero = known
		if !breaks(s.Body, s.Label) {
			for v, b := range shown {
				fitsBefore[v] = b
			}
		}
		if scanEnd >= 0 {
			a.bind(scanEnd)
		}
	case fuse.SForRange:
		g.forRange(s)
	case fuse.SForSubsets:
		g.forSubsets(s)
	case fuse.SForBits:
		cur := g.loopSlot[s][0]
		r := g.expr(s.X)
		g.setSlot(cur, r)
		g.release(r)
		g.loop(s, nil, func(brk int) {
			c := g.slotRM(cur)
			if c.isMem {
				a.load(rDX, c.m)
				c = R(rDX)
			}
			a.test(c.r, c.r)
			a.jcc(ccE, brk)
			a.tzcnt(rAX, c.r)
			g.setSlot(s.Var, rAX)
			a.lea(rAX, at(c.r, -1))
			a.alu(aluAnd, rAX, R(c.r))
			g.setSlot(cur, rAX)
		}, func(int) {}, nil)
	case fuse.SLabeled:
		brk := a.newLabel()
		g.labels[s.Label] = loopLabels{brk, -1}
		g.stmts(s.Body)
		a.bind(brk)
	case fuse.SBreak:
		a.jmp(g.labels[s.Label].brk)
	case fuse.SContinue:
		a.jmp(g.labels[s.Label].cont)
	case fuse.SReturn:
		if s.X.Op == fuse.OpConst {
			a.movRI(rDX, s.X.Imm)
		} else {
			r := g.expr(s.X)
			a.movRR(rDX, r)
			g.release(r)
		}
		a.jmp(g.retL)
	case fuse.SFail:
		if s.X != nil {
			r := g.expr(s.X)
			a.store(at(rDI, 8), r)
			g.release(r)
		} else {
			a.storeI(at(rDI, 8), 0)
		}
		a.store32I(at(rDI, 4), uint32(s.Check))
		a.jmp(g.failExit)
	case fuse.SOperand:
		r := g.expr(s.X)
		a.store(at(rDI, g.ctl+ctlOps+8*int32(s.Var)), r)
		g.release(r)
	case fuse.SCallout:
		g.calloutExit(s.Arr)
	default:
		panic(fmt.Sprintf("amd64: statement %d", s.Kind))
	}
}

// assignInPlace emits v = v op e (or e op v, op commutative) for a variable
// in a register as one instruction on that register, e evaluated first:
// the counters and updates of loops. It extends to a left spine,
// v = ((v op1 e1) op2 e2) ..., as hash steps are written, where e2 and
// later do not read v (they run after v has changed). It reports false,
// emitting nothing, for any other assignment.
func (g *amd64Gen) assignInPlace(s *fuse.Stmt) bool {
	r := g.slotReg[s.Var]
	if r < 0 {
		return false
	}
	spine := g.spine(s.X, r)
	if spine == nil {
		return false
	}
	a, v := g.a, poolRegs[r]
	for _, st := range spine {
		x, other := st.x, st.other
		op := aluOps[x.Op]
		if other.Op == fuse.OpConst && int64(other.Imm) == int64(int32(other.Imm)) {
			if x.Op == fuse.OpMul {
				g.mulI(v, int32(other.Imm))
			} else {
				a.aluI(op, R(v), int32(other.Imm))
			}
			continue
		}
		if other.Op == fuse.OpVar {
			// A variable's register or home as the operand itself.
			o := g.slotRM(int(other.Imm))
			if x.Op == fuse.OpMul {
				a.imul(v, o)
			} else {
				a.alu(op, v, o)
			}
			continue
		}
		t := g.expr(other)
		if x.Op == fuse.OpMul {
			a.imul(v, R(t))
		} else {
			a.alu(op, v, R(t))
		}
		g.release(t)
	}
	return true
}

// A spineStep is one update of a variable in place: v = v x.Op other.
type spineStep struct{ x, other *fuse.Expr }

// spine returns the updates that compute x in place in register r (an
// index into poolRegs), innermost first, or nil. The innermost operand is
// the variable assigned or one that dies here and so shares its register
// (linear scan hands the register of a slot whose last read is here to
// the slot written here). The innermost step's other operand may read r
// (it runs before r changes); no outer one may.
func (g *amd64Gen) spine(x *fuse.Expr, r int) []spineStep {
	_, isALU := aluOps[x.Op]
	if !g.cannotFail(x) || !isALU && x.Op != fuse.OpMul {
		return nil
	}
	self := func(e *fuse.Expr) bool { return e.Op == fuse.OpVar && g.slotReg[e.Imm] == r }
	try := func(in, other *fuse.Expr) []spineStep {
		if self(in) {
			return []spineStep{{x, other}}
		}
		if g.readsReg(other, r) {
			return nil
		}
		inner := g.spine(in, r)
		if inner == nil {
			return nil
		}
		return append(inner, spineStep{x, other})
	}
	if st := try(x.Args[0], x.Args[1]); st != nil {
		return st
	}
	if x.Op != fuse.OpSub {
		return try(x.Args[1], x.Args[0])
	}
	return nil
}

// readsReg reports whether x reads a slot held in register r (an index
// into poolRegs): a variable's, or a scratch array's epoch.
func (g *amd64Gen) readsReg(x *fuse.Expr, r int) bool {
	switch x.Op {
	case fuse.OpVar:
		if g.slotReg[x.Imm] == r {
			return true
		}
	case fuse.OpScratch:
		if g.slotReg[g.sEpoch[x.Imm]] == r {
			return true
		}
	}
	for _, a := range x.Args {
		if g.readsReg(a, r) {
			return true
		}
	}
	return false
}

// A rangePlan says how a range loop counts.
type rangePlan struct {
	// constant: the bounds and the step are constants, the step a nonzero
	// int32; the loop runs n times and ends when the cursor reaches end.
	constant bool
	n, end   uint64
	// induct: the body does not assign the variable and nothing outside
	// the loop reads it, so the variable is the cursor itself, stepped
	// after the body (its value after the loop is never seen).
	induct bool
	// dead: an induct loop that counts down (not constant) whose body
	// never reads the variable either (fuse.Func.StrengthReduce took its
	// products): the cursor is not stepped at all.
	dead bool
}

func (g *amd64Gen) planRange(s *fuse.Stmt) rangePlan {
	var pl rangePlan
	c := func(x *fuse.Expr) bool { return x.Op == fuse.OpConst }
	if c(s.X) && c(s.Y) && c(s.Z) && s.Z.Imm != 0 && int64(s.Z.Imm) == int64(int32(s.Z.Imm)) {
		pl.constant = true
		pl.n = fuse.RangeLen(s.X.Imm, s.Y.Imm, s.Z.Imm)
		pl.end = s.X.Imm + pl.n*s.Z.Imm
	}
	assigned := false
	for i := range s.Body {
		forAssigned(&s.Body[i], func(v int) { assigned = assigned || v == s.Var })
	}
	stepConst := c(s.Z) && int64(s.Z.Imm) == int64(int32(s.Z.Imm))
	pl.induct = stepConst && !assigned && s.Var >= g.f.Params &&
		countVar(g.f.Body, s.Var) == countVar([]fuse.Stmt{*s}, s.Var)
	pl.dead = pl.induct && !pl.constant && countVar(s.Body, s.Var) == 0
	return pl
}

// countVar counts the reads and assignments of variable v in ss.
func countVar(ss []fuse.Stmt, v int) int {
	var x func(e *fuse.Expr) int
	x = func(e *fuse.Expr) int {
		if e == nil {
			return 0
		}
		n := 0
		if e.Op == fuse.OpVar && int(e.Imm) == v {
			n++
		}
		for _, a := range e.Args {
			n += x(a)
		}
		return n
	}
	n := 0
	for i := range ss {
		s := &ss[i]
		switch s.Kind {
		case fuse.SAssign, fuse.SForRange, fuse.SForSubsets, fuse.SForBits:
			if s.Var == v {
				n++
			}
		}
		n += x(s.X) + x(s.Y) + x(s.Z) + countVar(s.Body, v) + countVar(s.Else, v)
	}
	return n
}

// forRange emits for Var in range(X, Y, Z). With constant bounds the
// cursor runs to its end value; else the count of items comes first
// (fuse.RangeLen) and the loop counts it down.
func (g *amd64Gen) forRange(s *fuse.Stmt) {
	a := g.a
	h := g.loopSlot[s]
	cur, cnt, step := h[0], h[1], h[2]
	pl := g.ranges[s]
	if pl.induct {
		cur = s.Var
	}
	// advance steps the cursor by the constant step, or by the step slot.
	advance := func() {
		if s.Z.Op == fuse.OpConst && int64(s.Z.Imm) == int64(int32(s.Z.Imm)) {
			g.slotAddI(cur, int32(s.Z.Imm))
			return
		}
		if r, k := g.slotReg[cur], g.slotReg[step]; r >= 0 && k >= 0 {
			a.alu(aluAdd, poolRegs[r], R(poolRegs[k]))
			return
		}
		g.getSlot(rAX, step)
		if r := g.slotReg[cur]; r >= 0 {
			a.alu(aluAdd, poolRegs[r], R(rAX))
		} else {
			a.alu(aluAdd, rAX, M(g.home(cur)))
			a.store(g.home(cur), rAX)
		}
	}
	// pre gives the variable the cursor's value and steps the cursor;
	// post steps the variable that is the cursor.
	pre := func(int) {
		if pl.induct {
			return
		}
		if r := g.slotReg[cur]; r >= 0 {
			g.setSlot(s.Var, poolRegs[r])
		} else {
			a.load(rAX, g.home(cur))
			g.setSlot(s.Var, rAX)
		}
		advance()
	}
	post := func(int) {
		if pl.induct && !pl.dead {
			advance()
		}
	}
	defer g.hoistRow(s)()
	if pl.constant {
		if pl.n == 0 {
			return
		}
		g.setSlotI(cur, s.X.Imm)
		g.loop(s, nil, pre, post, func(head int) {
			if int64(pl.end) == int64(int32(pl.end)) {
				a.aluI(aluCmp, g.slotRM(cur), int32(pl.end))
			} else {
				a.movRI(rAX, pl.end)
				a.alu(aluCmp, rAX, g.slotRM(cur))
			}
			a.jcc(ccNE, head)
		})
		return
	}
	ra := g.expr(s.X)
	held := []reg{ra}
	rb := g.evalWith(s.Y, held)
	held = append(held, rb)
	rs := g.evalWith(s.Z, held)
	ra, rb = held[0], held[1]
	g.setSlot(cur, ra)
	g.setSlot(step, rs)
	constStep := s.Z.Op == fuse.OpConst
	if !constStep || s.Z.Imm == 0 {
		a.test(rs, rs)
		g.failIf(ccE, s.Check, 0, false)
	}
	zero, store := a.newLabel(), a.newLabel()
	switch {
	case constStep && s.Z.Imm == 1:
		a.alu(aluCmp, ra, R(rb))
		a.jcc(ccGE, zero)
		a.movRR(rAX, rb)
		a.alu(aluSub, rAX, R(ra))
		a.jmp(store)
	case constStep && int64(s.Z.Imm) > 0 && s.Z.Imm&(s.Z.Imm-1) == 0:
		// A positive step that is a power of two: the count's division
		// is a shift.
		a.alu(aluCmp, ra, R(rb))
		a.jcc(ccGE, zero)
		a.movRR(rAX, rb)
		a.alu(aluSub, rAX, R(ra))
		a.aluI(aluSub, R(rAX), 1)
		a.shiftI(shShr, rAX, uint8(bits.TrailingZeros64(s.Z.Imm)))
		a.aluI(aluAdd, R(rAX), 1)
		a.jmp(store)
	default:
		neg := a.newLabel()
		a.test(rs, rs)
		a.jcc(ccLE, neg)
		a.alu(aluCmp, ra, R(rb))
		a.jcc(ccGE, zero)
		a.movRR(rAX, rb)
		a.alu(aluSub, rAX, R(ra))
		g.countDiv(rs, store)
		a.bind(neg)
		a.alu(aluCmp, ra, R(rb))
		a.jcc(ccLE, zero)
		a.movRR(rAX, ra)
		a.alu(aluSub, rAX, R(rb))
		a.neg(rs)
		g.countDiv(rs, store)
	}
	a.bind(zero)
	a.movRI(rAX, 0)
	a.bind(store)
	g.setSlot(cnt, rAX)
	g.release(ra)
	g.release(rb)
	g.release(rs)
	g.loop(s, func(brk int) {
		a.aluI(aluCmp, g.slotRM(cnt), 0)
		a.jcc(ccE, brk)
	}, pre, post, func(head int) {
		g.slotAddI(cnt, -1)
		a.jcc(ccNE, head)
	})
}

// countDiv finishes a range's count: RAX = (RAX - 1) / s + 1, then jumps
// to store.
func (g *amd64Gen) countDiv(s reg, store int) {
	a := g.a
	a.aluI(aluSub, R(rAX), 1)
	a.movRI(rDX, 0)
	a.div(s)
	a.aluI(aluAdd, R(rAX), 1)
	a.jmp(store)
}

// forSubsets emits for Var in subsets(X) or subsets(X, Y).
func (g *amd64Gen) forSubsets(s *fuse.Stmt) {
	a := g.a
	h := g.loopSlot[s]
	m, cur, k := h[0], h[1], h[2]
	rm := g.expr(s.X)
	if s.Y == nil {
		g.setSlot(m, rm)
		g.release(rm)
		g.setSlotI(cur, 0)
		g.loop(s, nil, func(int) {
			g.getSlot(rAX, cur)
			g.setSlot(s.Var, rAX)
			if r := g.slotReg[m]; r >= 0 {
				a.alu(aluSub, rAX, R(poolRegs[r]))
				a.alu(aluAnd, rAX, R(poolRegs[r]))
			} else {
				a.alu(aluSub, rAX, M(g.home(m)))
				a.alu(aluAnd, rAX, M(g.home(m)))
			}
			g.setSlot(cur, rAX)
		}, func(brk int) {
			g.curZero(cur, brk)
		}, nil)
		return
	}
	held := []reg{rm}
	rk := g.evalWith(s.Y, held)
	rm = held[0]
	g.setSlot(m, rm)
	g.setSlot(k, rk)
	// k > popcount(m): no subsets; k == 0: the empty one; else from the
	// lowest k bits of m.
	skip, first, begin := a.newLabel(), a.newLabel(), a.newLabel()
	a.popcnt(rAX, rm)
	a.alu(aluCmp, rk, R(rAX))
	a.jcc(ccA, skip)
	a.test(rk, rk)
	a.jcc(ccNE, first)
	g.setSlotI(cur, 0)
	a.jmp(begin)
	a.bind(first)
	a.movRI(rAX, ^uint64(0))
	a.shlx(rDX, rAX, rk)
	a.not(rDX)
	a.aluI(aluCmp, R(rk), 64)
	a.cmov(ccAE, rDX, rAX)
	a.pdep(rDX, rDX, rm)
	g.setSlot(cur, rDX)
	a.bind(begin)
	g.release(rm)
	g.release(rk)
	g.loop(s, nil, func(int) {
		x, set := g.alloc(), g.alloc()
		g.getSlot(x, cur)
		g.setSlot(s.Var, x)
		g.getSlot(set, m)
		zero, end := a.newLabel(), a.newLabel()
		a.aluI(aluCmp, g.slotRM(k), 0)
		a.jcc(ccE, zero)
		// subset.Snoob: l = x & -x; s = (x | ^set) + l, none after
		// a carry; r = s & set; then popcount(x &^ r) - 1 bits back at
		// the lowest of set.
		a.movRR(rAX, x)
		a.neg(rAX)
		a.alu(aluAnd, rAX, R(x))
		a.movRR(rDX, set)
		a.not(rDX)
		a.alu(aluOr, rDX, R(x))
		a.alu(aluAdd, rDX, R(rAX))
		a.jcc(ccB, zero) // carry
		a.alu(aluAnd, rDX, R(set))
		a.movRR(rAX, rDX)
		a.not(rAX)
		a.alu(aluAnd, rAX, R(x))
		a.popcnt(rAX, rAX)
		a.aluI(aluSub, R(rAX), 1)
		a.movRI(x, 1)
		a.shlx(x, x, rAX)
		a.aluI(aluSub, R(x), 1)
		a.pdep(x, x, set)
		a.alu(aluOr, rDX, R(x))
		a.jmp(end)
		a.bind(zero)
		a.movRI(rDX, 0)
		a.bind(end)
		g.setSlot(cur, rDX)
		g.release(x)
		g.release(set)
	}, func(brk int) {
		g.curZero(cur, brk)
	}, nil)
	a.bind(skip)
}

// curZero leaves the loop (jumps to brk) when slot cur is 0.
func (g *amd64Gen) curZero(cur, brk int) {
	g.a.aluI(aluCmp, g.slotRM(cur), 0)
	g.a.jcc(ccE, brk)
}

// needOf returns the pool registers evaluating x takes, evaluating the
// operands in order (Sethi-Ullman).
func (g *amd64Gen) needOf(x *fuse.Expr) int {
	if n, ok := g.need[x]; ok {
		return n
	}
	n := 1
	switch x.Op {
	case fuse.OpCond:
		for _, a := range x.Args {
			n = max(n, g.needOf(a))
		}
	case fuse.OpAndThen, fuse.OpOrElse:
		n = max(g.needOf(x.Args[0]), g.needOf(x.Args[1]))
	default:
		for i, a := range x.Args {
			n = max(n, g.needOf(a)+i)
		}
	}
	if x.Op == fuse.OpScratch || x.Op == fuse.OpLoad2 {
		n = max(n, 2)
	}
	g.need[x] = n
	return n
}

// evalWith evaluates x into a new register while the registers of held
// stay live: where x needs more registers than are free, held goes to the
// spill area around it and comes back in (perhaps other) registers, which
// evalWith writes back into held.
func (g *amd64Gen) evalWith(x *fuse.Expr, held []reg) reg {
	if len(held) == 0 || g.nFree() >= g.needOf(x) {
		return g.expr(x)
	}
	base := g.spill
	for i, r := range held {
		g.a.store(g.spillAt(base+i), r)
		g.release(r)
	}
	g.spill += len(held)
	g.maxSpill = max(g.maxSpill, g.spill)
	v := g.expr(x)
	for i := range held {
		held[i] = g.alloc()
		g.a.load(held[i], g.spillAt(base+i))
	}
	g.spill = base
	return v
}

func (g *amd64Gen) spillAt(i int) mem {
	if g.proc >= 0 {
		return at(rSP, 8*int32(g.nSlots+i))
	}
	return at(rDI, g.ctl+ctlSlots+8*int32(g.nSlots+i))
}

// operands evaluates x's operands into registers and runs its check.
func (g *amd64Gen) operands(x *fuse.Expr) []reg {
	rs := make([]reg, 0, len(x.Args))
	if late := leavesAfterCalls(x.Args); late != nil {
		// A variable or constant operand beside a call is read after it
		// (a call assigns none of its caller's variables), so that it is
		// not held, and saved, across the call (count += place(...)).
		var early []int
		for i := range x.Args {
			if !late[i] {
				early = append(early, i)
			}
		}
		for i := range x.Args {
			if late[i] {
				early = append(early, i)
			}
		}
		got := make([]reg, len(x.Args))
		for _, i := range early {
			v := g.evalWith(x.Args[i], rs)
			rs = append(rs, v)
		}
		for k, i := range early {
			got[i] = rs[k]
		}
		rs = got
	} else {
		for _, e := range x.Args {
			v := g.evalWith(e, rs)
			rs = append(rs, v)
		}
	}
	if x.Check < 0 {
		return rs
	}
	a := g.a
	chk := g.f.Checks[x.Check]
	switch chk.Kind {
	case fuse.CheckNonZero:
		v, arg := rs[0], x.Args[0]
		if x.Op == fuse.OpDiv || x.Op == fuse.OpMod {
			v, arg = rs[1], x.Args[1]
		}
		if arg.Op == fuse.OpVar && g.nonzero[int(arg.Imm)] {
			break
		}
		a.test(v, v)
		g.failIf(ccE, x.Check, 0, false)
	case fuse.CheckFits:
		arg := x.Args[0]
		if b := g.bound(arg); chk.Imm < 64 && !(b != 0 && b <= 1<<chk.Imm) {
			a.movRR(rAX, rs[0])
			if chk.Imm > 0 {
				a.shiftI(shShr, rAX, uint8(chk.Imm))
			}
			a.test(rAX, rAX)
			g.failIf(ccNE, x.Check, rs[0], true)
			if arg.Op == fuse.OpVar && g.uncond[x] {
				g.fits[int(arg.Imm)] = 1 << chk.Imm
			}
		}
	case fuse.CheckDelta:
		m, d := rs[1], rs[2]
		ok := a.newLabel()
		a.aluI(aluCmp, R(d), 63)
		g.failIf(ccA, x.Check, d, true)
		a.shlx(rAX, m, d)
		a.shrx(rDX, rAX, d)
		a.alu(aluCmp, rDX, R(m))
		g.failIf(ccNE, x.Check, d, true)
		a.test(d, d)
		a.jcc(ccE, ok)
		a.alu(aluAnd, rAX, R(m))
		g.failIf(ccNE, x.Check, d, true)
		a.bind(ok)
	case fuse.CheckAddExact:
		a.movRR(rAX, rs[0])
		a.alu(aluAdd, rAX, R(rs[1]))
		g.failIf(ccB, x.Check, rs[1], true)
	case fuse.CheckSubExact:
		a.alu(aluCmp, rs[0], R(rs[1]))
		g.failIf(ccB, x.Check, rs[1], true)
	case fuse.CheckMulExact:
		a.movRR(rAX, rs[0])
		a.mul(rs[1])
		g.failIf(ccB, x.Check, rs[1], true)
	case fuse.CheckShlExact:
		a.aluI(aluCmp, R(rs[1]), 63)
		g.failIf(ccA, x.Check, rs[1], true)
		a.shlx(rAX, rs[0], rs[1])
		a.shrx(rDX, rAX, rs[1])
		a.alu(aluCmp, rDX, R(rs[0]))
		g.failIf(ccNE, x.Check, rs[1], true)
	default:
		panic(fmt.Sprintf("amd64: check kind %d on an expression", chk.Kind))
	}
	return rs
}

// leavesAfterCalls returns, where one of args makes a call, which of them
// are variables or constants, whose values no call changes (else nil).
func leavesAfterCalls(args []*fuse.Expr) []bool {
	if !hasCall(args) {
		return nil
	}
	late := make([]bool, len(args))
	some := false
	for i, e := range args {
		late[i] = leaf(e)
		some = some || late[i]
	}
	if !some {
		return nil
	}
	return late
}

// checkFitsVar runs x's width check (CheckFits) on its first operand, a
// variable, unless a check that passed before covers it.
func (g *amd64Gen) checkFitsVar(x *fuse.Expr) {
	a := g.a
	w, v := g.f.Checks[x.Check].Imm, int(x.Args[0].Imm)
	if b := g.bound(x.Args[0]); w >= 64 || b != 0 && b <= 1<<w {
		return
	}
	g.getSlot(rDX, v)
	a.movRR(rAX, rDX)
	if w > 0 {
		a.shiftI(shShr, rAX, uint8(w))
	}
	a.test(rAX, rAX)
	g.failIf(ccNE, x.Check, rDX, true)
	if g.uncond[x] {
		g.fits[v] = 1 << w
	}
}

// index evaluates x and resolves it as an index into n elements (a
// negative one counting from the end), failing check when it is out of
// range.
func (g *amd64Gen) index(x *fuse.Expr, n uint64, check int) reg {
	if x.Op == fuse.OpConst {
		if i, ok := fuse.Index(x.Imm, int(n)); ok {
			r := g.alloc()
			g.a.movRI(r, i)
			return r
		}
	}
	r := g.expr(x)
	b := g.bound(x)
	switch {
	case b != 0 && b <= n:
		return r
	case b != 0 && b <= 1<<63:
		// Not negative: only the length to check.
		if n <= 1<<31-1 {
			g.a.aluI(aluCmp, R(r), int32(n))
		} else {
			g.a.movRI(rDX, n)
			g.a.alu(aluCmp, r, R(rDX))
		}
		g.failIf(ccAE, check, r, true)
		return r
	}
	if n <= 1<<31-1 {
		g.resolve(r, false, int32(n), check)
	} else {
		g.a.movRI(rDX, n)
		g.resolve(r, true, 0, check)
	}
	return r
}

// indexOperand is index, except that a variable in a register that needs
// no check is its own index: owned is false then, and the register is the
// variable's, not to be changed or given back.
func (g *amd64Gen) indexOperand(x *fuse.Expr, n uint64, check int) (r reg, owned bool) {
	if r, owned, ok := g.belowIndex(x, n, check); ok {
		return r, owned
	}
	x = g.peelMask(x)
	if x.Op == fuse.OpVar {
		if s := int(x.Imm); g.slotReg[s] >= 0 {
			if b := g.bound(x); b != 0 && b <= n {
				return poolRegs[g.slotReg[s]], false
			}
		}
	}
	return g.index(x, n, check), true
}

// scratchAt returns where scratch array arr's values and epochs start, from
// base: the amd64 engine keeps them as two arrays in the array's 16 bytes
// an element, so that an element is addressed with a scale of 8. The
// function's own arrays are in the layout, from RDI; a Proc's are where
// its pointer slot says, and where that slot has no register base is one
// of the pool (tmp), which the caller releases.
func (g *amd64Gen) scratchAt(arr int) (base reg, vals, epochs int32, tmp bool) {
	n := 8 * int32(g.f.Scratch[arr].Len)
	if g.proc < 0 {
		at := int32(g.l.scratch[arr])
		return rDI, at, at + n, false
	}
	if k := g.fixedOf(arr); k >= 0 {
		at := int32(g.l.scratch[k]) // (amd64_fixed.go)
		return rDI, at, at + n, false
	}
	if r := g.slotReg[g.sPtr[arr]]; r >= 0 {
		return poolRegs[r], 0, n, false
	}
	base = g.alloc()
	g.a.load(base, g.home(g.sPtr[arr]))
	return base, 0, n, true
}

// resolve turns the index in r into one in range of the length (RDX where
// inRDX, else the constant k): r + (r < 0 ? length : 0), which must be
// below length.
func (g *amd64Gen) resolve(r reg, inRDX bool, k int32, check int) {
	a := g.a
	a.movRR(rAX, r)
	a.shiftI(shSar, rAX, 63)
	if inRDX {
		a.alu(aluAnd, rAX, R(rDX))
		a.alu(aluAdd, rAX, R(r))
		a.alu(aluCmp, rAX, R(rDX))
	} else {
		a.aluI(aluAnd, R(rAX), k)
		a.alu(aluAdd, rAX, R(r))
		a.aluI(aluCmp, R(rAX), k)
	}
	g.failIf(ccAE, check, r, true)
	a.movRR(r, rAX)
}

// operand returns y as an operand for an instruction on a register: a
// variable's register or home, or a constant loaded into RAX.
func (g *amd64Gen) operand(y *fuse.Expr) (rm, bool) {
	switch y.Op {
	case fuse.OpVar:
		return g.slotRM(int(y.Imm)), true
	case fuse.OpConst:
		g.a.movRI(rAX, y.Imm)
		return R(rAX), true
	}
	return rm{}, false
}

func leaf(x *fuse.Expr) bool { return x.Op == fuse.OpVar || x.Op == fuse.OpConst }

var aluOps = map[fuse.Op]aluOp{fuse.OpAdd: aluAdd, fuse.OpSub: aluSub, fuse.OpAnd: aluAnd, fuse.OpOr: aluOr,
	fuse.OpXor: aluXor}

var cmpConds = map[fuse.Op]cond{fuse.OpEq: ccE, fuse.OpNe: ccNE, fuse.OpLt: ccB, fuse.OpLe: ccBE,
	fuse.OpGt: ccA, fuse.OpGe: ccAE}

// binary evaluates x's first operand into a register and applies op with
// the second: directly from a variable or a constant where it is one.
func (g *amd64Gen) binary(x *fuse.Expr, apply func(d reg, o rm), applyI func(d reg, k int32)) reg {
	p, q := x.Args[0], x.Args[1]
	commutative := x.Op != fuse.OpSub && x.Op < fuse.OpEq
	if commutative && (leaf(p) && !leaf(q) || p.Op == fuse.OpConst && q.Op != fuse.OpConst) {
		p, q = q, p
	}
	if q.Op == fuse.OpConst && applyI != nil && int64(q.Imm) == int64(int32(q.Imm)) {
		if x.Op == fuse.OpAdd || x.Op == fuse.OpSub && int32(q.Imm) != -1<<31 {
			k := int32(q.Imm)
			if x.Op == fuse.OpSub {
				k = -k
			}
			if r, ok := g.varReg(p); ok {
				// v + k, v - k into a new register in one instruction
				d := g.alloc()
				g.a.lea(d, at(r, k))
				return d
			}
			if r, m, ok := g.scaledVar(p); ok {
				// v*3 + k (5, 9) likewise
				d := g.alloc()
				g.a.lea(d, indexed(r, r, m-1, k))
				return d
			}
		}
		if r, m, ok := g.scaledVar(x); ok {
			d := g.alloc()
			g.a.lea(d, indexed(r, r, m-1, 0))
			return d
		}
		if r, ok := g.varReg(p); ok && x.Op == fuse.OpMul && q.Imm&(q.Imm-1) != 0 {
			d := g.alloc()
			g.a.imulI(d, r, int32(q.Imm))
			return d
		}
		d := g.expr(p)
		applyI(d, int32(q.Imm))
		return d
	}
	if leaf(q) {
		d := g.expr(p)
		o, _ := g.operand(q)
		apply(d, o)
		return d
	}
	d := g.expr(p)
	held := []reg{d}
	v := g.evalWith(q, held)
	d = held[0]
	apply(d, R(v))
	g.release(v)
	return d
}

// mulI multiplies d by k: by a shift or an lea (one cycle) where k is a
// power of two or 3, 5 or 9, else by imul (three).
// scaledVar reports whether x is v * 3, 5 or 9 for a variable v in a
// register (a lea's base and index), and returns the register and factor.
func (g *amd64Gen) scaledVar(x *fuse.Expr) (reg, uint8, bool) {
	if x.Op != fuse.OpMul || x.Check >= 0 {
		return 0, 0, false
	}
	v, k := x.Args[0], x.Args[1]
	if v.Op == fuse.OpConst {
		v, k = k, v
	}
	r, ok := g.varReg(v)
	if !ok || k.Op != fuse.OpConst || k.Imm != 3 && k.Imm != 5 && k.Imm != 9 {
		return 0, 0, false
	}
	return r, uint8(k.Imm), true
}

func (g *amd64Gen) mulI(d reg, k int32) {
	switch {
	case k > 0 && k&(k-1) == 0:
		if k > 1 {
			g.a.shiftI(shShl, d, uint8(bits.TrailingZeros32(uint32(k))))
		}
	case k == 3 || k == 5 || k == 9:
		g.a.lea(d, indexed(d, d, uint8(k-1), 0))
	default:
		g.a.imulI(d, d, k)
	}
}

// varReg returns the register of x when x is a variable that has one.
func (g *amd64Gen) varReg(x *fuse.Expr) (reg, bool) {
	if x.Op == fuse.OpVar && g.slotReg[x.Imm] >= 0 {
		return poolRegs[g.slotReg[x.Imm]], true
	}
	return 0, false
}

// branch jumps to l when x's truth is when.
func (g *amd64Gen) branch(x *fuse.Expr, l int, when bool) { g.branchFresh(x, l, when, nil) }

// branchFresh is branch where scratch element fresh (if not nil) is known
// fresh.
func (g *amd64Gen) branchFresh(x *fuse.Expr, l int, when bool, fresh *fuse.Expr) {
	a := g.a
	if (x.Op == fuse.OpEq || x.Op == fuse.OpNe) && g.branchScratch(x, l, when, fresh) {
		return
	}
	if c, ok := cmpConds[x.Op]; ok {
		var d reg
		d = g.binary(x, func(d reg, o rm) { a.alu(aluCmp, d, o) }, func(d reg, k int32) {
			if k == 0 {
				a.test(d, d)
			} else {
				a.aluI(aluCmp, R(d), k)
			}
		})
		g.release(d)
		if !when {
			c = c.not()
		}
		a.jcc(c, l)
		return
	}
	switch x.Op {
	case fuse.OpLNot:
		g.branch(x.Args[0], l, !when)
		return
	case fuse.OpBool:
		g.branch(x.Args[0], l, when)
		return
	case fuse.OpAndThen, fuse.OpOrElse:
		if (x.Op == fuse.OpAndThen) != when {
			g.branch(x.Args[0], l, when)
			g.branch(x.Args[1], l, when)
			return
		}
		skip := a.newLabel()
		g.branch(x.Args[0], skip, !when)
		g.branch(x.Args[1], l, when)
		a.bind(skip)
		return
	}
	if x.Op == fuse.OpConst {
		// A constant condition (while True:): a jump or nothing.
		if (x.Imm != 0) == when {
			a.jmp(l)
		}
		return
	}
	if x.Op == fuse.OpVar && g.slotReg[x.Imm] >= 0 {
		r := poolRegs[g.slotReg[x.Imm]]
		a.test(r, r)
	} else {
		r := g.expr(x)
		a.test(r, r)
		g.release(r)
	}
	if when {
		a.jcc(ccNE, l)
	} else {
		a.jcc(ccE, l)
	}
}

// scratchCompare returns the scratch element and the other side of x, a
// comparison (== or !=) of a scratch element with y, or nil. The scratch
// element must come first, or y be a leaf, so that the checks run in their
// order.
func scratchCompare(x *fuse.Expr) (sc, y *fuse.Expr) {
	if x.Op != fuse.OpEq && x.Op != fuse.OpNe {
		return nil, nil
	}
	sc, y = x.Args[0], x.Args[1]
	if sc.Op != fuse.OpScratch && y.Op == fuse.OpScratch && leaf(sc) {
		sc, y = y, sc
	}
	if sc.Op != fuse.OpScratch {
		return nil, nil
	}
	return sc, y
}

// freshFact returns the scratch element that condition x compares with a
// constant, and the value of x under which that element is fresh: a stale
// element is Init, which decides x the other way. It returns nil where x
// is no such comparison.
func freshFact(f *fuse.Func, x *fuse.Expr) (elem *fuse.Expr, when bool) {
	sc, y := scratchCompare(x)
	if sc == nil || y.Op != fuse.OpConst {
		return nil, false
	}
	staleValue := (f.Scratch[sc.Imm].Init == y.Imm) == (x.Op == fuse.OpEq)
	return sc, !staleValue
}

// lowBitOf recognises the lowest-bit idioms x & (x - 1), x ^ (x - 1) and
// x & -x, in either order and with x - 1 also written x + (2^64 - 1): it
// returns the instruction and x, or nil.
func lowBitOf(e *fuse.Expr) (lowBitOp, *fuse.Expr) {
	if e.Op != fuse.OpAnd && e.Op != fuse.OpXor || e.Check >= 0 {
		return 0, nil
	}
	minusOne := func(m, x *fuse.Expr) bool {
		if m.Check >= 0 || len(m.Args) != 2 || m.Args[1].Op != fuse.OpConst || !sameExpr(m.Args[0], x) {
			return false
		}
		return m.Op == fuse.OpSub && m.Args[1].Imm == 1 || m.Op == fuse.OpAdd && m.Args[1].Imm == ^uint64(0)
	}
	for i, xm := range [][2]*fuse.Expr{{e.Args[0], e.Args[1]}, {e.Args[1], e.Args[0]}} {
		x, m := xm[0], xm[1]
		var op lowBitOp
		switch {
		case minusOne(m, x) && e.Op == fuse.OpAnd:
			op = blsr
		case minusOne(m, x):
			op = blsmsk
		case e.Op == fuse.OpAnd && m.Op == fuse.OpNeg && m.Check < 0 && sameExpr(m.Args[0], x):
			op = blsi
		default:
			continue
		}
		if i == 1 {
			// The copy of x inside m is evaluated first: where x holds
			// checks (a table read), its checks are the ones that fail.
			x = m.Args[0]
		}
		return op, x
	}
	return 0, nil
}

// sameExpr reports whether x and y are the same expression, with the
// same checks: under fuse.Func.Exact, the copy of x in x - 1 or -x of a
// lowest-bit idiom is modular, without the checks of the exact copy (an
// x of 2^64 or more must fail, not give its low word's answer).
func sameExpr(x, y *fuse.Expr) bool {
	if x.Op != y.Op || x.Imm != y.Imm || x.Check != y.Check || len(x.Args) != len(y.Args) {
		return false
	}
	for i := range x.Args {
		if !sameExpr(x.Args[i], y.Args[i]) {
			return false
		}
	}
	return true
}

// branchScratch emits the comparison x (== or !=) of a scratch element with
// y as branches on the element's epoch, as one writes it in C: where the
// epoch is not the array's, the element is its Init, so the comparison is
// Init's with y (known when y is a constant); else it is the value's. Where
// the element is fresh (the same as fresh), it compares the value alone.
// A stale element goes on in line; a fresh one is compared out of line
// when y is a constant. It reports false, emitting nothing, where x is not
// such a comparison.
func (g *amd64Gen) branchScratch(x *fuse.Expr, l int, when bool, fresh *fuse.Expr) bool {
	sc, y := scratchCompare(x)
	if sc == nil {
		return false
	}
	a := g.a
	arr := int(sc.Imm)
	init := g.f.Scratch[arr].Init
	i, owned := g.indexOperand(sc.Args[0], uint64(g.f.Scratch[arr].Len), sc.Check)
	constY := y.Op == fuse.OpConst && int64(y.Imm) == int64(int32(y.Imm))
	var yr reg
	if !constY {
		var held []reg
		if owned {
			held = []reg{i}
		}
		yr = g.evalWith(y, held)
		if owned {
			i = held[0]
		}
	}
	base, vals, epochs, tmp := g.scratchAt(arr)
	// jump to l when (element == y) == eq
	eq := (x.Op == fuse.OpEq) == when
	hit := ccNE
	if eq {
		hit = ccE
	}
	if g.isDense(arr) || g.steady[arr] || fresh != nil && sameExpr(fresh, sc) {
		if constY {
			a.aluI(aluCmp, M(indexed(base, i, 8, vals)), int32(y.Imm))
		} else {
			a.alu(aluCmp, yr, M(indexed(base, i, 8, vals)))
		}
		a.jcc(hit, l)
		if tmp {
			g.release(base)
		}
		if owned {
			g.release(i)
		}
		if !constY {
			g.release(yr)
		}
		return true
	}
	stale, done := a.newLabel(), a.newLabel()
	e := g.slotRM(g.sEpoch[arr])
	if e.isMem {
		a.load(rAX, e.m)
		e = R(rAX)
	}
	a.alu(aluCmp, e.r, M(indexed(base, i, 8, epochs)))
	switch {
	case constY && (init == y.Imm) == eq:
		// A stale element is Init: jump.
		a.jcc(ccNE, l)
		a.aluI(aluCmp, M(indexed(base, i, 8, vals)), int32(y.Imm))
		a.jcc(hit, l)
	case constY:
		// A stale element is Init: go on; compare a fresh one out of line.
		ool := a.newLabel()
		a.jcc(ccE, ool)
		v, k := indexed(base, i, 8, vals), int32(y.Imm)
		g.later = append(g.later, func() {
			a.bind(ool)
			a.aluI(aluCmp, M(v), k)
			a.jcc(hit, l)
			a.jmp(done)
		})
	default:
		a.jcc(ccNE, stale)
		a.alu(aluCmp, yr, M(indexed(base, i, 8, vals)))
		a.jcc(hit, l)
		a.jmp(done)
		a.bind(stale)
		a.movRI(rDX, init)
		a.alu(aluCmp, yr, R(rDX))
		a.jcc(hit, l)
	}
	a.bind(done)
	if tmp {
		g.release(base)
	}
	if owned {
		g.release(i)
	}
	if !constY {
		g.release(yr)
	}
	return true
}

// expr evaluates x into a register of the pool, which the caller owns.
func (g *amd64Gen) expr(x *fuse.Expr) reg {
	a := g.a
	if op, y := lowBitOf(x); y != nil {
		if v, ok := g.varReg(y); ok {
			d := g.alloc()
			a.lowBit(op, d, v)
			return d
		}
		d := g.expr(y)
		a.lowBit(op, d, d)
		return d
	}
	switch x.Op {
	case fuse.OpConst:
		r := g.alloc()
		a.movRI(r, x.Imm)
		return r
	case fuse.OpVar:
		r := g.alloc()
		g.getSlot(r, int(x.Imm))
		return r
	case fuse.OpCall:
		return g.call(x)
	case fuse.OpDepth:
		return g.depth()
	case fuse.OpResult:
		r := g.alloc()
		g.a.load(r, at(rDI, g.ctl+ctlOps)) // (operand 0: where Go wrote the call's result)
		return r
	case fuse.OpLoad:
		t := int(x.Imm)
		i, owned := g.indexOperand(x.Args[0], uint64(len(g.f.Tables[t].Rows[0])), x.Check)
		d := i
		if !owned {
			d = g.alloc()
		}
		a.load(d, indexed(rDI, i, 8, int32(g.l.tables[t])))
		return d
	case fuse.OpLoad2, fuse.OpRowLen:
		if r, ok := g.loadFromRowBase(x); ok {
			return r
		}
		t := int(x.Imm)
		off := int32(g.l.tables[t])
		i := g.index(x.Args[0], uint64(len(g.f.Tables[t].Rows)), x.Check)
		g.rowChecked(x, len(g.f.Tables[t].Rows))
		if x.Op == fuse.OpRowLen {
			a.load32(i, indexed(rDI, i, 8, off+4))
			return i
		}
		held := []reg{i}
		j := g.evalWith(x.Args[1], held)
		i = held[0]
		// An element index known to be below every row's length needs no
		// check; one known not to be negative, only the length's.
		rows := g.f.Tables[t].Rows
		shortest := uint64(len(rows[0]))
		for _, r := range rows {
			shortest = min(shortest, uint64(len(r)))
		}
		switch b := g.bound(x.Args[1]); {
		case b != 0 && b <= shortest:
		case g.colBelowRow(x):
		case b != 0 && b <= 1<<63:
			a.load32(rDX, indexed(rDI, i, 8, off+4))
			a.alu(aluCmp, j, R(rDX))
			g.failIf(ccAE, x.Check, j, true)
		default:
			a.load32(rDX, indexed(rDI, i, 8, off+4))
			g.resolve(j, true, 0, x.Check)
		}
		a.load32(i, indexed(rDI, i, 8, off))
		a.alu(aluAdd, i, R(rDI))
		a.load(i, indexed(i, j, 8, 0))
		g.release(j)
		return i
	case fuse.OpScratch:
		if d, ok := g.scratchConst(x); ok {
			return d
		}
		arr := int(x.Imm)
		i, owned := g.indexOperand(x.Args[0], uint64(g.f.Scratch[arr].Len), x.Check)
		base, vals, epochs, tmp := g.scratchAt(arr)
		// A steady array (amd64_steady.go) and a dense one
		// (amd64_dense.go) are read without their epochs.
		steady := g.steady[arr] || g.isDense(arr)
		if !steady {
			a.movRI(rDX, g.f.Scratch[arr].Init)
			a.load(rAX, indexed(base, i, 8, epochs))
		}
		d := i
		if !owned {
			d = g.alloc()
		}
		a.load(d, indexed(base, i, 8, vals))
		if tmp {
			g.release(base)
		}
		if !steady {
			a.alu(aluCmp, rAX, g.slotRM(g.sEpoch[arr]))
			a.cmov(ccNE, d, rDX)
		}
		return d
	case fuse.OpAndThen, fuse.OpOrElse:
		r := g.expr(x.Args[0])
		end := a.newLabel()
		a.test(r, r)
		if x.Op == fuse.OpAndThen {
			a.jcc(ccE, end)
		} else {
			a.jcc(ccNE, end)
		}
		g.release(r)
		v := g.expr(x.Args[1])
		a.movRR(r, v)
		g.release(v)
		g.take(r)
		a.bind(end)
		return r
	case fuse.OpCond:
		els, end := a.newLabel(), a.newLabel()
		g.branch(x.Args[0], els, false)
		free := g.free
		r := g.expr(x.Args[1])
		a.jmp(end)
		a.bind(els)
		g.free = free
		v := g.expr(x.Args[2])
		a.movRR(r, v)
		g.release(v)
		g.take(r)
		a.bind(end)
		return r
	}
	if x.Check >= 0 && g.f.Checks[x.Check].Kind == fuse.CheckFits {
		// A width check on a value known to fit cannot fail: the op as
		// one without it.
		if w, b := g.f.Checks[x.Check].Imm, g.bound(x.Args[0]); w >= 64 || b != 0 && b <= 1<<w {
			y := *x
			y.Check = -1
			return g.expr(&y)
		}
	}
	if x.Check >= 0 && g.cannotFail(x) {
		// An exact op whose operands' bounds leave no room to overflow:
		// the op as one without its check.
		y := *x
		y.Check = -1
		return g.expr(&y)
	}
	if d, ok := g.addConstExact(x); ok {
		return d
	}
	if x.Op == fuse.OpAnd && x.Check < 0 && x.Args[1].Op == fuse.OpConst {
		// A mask of low bits that every value of the other operand fits
		// in changes nothing.
		if m, b := x.Args[1].Imm, g.bound(x.Args[0]); m == ^uint64(0) || m&(m+1) == 0 && b != 0 && b-1 <= m {
			return g.expr(x.Args[0])
		}
	}
	if _, ok := aluOps[x.Op]; ok && x.Check >= 0 && x.Args[0].Op == fuse.OpVar && g.f.Checks[x.Check].Kind == fuse.CheckFits {
		// The width check on the variable alone, then the op as if it had
		// none (an and with a constant stays one instruction).
		g.checkFitsVar(x)
		y := *x
		y.Check = -1
		return g.expr(&y)
	}
	if op, ok := aluOps[x.Op]; ok && x.Check < 0 {
		return g.binary(x, func(d reg, o rm) { a.alu(op, d, o) }, func(d reg, k int32) { a.aluI(op, R(d), k) })
	}
	if x.Op == fuse.OpMul && x.Check < 0 {
		return g.binary(x, func(d reg, o rm) { a.imul(d, o) }, func(d reg, k int32) { g.mulI(d, k) })
	}
	if c, ok := cmpConds[x.Op]; ok && x.Check < 0 {
		d := g.binary(x, func(d reg, o rm) { a.alu(aluCmp, d, o) }, func(d reg, k int32) { a.aluI(aluCmp, R(d), k) })
		a.setcc(c, d)
		return d
	}
	if (x.Op == fuse.OpShl || x.Op == fuse.OpShr || x.Op == fuse.OpRotl || x.Op == fuse.OpRotr) &&
		x.Args[1].Op == fuse.OpConst && x.Check < 0 && (x.Imm == 0 || x.Imm == 64 || x.Op == fuse.OpShl || x.Op == fuse.OpShr) {
		d := g.expr(x.Args[0])
		k := x.Args[1].Imm
		switch x.Op {
		case fuse.OpShl, fuse.OpShr:
			if k >= 64 {
				a.movRI(d, 0)
			} else if k > 0 {
				op := shShl
				if x.Op == fuse.OpShr {
					op = shShr
				}
				a.shiftI(op, d, uint8(k))
			}
		case fuse.OpRotl, fuse.OpRotr:
			if k &= 63; k != 0 {
				op := shRol
				if x.Op == fuse.OpRotr {
					op = shRor
				}
				a.shiftI(op, d, uint8(k))
			}
		}
		return d
	}
	if d, ok := g.shiftByVar(x); ok { // (amd64_pow2.go)
		return d
	}
	if v, ok := g.varReg(x.Args[0]); ok && (x.Op == fuse.OpPopcount || x.Op == fuse.OpBsf) {
		// popcount(v), bsf(v): from the variable's register (after bsf's
		// check) into a new one.
		if x.Check >= 0 && !g.nonzero[int(x.Args[0].Imm)] {
			a.test(v, v)
			g.failIf(ccE, x.Check, 0, false)
		}
		d := g.alloc()
		if x.Op == fuse.OpPopcount {
			a.popcnt(d, v)
		} else {
			a.tzcnt(d, v)
		}
		return d
	}
	rs := g.operands(x)
	d := rs[0]
	for _, r := range rs[1:] {
		defer g.release(r)
	}
	switch x.Op {
	case fuse.OpAdd, fuse.OpSub, fuse.OpAnd, fuse.OpOr, fuse.OpXor:
		a.alu(aluOps[x.Op], d, R(rs[1]))
	case fuse.OpMul:
		a.imul(d, R(rs[1]))
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe:
		a.alu(aluCmp, d, R(rs[1]))
		a.setcc(cmpConds[x.Op], d)
	case fuse.OpDiv, fuse.OpMod:
		zero, end := a.newLabel(), a.newLabel()
		// Where the op's check (run by operands) or a condition showed the
		// divisor not 0, no test for it.
		shown := x.Check >= 0 && g.f.Checks[x.Check].Kind == fuse.CheckNonZero ||
			x.Args[1].Op == fuse.OpVar && g.nonzero[int(x.Args[1].Imm)]
		if !shown {
			a.test(rs[1], rs[1])
			a.jcc(ccE, zero)
		}
		if g.pow2Divisor(x) {
			g.divPow2(x.Op, d, rs[1])
			a.jmp(end)
			a.bind(zero)
			a.movRI(d, 0)
			a.bind(end)
			break
		}
		a.movRR(rAX, d)
		a.movRI(rDX, 0)
		a.div(rs[1])
		if x.Op == fuse.OpDiv {
			a.movRR(d, rAX)
		} else {
			a.movRR(d, rDX)
		}
		a.jmp(end)
		a.bind(zero)
		a.movRI(d, 0)
		a.bind(end)
	case fuse.OpShl, fuse.OpShr:
		if x.Op == fuse.OpShl {
			a.shlx(d, d, rs[1])
		} else {
			a.shrx(d, d, rs[1])
		}
		if b := g.bound(x.Args[1]); b == 0 || b > 64 {
			// A shift by 64 or more gives 0.
			a.movRI(rAX, 0)
			a.aluI(aluCmp, R(rs[1]), 64)
			a.cmov(ccAE, d, rAX)
		}
	case fuse.OpNot:
		a.not(d)
	case fuse.OpNeg:
		a.neg(d)
	case fuse.OpLNot:
		a.test(d, d)
		a.setcc(ccE, d)
	case fuse.OpBool:
		a.test(d, d)
		a.setcc(ccNE, d)
	case fuse.OpPopcount:
		a.popcnt(d, d)
	case fuse.OpParity:
		a.popcnt(d, d)
		a.aluI(aluAnd, R(d), 1)
	case fuse.OpBsf:
		a.tzcnt(d, d)
	case fuse.OpBsr:
		// 63 - lzcnt(d), which is -1 for 0: bsr, with -1 where it finds
		// no bit.
		a.movRI(rAX, ^uint64(0))
		a.enc(0, true, []byte{0x0f, 0xbd}, d, R(d), false) // bsr d, d
		a.cmov(ccE, d, rAX)
	case fuse.OpLsb:
		a.movRR(rAX, d)
		a.neg(rAX)
		a.alu(aluAnd, d, R(rAX))
	case fuse.OpGray:
		a.movRR(rAX, d)
		a.shiftI(shShr, rAX, 1)
		a.alu(aluXor, d, R(rAX))
	case fuse.OpGrayInv:
		for _, k := range []uint8{1, 2, 4, 8, 16, 32} {
			a.movRR(rAX, d)
			a.shiftI(shShr, rAX, k)
			a.alu(aluXor, d, R(rAX))
		}
	case fuse.OpRotl, fuse.OpRotr:
		g.rotate(x, d, rs[1])
	case fuse.OpReverse, fuse.OpSwapBytes:
		w := x.Imm
		if w == 0 {
			w = 64
		}
		if x.Op == fuse.OpReverse {
			for _, st := range []struct {
				k uint8
				m uint64
			}{{1, 0x5555555555555555}, {2, 0x3333333333333333}, {4, 0x0f0f0f0f0f0f0f0f}} {
				a.movRR(rAX, d)
				a.shiftI(shShr, rAX, st.k)
				a.movRI(rDX, st.m)
				a.alu(aluAnd, rAX, R(rDX))
				a.alu(aluAnd, d, R(rDX))
				a.shiftI(shShl, d, st.k)
				a.alu(aluOr, d, R(rAX))
			}
		}
		a.bswap(d)
		if w < 64 {
			a.shiftI(shShr, d, uint8(64-w))
		}
	case fuse.OpPdep:
		a.pdep(d, d, rs[1])
	case fuse.OpPext:
		a.pext(d, d, rs[1])
	case fuse.OpDeltaSwap:
		m, k := rs[1], rs[2]
		a.shrx(rAX, d, k)
		a.alu(aluXor, rAX, R(d))
		a.alu(aluAnd, rAX, R(m))
		a.alu(aluXor, d, R(rAX))
		a.shlx(rAX, rAX, k)
		a.alu(aluXor, d, R(rAX))
	case fuse.OpMin, fuse.OpMax:
		a.alu(aluCmp, d, R(rs[1]))
		if x.Op == fuse.OpMin {
			a.cmov(ccA, d, rs[1])
		} else {
			a.cmov(ccB, d, rs[1])
		}
	case fuse.OpAbs:
		a.movRR(rAX, d)
		a.neg(rAX)
		a.cmov(ccNS, d, rAX)
	case fuse.OpMulHi:
		// MUL: RDX:RAX = RAX * rs[1]; the high word is RDX.
		a.movRR(rAX, d)
		a.mul(rs[1])
		a.movRR(d, rDX)
	case fuse.OpSelect:
		// rs[0] != 0 ? rs[1] : rs[2], into rs[1]; rs[0] is given back
		// and rs[1] kept instead.
		a.test(d, d)
		a.cmov(ccE, rs[1], rs[2])
		a.movRR(d, rs[1])
	default:
		panic(fmt.Sprintf("amd64: op %v", x.Op))
	}
	return d
}

// rotate rotates d by the count in k within x.Imm bits (0: 64).
func (g *amd64Gen) rotate(x *fuse.Expr, d, k reg) {
	a := g.a
	w := x.Imm
	if w == 0 {
		w = 64
	}
	if w == 64 {
		a.movRR(rAX, k)
		a.neg(rAX)
		if x.Op == fuse.OpRotl {
			a.shrx(rDX, d, rAX)
			a.shlx(d, d, k)
		} else {
			a.shlx(rDX, d, rAX)
			a.shrx(d, d, k)
		}
		a.alu(aluOr, d, R(rDX))
		return
	}
	// k = (rotl ? k : -k) mod w; d &= m; (d<<k | d>>(w-k)) & m.
	if x.Op == fuse.OpRotr {
		a.neg(k)
	}
	a.aluI(aluAnd, R(k), int32(w-1))
	mask := uint64(1)<<w - 1
	a.movRI(rAX, mask)
	a.alu(aluAnd, d, R(rAX))
	a.shlx(rDX, d, k)
	a.movRI(rAX, w)
	a.alu(aluSub, rAX, R(k))
	a.shrx(d, d, rAX)
	a.alu(aluOr, d, R(rDX))
	a.movRI(rAX, mask)
	a.alu(aluAnd, d, R(rAX))
}

// supported reports whether the amd64 engine compiles f: every op of f is
// one it knows.
func amd64Supports(f *fuse.Func) error {
	if err := procsSupported(f); err != nil {
		return err
	}
	var bad error
	f.EachExpr(func(x *fuse.Expr) {
		if bad == nil && (x.Op == fuse.OpParam || x.Op >= fuse.OpGrayInv+1 && x.Op < fuse.OpVar || x.Op > fuse.OpResult) {
			bad = fmt.Errorf("amd64: op %v", x.Op)
		}
	})
	return bad
}
