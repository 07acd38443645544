package native

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// The module's functions: the imported poll, then run and its helpers.
const (
	fnPoll = iota
	fnRun
	fnPdep
	fnPext
	fnRev64
	fnBswap64
	fnSnoob
	fnLowest
	fnRangeLen
	numFuncs
)

// The statuses run leaves at address 0.
const (
	statusOK      = 0
	statusFailed  = 1 // check at 4, value at 8
	statusStopped = 2
)

// layout says where things are in a module's memory.
type layout struct {
	epochs  uint32   // the epoch of each scratch array
	params  uint32   // Params blocks of Block words
	out     uint32   // a block of results
	tables  []uint32 // each table: its words (flat) or its row headers
	rows    [][]uint32
	scratch []uint32 // each scratch array: value, epoch pairs
	size    uint32   // bytes in all

	// The frames of the Procs with scratch arrays of their own (0 for the
	// others): each Proc's frame at its own depth, at frames[p] +
	// depth*frameBytes[p], and the word counting its frames in use.
	frames, frameBytes, levels []uint32
}

func align(x, a uint32) uint32 { return (x + a - 1) / a * a }

func newLayout(f *fuse.Func) (*layout, error) {
	l := &layout{epochs: 16}
	at := uint64(align(16+8*uint32(len(f.Scratch)), 64))
	l.params = uint32(at)
	at += uint64(f.Params) * Batch * 8
	l.out = uint32(at)
	at += Batch * 8
	for _, t := range f.Tables {
		at = (at + 63) / 64 * 64
		l.tables = append(l.tables, uint32(at))
		var rows []uint32
		if !t.Flat {
			at += 8 * uint64(len(t.Rows))
			for _, r := range t.Rows {
				rows = append(rows, uint32(at))
				at += 8 * uint64(len(r))
			}
		} else {
			at += 8 * uint64(len(t.Rows[0]))
		}
		l.rows = append(l.rows, rows)
		if at > 1<<31 {
			return nil, fmt.Errorf("the tables take more than 2 GiB")
		}
	}
	for _, s := range f.Scratch {
		at = (at + 63) / 64 * 64
		l.scratch = append(l.scratch, uint32(at))
		at += 16 * uint64(s.Len)
	}
	if at > 3<<30 {
		return nil, fmt.Errorf("the tables and scratch arrays take more than 3 GiB")
	}
	l.size = uint32(at)
	return l, nil
}

// Locals of run: the parameters n and mode, then i32 and i64 locals.
const (
	lN = iota
	lMode
	lIt
	lFuel
	lStatus
	lCheck
	numI32Locals = lCheck - lIt + 1
	lValue       = lCheck + 1 // the first i64 local
	lRes         = lValue + 1
	lVars        = lRes + 1
)

// ctl is an open structured construct: the label of a Func loop or block
// that a branch may target (-1 for none) and what a branch to it does.
type ctl struct {
	label int
	kind  byte // 'b' break, 'c' continue, 'r' return, 'x' exit, 0 other
}

type emitter struct {
	used  [numFuncs]bool // the helper functions run calls
	f     *fuse.Func
	l     *layout
	c     code
	ctl   []ctl
	nI64  int // i64 locals so far, from i64s
	epoch []int

	// The function emitted: run (proc < 0) or the function of Procs[proc].
	proc    int
	scratch []fuse.Scratch // its scratch arrays
	// Each scratch array's elements lie at base + 16*index + off, base
	// the i32 local base[a] (-1: none, off is the address).
	base []int
	off  []uint32
	// Its locals: the fuel left before the next poll, a failure's status,
	// check and value, the result, the first i64 local, the first variable
	// that is not a parameter, the depth of calls (a Proc's), the frame of
	// its own scratch arrays and its level.
	lFuel, lStatus, lCheck, lValue, lRes, i64s, params, lVars int
	lDepth, lFrame, lLevel                                    int
	frameEp                                                   []uint32 // the offsets of its own arrays' epochs in its frame
	// subst, where not nil, holds the locals of the variables of a Proc
	// whose guards are emitted where it is called.
	subst []int
}

// call calls helper function f of the module.
func (e *emitter) call(f int) {
	e.used[f] = true
	e.c.call(f)
}

func (e *emitter) temp() int {
	e.nI64++
	return e.i64s + e.nI64 - 1
}

// varLocal returns the local of variable v.
func (e *emitter) varLocal(v int) int {
	if e.subst != nil {
		return e.subst[v]
	}
	if v < e.params {
		return v
	}
	return e.lVars + v - e.params
}

func (e *emitter) open(op byte, bt byte, label int, kind byte) {
	e.c.byte(op, bt)
	e.ctl = append(e.ctl, ctl{label, kind})
}

func (e *emitter) end() {
	e.c.byte(opEnd)
	e.ctl = e.ctl[:len(e.ctl)-1]
}

// depth returns the branch depth of the innermost construct of kind (and
// label, unless label < 0).
func (e *emitter) depth(label int, kind byte) uint32 {
	for i := len(e.ctl) - 1; i >= 0; i-- {
		if e.ctl[i].kind == kind && (label < 0 || e.ctl[i].label == label) {
			return uint32(len(e.ctl) - 1 - i)
		}
	}
	panic(fmt.Sprintf("native: no construct %c of label %d", kind, label))
}

func (e *emitter) br(op byte, label int, kind byte) {
	e.c.byte(op)
	e.c.u32(e.depth(label, kind))
}

// fail leaves the function (run, or a Proc's) with check failed on the
// value in local v (-1: 0).
func (e *emitter) fail(check int, v int) {
	e.c.i32(statusFailed)
	e.c.set(e.lStatus)
	e.c.i32(int32(check))
	e.c.set(e.lCheck)
	if v >= 0 {
		e.c.get(v)
	} else {
		e.c.i64(0)
	}
	e.c.set(e.lValue)
	e.br(opBr, -1, 'x')
}

// Module returns the WebAssembly module computing f, and its layout.
func Module(f *fuse.Func) ([]byte, *layout, error) {
	if f.Arrays > 0 {
		return nil, nil, fmt.Errorf("wasm: array parameters of the function (the x86-64 code and the evaluator take them)")
	}
	if len(f.Callouts) > 0 {
		return nil, nil, fmt.Errorf("wasm: callouts (a print: the x86-64 code and the evaluator make them)")
	}
	l, err := newLayout(f)
	if err != nil {
		return nil, nil, err
	}
	if err := l.addFrames(f); err != nil {
		return nil, nil, err
	}
	if err := procsSupported(f); err != nil {
		return nil, nil, err
	}
	if err := wasmOpsSupported(f); err != nil {
		return nil, nil, err
	}
	e := &emitter{f: f, l: l, proc: -1, scratch: f.Scratch,
		lFuel: lFuel, lStatus: lStatus, lCheck: lCheck, lValue: lValue, lRes: lRes, i64s: lValue, lVars: lVars}
	e.nI64 = 2 + f.Vars // value, res, the variables
	for i := range f.Scratch {
		e.epoch = append(e.epoch, e.temp())
		e.base = append(e.base, -1)
		e.off = append(e.off, l.scratch[i])
	}
	e.run()
	body := funcBody(e.c.b, numI32Locals, tI32, e.nI64, tI64)
	used := e.used
	var procBodies [][]byte
	for i := range f.Procs {
		pe := &emitter{f: f, l: l}
		procBodies = append(procBodies, pe.procFunc(i))
		for j, u := range pe.used {
			used[j] = used[j] || u
		}
	}

	mod := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	i64, i32 := byte(tI64), byte(tI32)
	types := [][]byte{
		funcType(nil, []byte{i32}),                   // 0: poll
		funcType([]byte{i32, i32}, []byte{i32}),      // 1: run
		funcType([]byte{i64, i64}, []byte{i64}),      // 2
		funcType([]byte{i64}, []byte{i64}),           // 3
		funcType([]byte{i64, i64, i64}, []byte{i64}), // 4
	}
	ftypes := [][]byte{{1}, {2}, {2}, {3}, {3}, {2}, {2}, {4}}
	for i := range f.Procs {
		types = append(types, procType(&f.Procs[i]))
		var t code
		t.u32(uint32(len(types) - 1))
		ftypes = append(ftypes, t.b)
	}
	mod = section(mod, 1, vec(types...))
	imp := append(append(str("env"), str("poll")...), 0x00, 0x00)
	mod = section(mod, 2, vec(imp))
	mod = section(mod, 3, vec(ftypes...))
	pages := (uint64(l.size) + 65535) / 65536
	var m code
	m.byte(0x01)
	m.u32(uint32(pages))
	m.u32(uint32(pages))
	mod = section(mod, 5, vec(m.b))
	exp := append(str("run"), 0x00, fnRun)
	expMem := append(str("memory"), 0x02, 0x00)
	mod = section(mod, 7, vec(exp, expMem))
	bodies := [][]byte{body, pdepBody(false), pdepBody(true), rev64Body(), bswap64Body(), snoobBody(), lowestBody(), rangeLenBody()}
	// A helper that no function calls compiles as unreachable: less for
	// wazero to compile.
	for i := fnPdep; i < numFuncs; i++ {
		if !used[i] {
			bodies[i-fnRun] = funcBody([]byte{opUnreachable})
		}
	}
	bodies = append(bodies, procBodies...)
	mod = section(mod, 10, vec(bodies...))
	return mod, l, nil
}

// run emits the function that runs f on the items of the parameter blocks:
// run(n, mode) computes items 0 .. n-1 into the out block and returns how
// many it computed; with mode 1 it stops after the first non-zero result.
// It leaves the status at address 0.
func (e *emitter) run() {
	c := &e.c
	for i := range e.f.Procs {
		if e.l.frameBytes[i] > 0 {
			c.i32(0)
			c.i32(0)
			c.mem(opI32Store, e.l.levels[i])
		}
	}
	for i, ep := range e.epoch {
		c.i32(0)
		c.mem(opI64Load, e.l.epochs+8*uint32(i))
		c.set(ep)
	}
	c.i32(fuse.PollEvery)
	c.set(lFuel)
	e.open(opBlock, tVoid, -1, 'x')
	e.open(opBlock, tVoid, -1, 0)
	e.open(opLoop, tVoid, -1, 'i')
	c.get(lIt)
	c.get(lN)
	c.byte(opI32GeU)
	c.byte(opBrIf)
	c.u32(1)
	for p := 0; p < e.f.Params; p++ {
		c.get(lIt)
		c.i32(3)
		c.byte(opI32Shl)
		c.mem(opI64Load, e.l.params+uint32(p)*Batch*8)
		c.set(lVars + p)
	}
	for _, ep := range e.epoch {
		c.get(ep)
		c.i64(1)
		c.byte(opI64Add)
		c.set(ep)
	}
	e.open(opBlock, tVoid, -1, 'r')
	e.stmts(e.f.Body)
	e.end()
	// out[it] = res
	c.get(lIt)
	c.i32(3)
	c.byte(opI32Shl)
	c.get(lRes)
	c.mem(opI64Store, e.l.out)
	c.get(lIt)
	c.i32(1)
	c.byte(opI32Add)
	c.set(lIt)
	// mode 1 and a hit: stop here.
	c.get(lMode)
	c.get(lRes)
	c.i64(0)
	c.byte(opI64Ne)
	c.byte(opI32And)
	c.byte(opBrIf)
	c.u32(e.depth(-1, 'i') + 1)
	c.byte(opBr)
	c.u32(e.depth(-1, 'i'))
	e.end() // loop
	e.end() // block: done
	e.saveEpochs()
	c.i32(0)
	c.i32(statusOK)
	c.mem(opI32Store, 0)
	c.get(lIt)
	c.byte(opReturn)
	e.end() // exit
	e.saveEpochs()
	c.i32(0)
	c.get(lStatus)
	c.mem(opI32Store, 0)
	c.i32(0)
	c.get(lCheck)
	c.mem(opI32Store, 4)
	c.i32(0)
	c.get(lValue)
	c.mem(opI64Store, 8)
	c.get(lIt)
}

func (e *emitter) saveEpochs() {
	for i, ep := range e.epoch {
		e.c.i32(0)
		e.c.get(ep)
		e.c.mem(opI64Store, e.l.epochs+8*uint32(i))
	}
}

func (e *emitter) stmts(ss []fuse.Stmt) {
	for i := range ss {
		e.stmt(&ss[i])
	}
}

// loop emits the frame of a loop s:
//
//	block (break) { loop (outer) { loop (inner) { pre; block (continue) {
//	  body }; post; fuel--; br_if inner (fuel != 0) }; poll; br outer } }
//
// pre and post leave the loop with a branch to the break block (e.brk) when
// it is done. The hot inner loop makes no call: every fuse.PollEvery
// iterations it falls out to the outer loop, which calls poll (to stop, and
// to let the Go runtime reach the goroutine) and goes round again.
func (e *emitter) loop(s *fuse.Stmt, pre func(), post func()) {
	c := &e.c
	e.open(opBlock, tVoid, s.Label, 'b')
	e.open(opLoop, tVoid, -1, 0)
	e.open(opLoop, tVoid, s.Label, 'l')
	pre()
	e.open(opBlock, tVoid, s.Label, 'c')
	e.stmts(s.Body)
	e.end()
	post()
	c.get(e.lFuel)
	c.i32(1)
	c.byte(opI32Sub)
	c.tee(e.lFuel)
	e.br(opBrIf, s.Label, 'l')
	e.end() // inner
	c.i32(fuse.PollEvery)
	c.set(e.lFuel)
	c.call(fnPoll)
	e.open(opIf, tVoid, -1, 0)
	c.i32(statusStopped)
	c.set(e.lStatus)
	e.br(opBr, -1, 'x')
	e.end()
	c.byte(opBr)
	c.u32(0) // outer
	e.end()  // outer
	e.end()  // break
}

// brk leaves the loop s when the i32 on the stack is non-zero.
func (e *emitter) brk(s *fuse.Stmt) { e.br(opBrIf, s.Label, 'b') }

func nothing() {}

func (e *emitter) stmt(s *fuse.Stmt) {
	c := &e.c
	switch s.Kind {
	case fuse.SAssign:
		e.expr(s.X)
		c.set(e.varLocal(s.Var))
	case fuse.SStore:
		i := e.scratchIndex(s.Arr, s.X, s.Check)
		v := e.temp()
		e.expr(s.Y)
		c.set(v)
		for _, half := range []struct {
			val int
			off uint32
		}{{v, 0}, {e.epoch[s.Arr], 8}} {
			c.get(i)
			c.byte(opI32WrapI64)
			c.i32(4)
			c.byte(opI32Shl)
			if b := e.base[s.Arr]; b >= 0 {
				c.get(b)
				c.byte(opI32Add)
			}
			c.get(half.val)
			c.mem(opI64Store, e.off[s.Arr]+half.off)
		}
	case fuse.SFresh:
		c.get(e.epoch[s.Arr])
		c.i64(1)
		c.byte(opI64Add)
		c.set(e.epoch[s.Arr])
		if e.proc >= 0 {
			// A Proc's own array: its epoch at this depth is kept in
			// the frame, to grow on at the next call at this depth.
			c.get(e.lFrame)
			c.get(e.epoch[s.Arr])
			c.mem(opI64Store, e.frameEpoch(s.Arr))
		}
	case fuse.SIf:
		e.cond(s.X)
		e.open(opIf, tVoid, -1, 0)
		e.stmts(s.Body)
		if len(s.Else) > 0 {
			c.byte(opElse)
			e.stmts(s.Else)
		}
		e.end()
	case fuse.SWhile:
		e.loop(s, func() {
			e.cond(s.X)
			c.byte(opI32Eqz)
			e.brk(s)
		}, nothing)
	case fuse.SForRange:
		cur, cnt, step := e.temp(), e.temp(), e.temp()
		e.expr(s.X)
		c.tee(cur)
		e.expr(s.Y)
		e.expr(s.Z)
		c.tee(step)
		c.byte(opI64Eqz)
		e.open(opIf, tVoid, -1, 0)
		e.fail(s.Check, -1)
		e.end()
		c.get(step)
		e.call(fnRangeLen)
		c.set(cnt)
		e.loop(s, func() {
			c.get(cnt)
			c.byte(opI64Eqz)
			e.brk(s)
			c.get(cur)
			c.set(e.varLocal(s.Var))
			c.get(cur)
			c.get(step)
			c.byte(opI64Add)
			c.set(cur)
			c.get(cnt)
			c.i64(1)
			c.byte(opI64Sub)
			c.set(cnt)
		}, nothing)
	case fuse.SForSubsets:
		m, cur := e.temp(), e.temp()
		e.expr(s.X)
		c.set(m)
		if s.Y == nil {
			c.i64(0)
			c.set(cur)
			e.loop(s, func() {
				c.get(cur)
				c.set(e.varLocal(s.Var))
				c.get(cur)
				c.get(m)
				c.byte(opI64Sub)
				c.get(m)
				c.byte(opI64And)
				c.set(cur)
			}, func() {
				c.get(cur)
				c.byte(opI64Eqz)
				e.brk(s)
			})
			return
		}
		k := e.temp()
		e.expr(s.Y)
		c.tee(k)
		// k > popcount(m): no subsets; k == 0: the empty one; else from
		// the lowest k bits, by snoob (0 after the last).
		c.get(m)
		c.byte(opI64Popcnt)
		c.byte(opI64GtU)
		c.byte(opI32Eqz)
		e.open(opIf, tVoid, -1, 0)
		c.get(k)
		c.byte(opI64Eqz)
		e.open(opIf, tVoid, -1, 0)
		c.i64(0)
		c.set(cur)
		c.byte(opElse)
		c.get(m)
		c.get(k)
		e.call(fnLowest)
		c.set(cur)
		e.end()
		e.loop(s, func() {
			c.get(cur)
			c.set(e.varLocal(s.Var))
			c.get(k)
			c.byte(opI64Eqz)
			e.open(opIf, tI64, -1, 0)
			c.i64(0)
			c.byte(opElse)
			c.get(cur)
			c.get(m)
			e.call(fnSnoob)
			e.end()
			c.set(cur)
		}, func() {
			c.get(cur)
			c.byte(opI64Eqz)
			e.brk(s)
		})
		e.end()
	case fuse.SForBits:
		cur := e.temp()
		e.expr(s.X)
		c.set(cur)
		e.loop(s, func() {
			c.get(cur)
			c.byte(opI64Eqz)
			e.brk(s)
			c.get(cur)
			c.byte(opI64Ctz)
			c.set(e.varLocal(s.Var))
			c.get(cur)
			c.get(cur)
			c.i64(1)
			c.byte(opI64Sub)
			c.byte(opI64And)
			c.set(cur)
		}, nothing)
	case fuse.SLabeled:
		e.open(opBlock, tVoid, s.Label, 'b')
		e.stmts(s.Body)
		e.end()
	case fuse.SBreak:
		e.br(opBr, s.Label, 'b')
	case fuse.SContinue:
		e.br(opBr, s.Label, 'c')
	case fuse.SReturn:
		e.expr(s.X)
		c.set(e.lRes)
		e.br(opBr, -1, 'r')
	case fuse.SFail:
		v := -1
		if s.X != nil {
			v = e.temp()
			e.expr(s.X)
			c.set(v)
		}
		e.fail(s.Check, v)
	default:
		panic(fmt.Sprintf("native: statement %d", s.Kind))
	}
}

// cond emits x as an i32 truth value.
func (e *emitter) cond(x *fuse.Expr) {
	switch x.Op {
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe:
		e.compare(x)
		return
	case fuse.OpLNot:
		e.expr(x.Args[0])
		e.c.byte(opI64Eqz)
		return
	}
	e.expr(x)
	e.c.i64(0)
	e.c.byte(opI64Ne)
}

// compare emits comparison x as an i32 truth value, a constant on the
// left moved to the right (the comparison mirrored). wazero v1.12's
// compiler (not its interpreter) gets "i64.const 0; local.get y;
// i64.const 3; i64.and; i64.ge_u; if" wrong: the if runs for every y
// (checked on a module of those six instructions; bitsh's random
// functions found it). The mirrored form runs right; the construct case
// constant_left_compare keeps both forms under test.
func (e *emitter) compare(x *fuse.Expr) {
	op, a, b := x.Op, x.Args[0], x.Args[1]
	if a.Op == fuse.OpConst && b.Op != fuse.OpConst {
		op, a, b = mirrored[op], b, a
	}
	e.expr(a)
	e.expr(b)
	e.c.byte(cmpOps[op])
}

// mirrored gives the comparison with its operands swapped.
var mirrored = map[fuse.Op]fuse.Op{fuse.OpEq: fuse.OpEq, fuse.OpNe: fuse.OpNe, fuse.OpLt: fuse.OpGt,
	fuse.OpGt: fuse.OpLt, fuse.OpLe: fuse.OpGe, fuse.OpGe: fuse.OpLe}

var cmpOps = map[fuse.Op]byte{fuse.OpEq: opI64Eq, fuse.OpNe: opI64Ne, fuse.OpLt: opI64LtU, fuse.OpLe: opI64LeU,
	fuse.OpGt: opI64GtU, fuse.OpGe: opI64GeU}

var binOps = map[fuse.Op]byte{fuse.OpAdd: opI64Add, fuse.OpSub: opI64Sub, fuse.OpMul: opI64Mul, fuse.OpAnd: opI64And,
	fuse.OpOr: opI64Or, fuse.OpXor: opI64Xor}

// index emits the resolution of the index x into an array of n elements
// (n a constant when nLocal < 0, else the i64 local nLocal): a local
// holding an index in range, or a failure of check naming the index. It
// makes no branch that joins again (a negative index gets the length
// added arithmetically, and the failure leaves run), so that wazero keeps
// the memory's base and length in registers across it.
func (e *emitter) index(x *fuse.Expr, n uint64, nLocal int, check int) int {
	c := &e.c
	t, r := e.temp(), e.temp()
	length := func() {
		if nLocal >= 0 {
			c.get(nLocal)
		} else {
			c.i64(n)
		}
	}
	e.expr(x)
	c.tee(t)
	// r = t + (t < 0 ? n : 0), in range iff r < n (unsigned).
	c.get(t)
	c.i64(63)
	c.byte(opI64ShrS)
	length()
	c.byte(opI64And)
	c.byte(opI64Add)
	c.tee(r)
	length()
	c.byte(opI64GeU)
	e.open(opIf, tVoid, -1, 0)
	e.fail(check, t)
	e.end()
	return r
}

func (e *emitter) scratchIndex(arr int, x *fuse.Expr, check int) int {
	return e.index(x, uint64(e.scratch[arr].Len), -1, check)
}

// scratchAddr emits the address of an element of scratch array arr, less
// e.off[arr], from the i64 local p holding 16 times its index.
func (e *emitter) scratchAddr(arr, p int) {
	e.addr(p)
	if b := e.base[arr]; b >= 0 {
		e.c.get(b)
		e.c.byte(opI32Add)
	}
}

// row emits the resolution of row index x of table t and leaves the row's
// header address (i32) in the returned local... as an i64 local holding
// the address.
func (e *emitter) row(t int, x *fuse.Expr, check int) int {
	c := &e.c
	i := e.index(x, uint64(len(e.f.Tables[t].Rows)), -1, check)
	h := e.temp()
	c.get(i)
	c.i64(3)
	c.byte(opI64Shl)
	c.i64(uint64(e.l.tables[t]))
	c.byte(opI64Add)
	c.set(h)
	return h
}

func (e *emitter) addr(local int) {
	e.c.get(local)
	e.c.byte(opI32WrapI64)
}

// checked evaluates an expression's operands into locals and runs its
// check; it returns the locals.
func (e *emitter) operands(x *fuse.Expr) []int {
	ls := make([]int, len(x.Args))
	for i, a := range x.Args {
		ls[i] = e.temp()
		e.expr(a)
		e.c.set(ls[i])
	}
	if x.Check < 0 {
		return ls
	}
	c := &e.c
	chk := e.f.Checks[x.Check]
	switch chk.Kind {
	case fuse.CheckNonZero:
		v := ls[0]
		if x.Op == fuse.OpDiv || x.Op == fuse.OpMod {
			v = ls[1]
		}
		c.get(v)
		c.byte(opI64Eqz)
		e.open(opIf, tVoid, -1, 0)
		e.fail(x.Check, -1)
		e.end()
	case fuse.CheckFits:
		c.get(ls[0])
		c.i64(chk.Imm)
		c.byte(opI64ShrU)
		c.i64(0)
		c.byte(opI64Ne)
		e.open(opIf, tVoid, -1, 0)
		e.fail(x.Check, ls[0])
		e.end()
	case fuse.CheckDelta:
		// mask = ls[1], delta = ls[2]: delta <= 63, mask<<delta>>delta ==
		// mask, and mask<<delta & mask == 0 unless delta == 0.
		m, d := ls[1], ls[2]
		c.get(d)
		c.i64(63)
		c.byte(opI64GtU)
		e.open(opIf, tI32, -1, 0)
		c.i32(1)
		c.byte(opElse)
		c.get(m)
		c.get(d)
		c.byte(opI64Shl)
		c.get(d)
		c.byte(opI64ShrU)
		c.get(m)
		c.byte(opI64Ne)
		c.get(d)
		c.byte(opI64Eqz)
		c.byte(opI32Eqz)
		c.get(m)
		c.get(d)
		c.byte(opI64Shl)
		c.get(m)
		c.byte(opI64And)
		c.i64(0)
		c.byte(opI64Ne)
		c.byte(opI32And)
		c.byte(opI32Or)
		e.end()
		e.open(opIf, tVoid, -1, 0)
		e.fail(x.Check, d)
		e.end()
	default:
		panic(fmt.Sprintf("native: check kind %d on an expression", chk.Kind))
	}
	return ls
}

func (e *emitter) expr(x *fuse.Expr) {
	c := &e.c
	switch x.Op {
	case fuse.OpConst:
		c.i64(x.Imm)
		return
	case fuse.OpVar:
		c.get(e.varLocal(int(x.Imm)))
		return
	case fuse.OpLoad:
		t := int(x.Imm)
		i := e.index(x.Args[0], uint64(len(e.f.Tables[t].Rows[0])), -1, x.Check)
		c.get(i)
		c.byte(opI32WrapI64)
		c.i32(3)
		c.byte(opI32Shl)
		c.mem(opI64Load, e.l.tables[t])
		return
	case fuse.OpLoad2, fuse.OpRowLen:
		t := int(x.Imm)
		h := e.row(t, x.Args[0], x.Check)
		n := e.temp()
		e.addr(h)
		c.mem(opI32Load, 4)
		c.byte(opI64ExtendU)
		c.set(n)
		if x.Op == fuse.OpRowLen {
			c.get(n)
			return
		}
		j := e.index(x.Args[1], 0, n, x.Check)
		e.addr(h)
		c.mem(opI32Load, 0)
		c.get(j)
		c.byte(opI32WrapI64)
		c.i32(3)
		c.byte(opI32Shl)
		c.byte(opI32Add)
		c.mem(opI64Load, 0)
		return
	case fuse.OpScratch:
		a := int(x.Imm)
		i := e.scratchIndex(a, x.Args[0], x.Check)
		p := e.temp()
		c.get(i)
		c.i64(4)
		c.byte(opI64Shl)
		c.set(p)
		e.scratchAddr(a, p)
		c.mem(opI64Load, e.off[a])
		c.i64(e.scratch[a].Init)
		e.scratchAddr(a, p)
		c.mem(opI64Load, e.off[a]+8)
		c.get(e.epoch[a])
		c.byte(opI64Eq)
		c.byte(opSelect)
		return
	case fuse.OpAndThen, fuse.OpOrElse:
		t := e.temp()
		e.expr(x.Args[0])
		c.tee(t)
		if x.Op == fuse.OpAndThen {
			c.byte(opI64Eqz)
		} else {
			c.i64(0)
			c.byte(opI64Ne)
		}
		e.open(opIf, tI64, -1, 0)
		c.get(t)
		c.byte(opElse)
		e.expr(x.Args[1])
		e.end()
		return
	case fuse.OpCall:
		e.callProc(x)
		return
	case fuse.OpDepth:
		if e.proc < 0 {
			c.i64(0)
			return
		}
		c.get(e.lDepth)
		c.byte(opI64ExtendU)
		return
	case fuse.OpCond:
		e.cond(x.Args[0])
		e.open(opIf, tI64, -1, 0)
		e.expr(x.Args[1])
		c.byte(opElse)
		e.expr(x.Args[2])
		e.end()
		return
	}
	if op, ok := binOps[x.Op]; ok && x.Check < 0 {
		e.expr(x.Args[0])
		e.expr(x.Args[1])
		c.byte(op)
		return
	}
	if _, ok := cmpOps[x.Op]; ok {
		e.compare(x)
		c.byte(opI64ExtendU)
		return
	}
	switch x.Op {
	case fuse.OpShl, fuse.OpShr:
		op := byte(opI64Shl)
		if x.Op == fuse.OpShr {
			op = opI64ShrU
		}
		if k := x.Args[1]; k.Op == fuse.OpConst {
			if k.Imm >= 64 {
				e.expr(x.Args[0])
				c.byte(opDrop)
				c.i64(0)
				return
			}
			e.expr(x.Args[0])
			c.i64(k.Imm)
			c.byte(op)
			return
		}
		ls := e.operands(x)
		c.get(ls[0])
		c.get(ls[1])
		c.byte(op)
		c.i64(0)
		c.get(ls[1])
		c.i64(64)
		c.byte(opI64LtU)
		c.byte(opSelect)
		return
	case fuse.OpNot:
		e.expr(x.Args[0])
		c.i64(^uint64(0))
		c.byte(opI64Xor)
		return
	case fuse.OpNeg:
		c.i64(0)
		e.expr(x.Args[0])
		c.byte(opI64Sub)
		return
	case fuse.OpLNot:
		e.expr(x.Args[0])
		c.byte(opI64Eqz)
		c.byte(opI64ExtendU)
		return
	case fuse.OpBool:
		e.expr(x.Args[0])
		c.i64(0)
		c.byte(opI64Ne)
		c.byte(opI64ExtendU)
		return
	case fuse.OpPopcount:
		e.expr(x.Args[0])
		c.byte(opI64Popcnt)
		return
	case fuse.OpParity:
		e.expr(x.Args[0])
		c.byte(opI64Popcnt)
		c.i64(1)
		c.byte(opI64And)
		return
	}
	ls := e.operands(x)
	get := func(i int) { c.get(ls[i]) }
	switch x.Op {
	case fuse.OpAdd, fuse.OpSub, fuse.OpMul, fuse.OpAnd, fuse.OpOr, fuse.OpXor:
		get(0)
		get(1)
		c.byte(binOps[x.Op])
	case fuse.OpDiv, fuse.OpMod:
		get(0)
		get(1)
		if x.Op == fuse.OpDiv {
			c.byte(opI64DivU)
		} else {
			c.byte(opI64RemU)
		}
	case fuse.OpBsf:
		get(0)
		c.byte(opI64Ctz)
	case fuse.OpBsr:
		c.i64(63)
		get(0)
		c.byte(opI64Clz)
		c.byte(opI64Sub)
	case fuse.OpLsb:
		get(0)
		c.i64(0)
		get(0)
		c.byte(opI64Sub)
		c.byte(opI64And)
	case fuse.OpGray:
		get(0)
		get(0)
		c.i64(1)
		c.byte(opI64ShrU)
		c.byte(opI64Xor)
	case fuse.OpGrayInv:
		for _, k := range []uint64{1, 2, 4, 8, 16, 32} {
			get(0)
			get(0)
			c.i64(k)
			c.byte(opI64ShrU)
			c.byte(opI64Xor)
			c.set(ls[0])
		}
		get(0)
	case fuse.OpRotl, fuse.OpRotr:
		w := x.Imm
		if w == 0 {
			w = 64
		}
		if w == 64 {
			get(0)
			get(1)
			if x.Op == fuse.OpRotl {
				c.byte(opI64Rotl)
			} else {
				c.byte(opI64Rotr)
			}
			return
		}
		// k = b mod w (rotr: -b mod w); x &= m; (x<<k | x>>(w-k)) & m.
		k := e.temp()
		if x.Op == fuse.OpRotr {
			c.i64(0)
			get(1)
			c.byte(opI64Sub)
		} else {
			get(1)
		}
		c.i64(w - 1)
		c.byte(opI64And)
		c.set(k)
		mask := uint64(1)<<w - 1
		get(0)
		c.i64(mask)
		c.byte(opI64And)
		c.set(ls[0])
		get(0)
		c.get(k)
		c.byte(opI64Shl)
		get(0)
		c.i64(w)
		c.get(k)
		c.byte(opI64Sub)
		c.byte(opI64ShrU)
		c.byte(opI64Or)
		c.i64(mask)
		c.byte(opI64And)
	case fuse.OpReverse, fuse.OpSwapBytes:
		w := x.Imm
		if w == 0 {
			w = 64
		}
		get(0)
		if x.Op == fuse.OpReverse {
			e.call(fnRev64)
		} else {
			e.call(fnBswap64)
		}
		if w < 64 {
			c.i64(64 - w)
			c.byte(opI64ShrU)
		}
	case fuse.OpPdep, fuse.OpPext:
		get(0)
		get(1)
		if x.Op == fuse.OpPdep {
			e.call(fnPdep)
		} else {
			e.call(fnPext)
		}
	case fuse.OpDeltaSwap:
		// t = (x ^ x>>d) & m; x ^ t ^ t<<d
		t := e.temp()
		get(0)
		get(0)
		get(2)
		c.byte(opI64ShrU)
		c.byte(opI64Xor)
		get(1)
		c.byte(opI64And)
		c.tee(t)
		get(0)
		c.byte(opI64Xor)
		c.get(t)
		get(2)
		c.byte(opI64Shl)
		c.byte(opI64Xor)
	case fuse.OpMin, fuse.OpMax:
		get(0)
		get(1)
		get(0)
		get(1)
		if x.Op == fuse.OpMin {
			c.byte(opI64LtU)
		} else {
			c.byte(opI64GtU)
		}
		c.byte(opSelect)
	case fuse.OpAbs:
		c.i64(0)
		get(0)
		c.byte(opI64Sub)
		get(0)
		get(0)
		c.i64(0)
		c.byte(opI64LtS)
		c.byte(opSelect)
	case fuse.OpSelect:
		get(1)
		get(2)
		get(0)
		c.i64(0)
		c.byte(opI64Ne)
		c.byte(opSelect)
	default:
		panic(fmt.Sprintf("native: op %v", x.Op))
	}
}

// The helper functions' bodies, with locals after their parameters.

func pdepBody(ext bool) []byte {
	// params x=0, m=1; locals r=2, bb=3
	var c code
	c.i64(1)
	c.set(3)
	c.byte(opBlock, tVoid, opLoop, tVoid)
	c.get(1)
	c.byte(opI64Eqz, opBrIf, 1)
	if ext {
		c.get(0)
		c.get(1)
		c.byte(opI64And)
		c.i64(0)
		c.get(1)
		c.byte(opI64Sub, opI64And, opI64Eqz, opI32Eqz)
		c.byte(opIf, tVoid)
		c.get(2)
		c.get(3)
		c.byte(opI64Or)
		c.set(2)
		c.byte(opEnd)
	} else {
		c.get(0)
		c.get(3)
		c.byte(opI64And, opI64Eqz, opI32Eqz)
		c.byte(opIf, tVoid)
		c.get(2)
		c.get(1)
		c.i64(0)
		c.get(1)
		c.byte(opI64Sub, opI64And, opI64Or)
		c.set(2)
		c.byte(opEnd)
	}
	c.get(1)
	c.get(1)
	c.i64(1)
	c.byte(opI64Sub, opI64And)
	c.set(1)
	c.get(3)
	c.i64(1)
	c.byte(opI64Shl)
	c.set(3)
	c.byte(opBr, 0, opEnd, opEnd)
	c.get(2)
	return funcBody(c.b, 2, tI64)
}

// swapSteps emits x = ((x >> k) & m) | ((x & m) << k) for each step, then
// a rotation by 32.
func swapSteps(steps []uint64, masks []uint64) []byte {
	var c code
	for i, k := range steps {
		c.get(0)
		c.i64(k)
		c.byte(opI64ShrU)
		c.i64(masks[i])
		c.byte(opI64And)
		c.get(0)
		c.i64(masks[i])
		c.byte(opI64And)
		c.i64(k)
		c.byte(opI64Shl)
		c.byte(opI64Or)
		c.set(0)
	}
	c.get(0)
	c.i64(32)
	c.byte(opI64Rotl)
	return funcBody(c.b)
}

func rev64Body() []byte {
	return swapSteps([]uint64{1, 2, 4, 8, 16}, []uint64{0x5555555555555555, 0x3333333333333333,
		0x0f0f0f0f0f0f0f0f, 0x00ff00ff00ff00ff, 0x0000ffff0000ffff})
}

func bswap64Body() []byte {
	return swapSteps([]uint64{8, 16}, []uint64{0x00ff00ff00ff00ff, 0x0000ffff0000ffff})
}

// snoobBody is subset.Snoob(x, set), 0 after the greatest subset.
func snoobBody() []byte {
	// params x=0, set=1; locals l=2, s=3, r=4, m=5, ones=6
	var c code
	c.get(0)
	c.i64(0)
	c.get(0)
	c.byte(opI64Sub, opI64And)
	c.set(2)
	c.get(0)
	c.get(1)
	c.i64(^uint64(0))
	c.byte(opI64Xor, opI64Or)
	c.get(2)
	c.byte(opI64Add)
	c.tee(3)
	c.get(2)
	c.byte(opI64LtU, opIf, tVoid)
	c.i64(0)
	c.byte(opReturn, opEnd)
	c.get(3)
	c.get(1)
	c.byte(opI64And)
	c.set(4)
	c.get(1)
	c.set(5)
	c.get(0)
	c.get(4)
	c.i64(^uint64(0))
	c.byte(opI64Xor, opI64And)
	c.set(6)
	c.byte(opBlock, tVoid, opLoop, tVoid)
	c.get(6)
	c.get(6)
	c.i64(1)
	c.byte(opI64Sub, opI64And, opI64Eqz, opBrIf, 1)
	c.get(4)
	c.get(5)
	c.i64(0)
	c.get(5)
	c.byte(opI64Sub, opI64And, opI64Or)
	c.set(4)
	c.get(5)
	c.get(5)
	c.i64(1)
	c.byte(opI64Sub, opI64And)
	c.set(5)
	c.get(6)
	c.get(6)
	c.i64(1)
	c.byte(opI64Sub, opI64And)
	c.set(6)
	c.byte(opBr, 0, opEnd, opEnd)
	c.get(4)
	return funcBody(c.b, 5, tI64)
}

// lowestBody is subset.Lowest(set, k) for k > 0.
func lowestBody() []byte {
	// params set=0, k=1; local r=2
	var c code
	c.byte(opBlock, tVoid, opLoop, tVoid)
	c.get(1)
	c.byte(opI64Eqz)
	c.get(0)
	c.byte(opI64Eqz, opI32Or, opBrIf, 1)
	c.get(2)
	c.get(0)
	c.i64(0)
	c.get(0)
	c.byte(opI64Sub, opI64And, opI64Or)
	c.set(2)
	c.get(0)
	c.get(0)
	c.i64(1)
	c.byte(opI64Sub, opI64And)
	c.set(0)
	c.get(1)
	c.i64(1)
	c.byte(opI64Sub)
	c.set(1)
	c.byte(opBr, 0, opEnd, opEnd)
	c.get(2)
	return funcBody(c.b, 1, tI64)
}

// rangeLenBody is fuse.RangeLen(a, b, s).
func rangeLenBody() []byte {
	// params a=0, b=1, s=2
	var c code
	c.get(2)
	c.i64(0)
	c.byte(opI64GtS, opIf, tVoid)
	c.get(0)
	c.get(1)
	c.byte(opI64LtS, opIf, tVoid)
	c.get(1)
	c.get(0)
	c.byte(opI64Sub)
	c.i64(1)
	c.byte(opI64Sub)
	c.get(2)
	c.byte(opI64DivU)
	c.i64(1)
	c.byte(opI64Add, opReturn, opEnd)
	c.i64(0)
	c.byte(opReturn, opEnd)
	c.get(0)
	c.get(1)
	c.byte(opI64GtS, opIf, tVoid)
	c.get(0)
	c.get(1)
	c.byte(opI64Sub)
	c.i64(1)
	c.byte(opI64Sub)
	c.i64(0)
	c.get(2)
	c.byte(opI64Sub, opI64DivU)
	c.i64(1)
	c.byte(opI64Add, opReturn, opEnd)
	c.i64(0)
	return funcBody(c.b)
}

// wasmOpsSupported says why f holds an op that WebAssembly has no
// instruction for, if it does: the high word of a 128-bit product
// (fuse.OpMulHi; wasm's i64.mul keeps the low word only), which the
// x86-64 code and the evaluator run instead.
func wasmOpsSupported(f *fuse.Func) error {
	var bad error
	f.EachExpr(func(x *fuse.Expr) {
		if bad == nil && x.Op == fuse.OpMulHi {
			bad = fmt.Errorf("wasm: op %v (no 128-bit product)", x.Op)
		}
	})
	return bad
}
