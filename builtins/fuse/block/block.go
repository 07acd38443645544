// Package block is the block executor of fused straight lines: it runs a
// fuse.Line (a function without loops, its control flow turned into
// predication) over spaces of items on the CPU a block of items at a time.
// Each instruction loops over the whole block, so dispatch is paid once
// per block, and the loops are plain Go that the compiler keeps free of
// bounds checks. New prepares a Line (a peephole pass fuses common
// idioms into single instructions, then values get registers of a block);
// Executor.Run drives the workers through fuse.RunSpaces.
package block

import (
	"context"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// An Executor is a fuse.Line prepared for the block executor.
type Executor struct {
	Prog *fuse.Line // as given: the checks of its errors point into it
	pl   *plan
}

// New prepares p for the block executor.
func New(p *fuse.Line) *Executor { return &Executor{Prog: p, pl: newPlan(peephole(p))} }

// peephole rewrites popcount(x & K), x ^ x >> K (and <<) and an xorshift
// times a value as single instructions. The copy shares p's checks, so that
// errors point into p.
func peephole(p *fuse.Line) *fuse.Line {
	q := *p
	q.Instrs = append([]fuse.Instr(nil), p.Instrs...)
	reads := uses(p)
	for i, in := range q.Instrs {
		switch in.Op {
		case fuse.OpPopcount:
			and := p.Instrs[in.A]
			if and.Op == fuse.OpAnd && p.Instrs[and.B].Op == fuse.OpConst {
				q.Instrs[i] = fuse.Instr{Op: opPopAndK, A: and.A, B: -1, C: -1, Imm: p.Instrs[and.B].Imm}
			}
		case fuse.OpXor:
			// a ^ (a >> K) or (a >> K) ^ a, likewise <<, with K < 64.
			for _, pair := range [][2]fuse.Value{{in.A, in.B}, {in.B, in.A}} {
				sh := p.Instrs[pair[1]]
				if (sh.Op == fuse.OpShr || sh.Op == fuse.OpShl) && sh.A == pair[0] && p.Instrs[sh.B].Op == fuse.OpConst && p.Instrs[sh.B].Imm < 64 {
					op := opXorShrK
					if sh.Op == fuse.OpShl {
						op = opXorShlK
					}
					q.Instrs[i] = fuse.Instr{Op: op, A: pair[0], B: -1, C: -1, Imm: p.Instrs[sh.B].Imm}
					break
				}
			}
		case fuse.OpMul:
			// An xorshift (rewritten above) times y, when the product is the
			// xorshift's only use: the xorshift is then dead.
			for _, pair := range [][2]fuse.Value{{in.A, in.B}, {in.B, in.A}} {
				xs := q.Instrs[pair[0]]
				if (xs.Op == opXorShrK || xs.Op == opXorShlK) && reads[pair[0]] == 1 {
					op := opXorShrMul
					if xs.Op == opXorShlK {
						op = opXorShlMul
					}
					q.Instrs[i] = fuse.Instr{Op: op, A: xs.A, B: pair[1], C: -1, Imm: xs.Imm}
					break
				}
			}
		}
	}
	return &q
}

// uses counts the reads of each value by instructions, checks and the
// result.
func uses(p *fuse.Line) []int {
	n := make([]int, len(p.Instrs))
	use := func(v fuse.Value) {
		if v >= 0 {
			n[v]++
		}
	}
	for _, in := range p.Instrs {
		for _, v := range []fuse.Value{in.A, in.B, in.C}[:arity(in.Op)] {
			use(v)
		}
	}
	for _, c := range p.Checks {
		use(c.A)
		use(c.Mask)
		if c.Kind == fuse.CheckDelta {
			use(c.B)
		}
	}
	use(p.Result)
	return n
}

// Call runs the program on one item.
func (c *Executor) Call(params []uint64) (uint64, error) {
	m := c.pl.machine()
	for i, x := range params {
		m.paramBuf(i)[0] = x
	}
	res, lane, chk := m.run(1)
	if lane >= 0 {
		return 0, &fuse.ItemError{Index: 0, Params: params, Check: &c.Prog.Checks[chk]}
	}
	return res[0], nil
}

// machineWorker runs a fuse.Line's plan.
type machineWorker struct {
	m       *machine
	zeroOne bool
}

func (w *machineWorker) Size() int            { return Size }
func (w *machineWorker) Param(i int) []uint64 { return w.m.regs[w.m.pl.params[i]][:] }
func (w *machineWorker) Close()               {}

func (w *machineWorker) Run(spaces []fuse.Space, b uint64, kk int, method fuse.Method, opt *fuse.Options) ([]uint64, uint64, bool, int, error) {
	m, k := w.m, uint64(kk)
	for i, s := range spaces {
		if a, ok := s.(fuse.Array); ok && k == Size {
			// The items already lie in memory: read them in place.
			m.setParam(i, (*[Size]uint64)(a[b:b+k]))
		} else {
			m.resetParam(i)
			s.Fill(b, m.paramBuf(i)[:k])
		}
	}
	// map writes the result register straight into the output (no copy)
	// when it is a temporary of a full block.
	direct := method == fuse.Map && k == Size && m.pl.resultTemp
	if direct {
		m.regs[m.pl.result] = (*[Size]uint64)(opt.Out[b : b+Size])
	}
	var res []uint64
	var lane, chk int
	tail := method == fuse.Count && m.pl.tail != nil
	if tail {
		res, lane, chk = m.runCode(m.pl.tail.pre, m.pl.tail.a, kk)
	} else {
		res, lane, chk = m.run(kk)
	}
	if direct {
		m.regs[m.pl.result] = m.own[m.pl.result]
	}
	limit := len(res)
	if lane >= 0 {
		limit = lane
	}
	res = res[:limit]
	var err error
	if lane >= 0 {
		err = &fuse.ItemError{Check: &m.pl.prog.Checks[chk]}
	}
	if method == fuse.First {
		for i, r := range res {
			if r != 0 {
				return res[:i+1], 0, false, -1, nil
			}
		}
	}
	if method == fuse.Count {
		var cnt uint64
		if tail {
			cnt = countCmp(m.pl.tail.op, res, m.pl.tail.k)
		} else if w.zeroOne {
			for _, r := range res {
				cnt += r
			}
		} else {
			for _, r := range res {
				cnt += (r | -r) >> 63
			}
		}
		return res, cnt, true, lane, err
	}
	return res, 0, false, lane, err
}

// Run applies the program to every item of the spaces as fuse.RunSpaces
// does (one space per parameter, all of the same length), on opt.Workers
// goroutines.
func (c *Executor) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	// A comparison's results are 0 or 1: count them by adding.
	zeroOne := c.Prog.Instrs[c.Prog.Result].Op.ZeroOne()
	return fuse.RunSpaces(ctx, spaces, method, opt, 64*Size, Size, func(func() bool) (fuse.SpaceWorker, error) {
		return &machineWorker{m: c.pl.machine(), zeroOne: zeroOne}, nil
	})
}
