package native

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/tetratelabs/wazero"
)

// Calls of helpers (fuse.Proc, fuse.OpCall) in the WebAssembly module.
//
// Each Proc is a function of the module taking its word parameters (i64),
// then each array parameter as the address of its first element (i32) and
// its epoch (i64: a helper cannot make an array it was passed fresh, so
// the epoch holds for the call), then the depth of calls it runs at and
// the fuel left before the next poll (i32s); it returns its result and
// the fuel left, or -1 for the fuel when it failed or was stopped, with
// the status, check and value at addresses 0, 4 and 8 as run leaves them.
// The caller tests the fuel after each call and passes a failure on.
//
// A Proc with scratch arrays of its own keeps them in a stack of frames of
// its own, the frame of a call at the Proc's own depth (a word of memory
// counts the frames in use; run clears it). Each array's epoch at a depth
// lives in the frame, so that the epochs of a frame only grow and an
// array is made fresh in O(1) as run's are. Frames are laid out for the
// Func's deepest chain of calls, fuse.Func.MaxCalls.

// frameLayout returns the offsets in a frame of p's own scratch arrays'
// epochs and elements (index a-p.Arrays for scratch array a) and the size
// of the frame.
func frameLayout(p *fuse.Proc) (epochs, elems []uint32, size uint64) {
	own := p.Scratch[p.Arrays:]
	size = uint64(align(8*uint32(len(own)), 16))
	for i, s := range own {
		epochs = append(epochs, 8*uint32(i))
		elems = append(elems, uint32(size))
		size += 16 * uint64(s.Len)
	}
	return epochs, elems, size
}

// addFrames lays out the frames of f's Procs after the rest.
func (l *layout) addFrames(f *fuse.Func) error {
	if len(f.Procs) == 0 {
		return nil
	}
	n := len(f.Procs)
	l.frames, l.frameBytes, l.levels = make([]uint32, n), make([]uint32, n), make([]uint32, n)
	at := uint64(align(l.size, 64))
	for i := range f.Procs {
		if len(f.Procs[i].Scratch) > f.Procs[i].Arrays {
			l.levels[i] = uint32(at)
			at += 8
		}
	}
	for i := range f.Procs {
		p := &f.Procs[i]
		if len(p.Scratch) == p.Arrays {
			continue
		}
		_, _, size := frameLayout(p)
		at = (at + 63) / 64 * 64
		l.frames[i], l.frameBytes[i] = uint32(at), uint32(size)
		at += uint64(f.MaxCalls()) * size
		if at > 3<<30 {
			return fmt.Errorf("wasm: the frames of %s's scratch arrays for %d calls deep, with the tables and the other arrays, take more than 3 GiB",
				p.Name, f.MaxCalls())
		}
	}
	l.size = uint32(at)
	return nil
}

// procsSupported says why f's Procs cannot be compiled, if they cannot:
// a Proc making an array it was passed fresh.
func procsSupported(f *fuse.Func) error {
	var walk func(p *fuse.Proc, ss []fuse.Stmt) error
	walk = func(p *fuse.Proc, ss []fuse.Stmt) error {
		for i := range ss {
			s := &ss[i]
			if s.Kind == fuse.SFresh && s.Arr < p.Arrays {
				return fmt.Errorf("wasm: %s makes the array it was passed (%s) fresh", p.Name, p.Scratch[s.Arr].Name)
			}
			if err := walk(p, s.Body); err != nil {
				return err
			}
			if err := walk(p, s.Else); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range f.Procs {
		if err := walk(&f.Procs[i], f.Procs[i].Body); err != nil {
			return err
		}
	}
	return nil
}

// procType returns the function type of p.
func procType(p *fuse.Proc) []byte {
	var params []byte
	for i := 0; i < p.Params; i++ {
		params = append(params, tI64)
	}
	for i := 0; i < p.Arrays; i++ {
		params = append(params, tI32, tI64)
	}
	params = append(params, tI32, tI32) // depth, fuel
	return funcType(params, []byte{tI64, tI32})
}

// procFunc emits the function of Procs[pi] and returns its body.
func (e *emitter) procFunc(pi int) []byte {
	p := &e.f.Procs[pi]
	np, na := p.Params, p.Arrays
	e.proc, e.scratch, e.params = pi, p.Scratch, np
	e.lDepth = np + 2*na
	e.lFuel = e.lDepth + 1
	e.lStatus, e.lCheck, e.lFrame, e.lLevel = e.lFuel+1, e.lFuel+2, e.lFuel+3, e.lFuel+4
	const i32s = 4 // status, check, frame, level
	e.i64s = e.lFuel + 1 + i32s
	e.lValue, e.lRes, e.lVars = e.i64s, e.i64s+1, e.i64s+2
	e.nI64 = 2 + p.Vars - np
	epochs, elems, _ := frameLayout(p)
	for a := range p.Scratch {
		if a < na {
			e.base = append(e.base, np+2*a)
			e.off = append(e.off, 0)
			e.epoch = append(e.epoch, np+2*a+1)
			continue
		}
		e.base = append(e.base, e.lFrame)
		e.off = append(e.off, elems[a-na])
		e.epoch = append(e.epoch, e.temp())
		e.frameEp = append(e.frameEp, epochs[a-na])
	}
	c := &e.c
	own := len(p.Scratch) > na
	level := e.l.levels[pi]
	if own {
		// level = levels[pi]++; frame = frames[pi] + level*frameBytes[pi]
		c.i32(0)
		c.mem(opI32Load, level)
		c.tee(e.lLevel)
		c.i32(int32(e.l.frameBytes[pi]))
		c.byte(opI32Mul)
		c.i32(int32(e.l.frames[pi]))
		c.byte(opI32Add)
		c.set(e.lFrame)
		c.i32(0)
		c.get(e.lLevel)
		c.i32(1)
		c.byte(opI32Add)
		c.mem(opI32Store, level)
		for a := na; a < len(p.Scratch); a++ {
			c.get(e.lFrame)
			c.mem(opI64Load, epochs[a-na])
			c.set(e.epoch[a])
		}
	}
	e.open(opBlock, tVoid, -1, 'x')
	e.open(opBlock, tVoid, -1, 'r')
	// Every call ran the guards before calling (callProc): none holds.
	e.stmts(p.Body[len(procGuards(p)):])
	e.end()
	if own {
		c.i32(0)
		c.get(e.lLevel)
		c.mem(opI32Store, level)
	}
	c.get(e.lRes)
	c.get(e.lFuel)
	c.byte(opReturn)
	e.end()
	// Failed or stopped: the status for run, and -1 for the fuel.
	c.i32(0)
	c.get(e.lStatus)
	c.mem(opI32Store, 0)
	c.i32(0)
	c.get(e.lCheck)
	c.mem(opI32Store, 4)
	c.i32(0)
	c.get(e.lValue)
	c.mem(opI64Store, 8)
	c.i64(0)
	c.i32(-1)
	return funcBody(c.b, i32s, tI32, e.nI64, tI64)
}

// frameEpoch returns the offset in the frame of the epoch of the running
// Proc's own scratch array a.
func (e *emitter) frameEpoch(a int) uint32 {
	return e.frameEp[a-e.f.Procs[e.proc].Arrays]
}

// callProc emits call x of a Proc, as fuse.FlowState's call runs it: the
// depth check, a tick of the fuel, the arguments, the call, and the test
// of its failure.
func (e *emitter) callProc(x *fuse.Expr) {
	c := &e.c
	p := &e.f.Procs[x.Imm]
	if e.proc >= 0 { // run is at depth 0, below any limit
		c.get(e.lDepth)
		c.i32(int32(e.f.MaxCalls()))
		c.byte(opI32GeU)
		e.open(opIf, tVoid, -1, 0)
		d := e.temp()
		c.get(e.lDepth)
		c.byte(opI64ExtendU)
		c.set(d)
		e.fail(x.Check, d)
		e.end()
	}
	c.get(e.lFuel)
	c.i32(1)
	c.byte(opI32Sub)
	c.tee(e.lFuel)
	c.byte(opI32Eqz)
	e.open(opIf, tVoid, -1, 0)
	c.i32(fuse.PollEvery)
	c.set(e.lFuel)
	c.call(fnPoll)
	e.open(opIf, tVoid, -1, 0)
	c.i32(statusStopped)
	c.set(e.lStatus)
	e.br(opBr, -1, 'x')
	e.end()
	e.end()
	guards := procGuards(p)
	var args []int
	for i := 0; i < p.Params; i++ {
		e.expr(x.Args[i])
		if len(guards) > 0 {
			args = append(args, e.temp())
			c.set(args[i])
		}
	}
	if len(guards) > 0 {
		// The guards run here on the arguments; one that holds gives the
		// result without the call.
		e.open(opBlock, tI64, -1, 0)
		e.subst = args
		for _, g := range guards {
			e.cond(g.X)
			e.open(opIf, tVoid, -1, 0)
			e.expr(g.Body[0].X)
			c.byte(opBr)
			c.u32(1)
			e.end()
		}
		e.subst = nil
		for _, a := range args {
			c.get(a)
		}
	}
	for i := 0; i < p.Arrays; i++ {
		a := int(x.Args[p.Params+i].Imm)
		if b := e.base[a]; b >= 0 {
			c.get(b)
			if e.off[a] != 0 {
				c.i32(int32(e.off[a]))
				c.byte(opI32Add)
			}
		} else {
			c.i32(int32(e.off[a]))
		}
		c.get(e.epoch[a])
	}
	if e.proc >= 0 {
		c.get(e.lDepth)
		c.i32(1)
		c.byte(opI32Add)
	} else {
		c.i32(1)
	}
	c.get(e.lFuel)
	c.call(numFuncs + int(x.Imm))
	c.set(e.lFuel)
	r := e.temp()
	c.set(r)
	c.get(e.lFuel)
	c.i32(0)
	c.byte(opI32LtS)
	e.open(opIf, tVoid, -1, 0)
	if e.proc >= 0 {
		c.i64(0)
		c.i32(-1)
		c.byte(opReturn)
	} else {
		c.i32(0)
		c.mem(opI32Load, 0)
		c.set(e.lStatus)
		c.i32(0)
		c.mem(opI32Load, 4)
		c.set(e.lCheck)
		c.i32(0)
		c.mem(opI64Load, 8)
		c.set(e.lValue)
		e.br(opBr, -1, 'x')
	}
	e.end()
	c.get(r)
	if len(guards) > 0 {
		e.end()
	}
}

// maxGuards is the most guards of a Proc emitted where it is called.
const maxGuards = 4

// procGuards returns the guards that begin p's body (fuse.Proc.Guards),
// at most maxGuards of them: a call that returns at once from its first
// statements is most calls of a search's leaves.
func procGuards(p *fuse.Proc) []*fuse.Stmt {
	gs := make([]*fuse.Stmt, min(p.Guards(), maxGuards))
	for i := range gs {
		gs[i] = &p.Body[i]
	}
	return gs
}

// wazero's interpreter (its engine where it has no compiler) allows fewer
// nested calls than fuse.MaxDepth; its compiler allows far more. Which one
// runs here is found by running a chain of calls that deep, once.
var (
	deepOnce sync.Once
	deepErr  error
)

// deepCalls returns an error when rt cannot run chains of calls as deep as
// fuse.MaxDepth (and the calls of run and a helper besides).
func deepCalls(rt wazero.Runtime) error {
	deepOnce.Do(func() { deepErr = probeDeepCalls(rt) })
	return deepErr
}

func probeDeepCalls(rt wazero.Runtime) error {
	// deep(n) = n == 0 ? 0 : deep(n - 1) + 1
	var c code
	c.get(0)
	c.byte(opI32Eqz, opIf, tI32)
	c.i32(0)
	c.byte(opElse)
	c.get(0)
	c.i32(1)
	c.byte(opI32Sub)
	c.call(0)
	c.i32(1)
	c.byte(opI32Add)
	c.byte(opEnd)
	mod := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	mod = section(mod, 1, vec(funcType([]byte{tI32}, []byte{tI32})))
	mod = section(mod, 3, vec([]byte{0}))
	mod = section(mod, 7, vec(append(str("deep"), 0x00, 0)))
	mod = section(mod, 10, vec(funcBody(c.b)))
	ctx := context.Background()
	m, err := rt.InstantiateWithConfig(ctx, mod, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return fmt.Errorf("wasm: probing the depth of calls: %w", err)
	}
	defer m.Close(ctx)
	n := uint64(fuse.MaxDepth + 8)
	res, err := m.ExportedFunction("deep").Call(ctx, n)
	if err != nil || len(res) != 1 || res[0] != n {
		why := "a wrong result"
		if err != nil {
			why, _, _ = strings.Cut(err.Error(), "\n")
		}
		return fmt.Errorf("wasm: wazero's engine here cannot run %d calls deep (%s)", n, why)
	}
	return nil
}
