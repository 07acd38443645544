package block

import (
	"math/bits"

	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/fuse"
)

// Size is the number of items the block executor runs each instruction
// over. 256 words per register keep a typical function's live registers in
// L1.
const Size = 256

// opCheck marks a check in the executor's code (Imm indexes fuse.Line.Checks).
const opCheck = fuse.Op(255)

type xinstr struct {
	op      fuse.Op
	k       bool // operand b is the constant imm (binary ops of immOps), or m
	d       int32
	a, b, c int32
	imm     uint64
	m       uint64 // opXorShrMul, opXorShlMul with k: the constant factor
}

// immOps are the binary ops with a variant taking a constant operand b.
var immOps = [numOps]bool{fuse.OpAdd: true, fuse.OpSub: true, fuse.OpMul: true, fuse.OpAnd: true, fuse.OpOr: true, fuse.OpXor: true,
	fuse.OpShl: true, fuse.OpShr: true, fuse.OpEq: true, fuse.OpNe: true, fuse.OpLt: true, fuse.OpLe: true, fuse.OpGt: true, fuse.OpGe: true}

// plan is a program with its values assigned to registers of Size words:
// parameters and constants keep their own, temporaries share the rest.
type plan struct {
	prog   *fuse.Line
	code   []xinstr
	nslots int
	params []int32 // slot of each parameter
	consts []xinstr
	result int32
	tail   *countTail // nil unless the program ends in a comparison with a constant
	// resultTemp: the result lives in a temporary register (not a
	// parameter's or a constant's), which map may point at its output.
	resultTemp bool
}

func newPlan(p *fuse.Line) *plan {
	last := make([]int, len(p.Instrs))
	for i := range last {
		last[i] = -1
	}
	use := func(v fuse.Value, at int) {
		if v >= 0 && last[v] < at {
			last[v] = at
		}
	}
	ci := 0
	// Positions: instruction i is at 2i+1, a check before instruction i at 2i.
	for i, in := range p.Instrs {
		for ; ci < len(p.Checks) && p.Checks[ci].At <= i; ci++ {
			c := p.Checks[ci]
			use(c.A, 2*i)
			use(c.Mask, 2*i)
			if c.Kind.TwoOperands() {
				use(c.B, 2*i)
			}
		}
		for _, v := range []fuse.Value{in.A, in.B, in.C}[:arity(in.Op)] {
			use(v, 2*i+1)
		}
	}
	end := 2 * len(p.Instrs)
	for ; ci < len(p.Checks); ci++ {
		c := p.Checks[ci]
		use(c.A, end)
		use(c.Mask, end)
		if c.Kind.TwoOperands() {
			use(c.B, end)
		}
	}
	use(p.Result, end+1)

	pl := &plan{prog: p}
	slot := make([]int32, len(p.Instrs))
	var free []int32
	newSlot := func() int32 {
		if n := len(free); n > 0 {
			s := free[n-1]
			free = free[:n-1]
			return s
		}
		pl.nslots++
		return int32(pl.nslots - 1)
	}
	// dying[pos] lists the temporaries whose last use is at pos.
	dying := map[int][]int32{}
	// Parameters and constants own their registers for the whole run
	// (constants are filled once per machine).
	for i, in := range p.Instrs {
		switch in.Op {
		case fuse.OpParam:
			slot[i] = newSlot()
			pl.params = append(pl.params, slot[i])
		case fuse.OpConst:
			slot[i] = newSlot()
			pl.consts = append(pl.consts, xinstr{d: slot[i], imm: in.Imm})
		}
	}
	ci = 0
	emitChecks := func(i int) {
		for ; ci < len(p.Checks) && p.Checks[ci].At <= i; ci++ {
			c := p.Checks[ci]
			x := xinstr{op: opCheck, a: slot[c.A], b: -1, c: -1, imm: uint64(ci)}
			if c.Kind.TwoOperands() {
				x.b = slot[c.B]
			}
			if c.Mask >= 0 {
				x.c = slot[c.Mask]
			}
			pl.code = append(pl.code, x)
		}
	}
	for i, in := range p.Instrs {
		emitChecks(i)
		free = append(free, dying[2*i]...)
		if in.Op == fuse.OpParam || in.Op == fuse.OpConst || last[i] < 0 {
			continue // dead values (an And folded into a popcount) cost nothing
		}
		x := xinstr{op: in.Op, a: -1, b: -1, c: -1, imm: in.Imm}
		n := arity(in.Op)
		if n > 0 {
			x.a = slot[in.A]
		}
		if n > 1 {
			x.b = slot[in.B]
			if kb := p.Instrs[in.B]; kb.Op == fuse.OpConst && immOps[in.Op] {
				x.k, x.b, x.imm = true, -1, kb.Imm
			} else if kb.Op == fuse.OpConst && (in.Op == opXorShrMul || in.Op == opXorShlMul) {
				x.k, x.b, x.m = true, -1, kb.Imm
			}
		}
		if n > 2 {
			x.c = slot[in.C]
		}
		// Operands dying here free their registers after this instruction
		// (an op never writes its destination before reading its operands
		// at the same index, so d may equal an operand's slot).
		for _, v := range []fuse.Value{in.A, in.B, in.C}[:n] {
			if last[v] == 2*i+1 && p.Instrs[v].Op != fuse.OpParam && p.Instrs[v].Op != fuse.OpConst {
				last[v] = -2 // free once
				free = append(free, slot[v])
			}
		}
		slot[i] = newSlot()
		x.d = slot[i]
		pl.code = append(pl.code, x)
		if last[i] >= 0 && last[i]%2 == 0 {
			dying[last[i]] = append(dying[last[i]], slot[i]) // last read by a check
		} else if last[i] < 0 {
			free = append(free, slot[i]) // dead (only when unused by anything)
		}
	}
	emitChecks(len(p.Instrs))
	pl.result = slot[p.Result]
	pl.resultTemp = p.Instrs[p.Result].Op != fuse.OpParam && p.Instrs[p.Result].Op != fuse.OpConst
	if n := len(pl.code); n > 0 {
		if x := pl.code[n-1]; x.k && x.d == pl.result {
			switch x.op {
			case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe:
				pl.tail = &countTail{op: x.op, a: x.a, k: x.imm, pre: pl.code[:n-1]}
			}
		}
	}
	return pl
}

// machine runs a plan over blocks; one per worker.
//
// Registers are whole blocks (*[Size]uint64): every instruction computes
// all Size lanes, also past the n items of a last, partial block (those
// lanes hold garbage nobody reads), so that the loops carry no bounds
// checks. Checks and results look at the first n lanes only.
type machine struct {
	pl   *plan
	regs []*[Size]uint64
	own  []*[Size]uint64 // the registers' own memory (params may point elsewhere)
}

func (pl *plan) machine() *machine {
	m := &machine{pl: pl, regs: make([]*[Size]uint64, pl.nslots), own: make([]*[Size]uint64, pl.nslots)}
	mem := make([][Size]uint64, pl.nslots)
	for i := range m.regs {
		m.own[i] = &mem[i]
		m.regs[i] = m.own[i]
	}
	for _, c := range pl.consts {
		r := m.own[c.d]
		for i := range r {
			r[i] = c.imm
		}
	}
	return m
}

// paramBuf returns the register that parameter i reads, to fill.
func (m *machine) paramBuf(i int) []uint64 { return m.own[m.pl.params[i]][:] }

// setParam makes parameter i read xs in place: a full block of memory.
func (m *machine) setParam(i int, xs *[Size]uint64) { m.regs[m.pl.params[i]] = xs }

// resetParam makes parameter i read its own register again.
func (m *machine) resetParam(i int) { m.regs[m.pl.params[i]] = m.own[m.pl.params[i]] }

// run executes the program on the first n items of the parameter
// registers. It returns the result registers (valid until the next run) and,
// when some item fails a check, the first failing lane and that lane's first
// failing check (lane -1 when none fails).
func (m *machine) run(n int) (res []uint64, lane, check int) {
	return m.runCode(m.pl.code, m.pl.result, n)
}

// runCode runs code and returns the register result (see run).
func (m *machine) runCode(code []xinstr, result int32, n int) (res []uint64, lane, check int) {
	lane, check = -1, -1
	regs := m.regs
	for k := range code {
		x := &code[k]
		if x.op == opCheck {
			if l := m.check(x, n, lane); l >= 0 {
				lane, check = l, int(x.imm)
			}
			continue
		}
		d := regs[x.d]
		var a, b, c *[Size]uint64
		if x.a >= 0 {
			a = regs[x.a]
		}
		if x.b >= 0 {
			b = regs[x.b]
		}
		if x.c >= 0 {
			c = regs[x.c]
		}
		if x.k {
			runImm(d, a, x)
			continue
		}
		switch x.op {
		case fuse.OpAdd:
			for i := range d {
				d[i] = a[i] + b[i]
			}
		case fuse.OpSub:
			for i := range d {
				d[i] = a[i] - b[i]
			}
		case fuse.OpMul:
			for i := range d {
				d[i] = a[i] * b[i]
			}
		case fuse.OpDiv:
			for i := range d {
				if y := b[i]; y != 0 {
					d[i] = a[i] / y
				} else {
					d[i] = 0
				}
			}
		case fuse.OpMod:
			for i := range d {
				if y := b[i]; y != 0 {
					d[i] = a[i] % y
				} else {
					d[i] = 0
				}
			}
		case fuse.OpAnd:
			for i := range d {
				d[i] = a[i] & b[i]
			}
		case fuse.OpOr:
			for i := range d {
				d[i] = a[i] | b[i]
			}
		case fuse.OpXor:
			for i := range d {
				d[i] = a[i] ^ b[i]
			}
		case fuse.OpShl:
			for i := range d {
				s := b[i]
				v := a[i] << (s & 63)
				if s >= 64 {
					v = 0
				}
				d[i] = v
			}
		case fuse.OpShr:
			for i := range d {
				s := b[i]
				v := a[i] >> (s & 63)
				if s >= 64 {
					v = 0
				}
				d[i] = v
			}
		case fuse.OpNot:
			for i := range d {
				d[i] = ^a[i]
			}
		case fuse.OpNeg:
			for i := range d {
				d[i] = -a[i]
			}
		case fuse.OpEq:
			for i := range d {
				d[i] = fuse.Bit(a[i] == b[i])
			}
		case fuse.OpNe:
			for i := range d {
				d[i] = fuse.Bit(a[i] != b[i])
			}
		case fuse.OpLt:
			for i := range d {
				d[i] = fuse.Bit(a[i] < b[i])
			}
		case fuse.OpLe:
			for i := range d {
				d[i] = fuse.Bit(a[i] <= b[i])
			}
		case fuse.OpGt:
			for i := range d {
				d[i] = fuse.Bit(a[i] > b[i])
			}
		case fuse.OpGe:
			for i := range d {
				d[i] = fuse.Bit(a[i] >= b[i])
			}
		case fuse.OpLNot:
			for i := range d {
				d[i] = fuse.Bit(a[i] == 0)
			}
		case fuse.OpBool:
			for i := range d {
				d[i] = fuse.Bit(a[i] != 0)
			}
		case fuse.OpSelect:
			for i := range d {
				t := a[i]
				mk := -((t | -t) >> 63) // all ones when t != 0
				d[i] = b[i]&mk | c[i]&^mk
			}
		case fuse.OpPopcount:
			for i := range d {
				d[i] = uint64(bits.OnesCount64(a[i]))
			}
		case opPopAndK:
			k := x.imm
			for i := range d {
				d[i] = uint64(bits.OnesCount64(a[i] & k))
			}
		case opXorShrK:
			k := x.imm & 63
			for i := range d {
				d[i] = a[i] ^ a[i]>>k
			}
		case opXorShlK:
			k := x.imm & 63
			for i := range d {
				d[i] = a[i] ^ a[i]<<k
			}
		case opXorShrMul:
			k := x.imm & 63
			for i := range d {
				d[i] = (a[i] ^ a[i]>>k) * b[i]
			}
		case opXorShlMul:
			k := x.imm & 63
			for i := range d {
				d[i] = (a[i] ^ a[i]<<k) * b[i]
			}
		case fuse.OpBsf:
			for i := range d {
				d[i] = uint64(bits.TrailingZeros64(a[i]))
			}
		case fuse.OpBsr:
			for i := range d {
				d[i] = uint64(63 - bits.LeadingZeros64(a[i]))
			}
		case fuse.OpLsb:
			for i := range d {
				d[i] = a[i] & -a[i]
			}
		case fuse.OpRotl:
			if x.imm == 64 {
				for i := range d {
					d[i] = bits.RotateLeft64(a[i], int(b[i]&63))
				}
			} else {
				for i := range d {
					d[i] = fuse.Rotate(a[i], b[i], x.imm)
				}
			}
		case fuse.OpRotr:
			if x.imm == 64 {
				for i := range d {
					d[i] = bits.RotateLeft64(a[i], -int(b[i]&63))
				}
			} else {
				for i := range d {
					d[i] = fuse.Rotate(a[i], -b[i], x.imm)
				}
			}
		case fuse.OpReverse:
			s := 64 - x.imm
			for i := range d {
				d[i] = bits.Reverse64(a[i]) >> s
			}
		case fuse.OpSwapBytes:
			s := 64 - x.imm
			for i := range d {
				d[i] = bits.ReverseBytes64(a[i]) >> s
			}
		case fuse.OpPdep:
			for i := range d {
				d[i] = bitops.Pdep(a[i], b[i])
			}
		case fuse.OpPext:
			for i := range d {
				d[i] = bitops.Pext(a[i], b[i])
			}
		case fuse.OpParity:
			for i := range d {
				d[i] = uint64(bits.OnesCount64(a[i]) & 1)
			}
		case fuse.OpGray:
			for i := range d {
				d[i] = a[i] ^ a[i]>>1
			}
		default: // rare ops: the scalar definition
			runScalar(d, a, b, c, x)
		}
	}
	return m.regs[result][:n], lane, check
}

// runScalar runs x, an op without a loop of its own above, lane by lane
// through its meaning in fuse's op table (Op.Meaning) (a, b, c nil beyond the op's arity).
func runScalar(d, a, b, c *[Size]uint64, x *xinstr) {
	f, k := meaning(x.op), x.imm
	for i := range d {
		var av, bv, cv uint64
		if a != nil {
			av = a[i]
		}
		if b != nil {
			bv = b[i]
		}
		if c != nil {
			cv = c[i]
		}
		d[i] = f(av, bv, cv, k)
	}
}

// countTail is set when the program ends by comparing a value with a
// constant (popcount(...) == 3): count runs the code before that
// comparison and counts the comparison's true results in the same pass.
type countTail struct {
	op  fuse.Op
	a   int32 // the compared register
	k   uint64
	pre []xinstr
}

// countCmp counts the lanes of a (the first n) for which "a op k" holds.
func countCmp(op fuse.Op, a []uint64, k uint64) uint64 {
	var c uint64
	switch op {
	case fuse.OpEq:
		for _, v := range a {
			c += fuse.Bit(v == k)
		}
	case fuse.OpNe:
		for _, v := range a {
			c += fuse.Bit(v != k)
		}
	case fuse.OpLt:
		for _, v := range a {
			c += fuse.Bit(v < k)
		}
	case fuse.OpLe:
		for _, v := range a {
			c += fuse.Bit(v <= k)
		}
	case fuse.OpGt:
		for _, v := range a {
			c += fuse.Bit(v > k)
		}
	case fuse.OpGe:
		for _, v := range a {
			c += fuse.Bit(v >= k)
		}
	}
	return c
}

// runImm runs a binary op whose operand b is a constant: x.imm, or x.m
// for the xorshift-multiply ops.
func runImm(d, a *[Size]uint64, x *xinstr) {
	// One nil check here, not one per loop iteration below.
	_, _ = d[0], a[0]
	k := x.imm
	switch x.op {
	case fuse.OpAdd:
		for i := range d {
			d[i] = a[i] + k
		}
	case fuse.OpSub:
		for i := range d {
			d[i] = a[i] - k
		}
	case fuse.OpMul:
		for i := range d {
			d[i] = a[i] * k
		}
	case fuse.OpAnd:
		for i := range d {
			d[i] = a[i] & k
		}
	case fuse.OpOr:
		for i := range d {
			d[i] = a[i] | k
		}
	case fuse.OpXor:
		for i := range d {
			d[i] = a[i] ^ k
		}
	case fuse.OpShl:
		if k >= 64 {
			clear(d[:])
			return
		}
		for i := range d {
			d[i] = a[i] << k
		}
	case fuse.OpShr:
		if k >= 64 {
			clear(d[:])
			return
		}
		for i := range d {
			d[i] = a[i] >> k
		}
	case fuse.OpEq:
		for i := range d {
			d[i] = fuse.Bit(a[i] == k)
		}
	case fuse.OpNe:
		for i := range d {
			d[i] = fuse.Bit(a[i] != k)
		}
	case fuse.OpLt:
		for i := range d {
			d[i] = fuse.Bit(a[i] < k)
		}
	case fuse.OpLe:
		for i := range d {
			d[i] = fuse.Bit(a[i] <= k)
		}
	case fuse.OpGt:
		for i := range d {
			d[i] = fuse.Bit(a[i] > k)
		}
	case fuse.OpGe:
		for i := range d {
			d[i] = fuse.Bit(a[i] >= k)
		}
	case opXorShrMul:
		xorShrMulK(d, a, k, x.m)
	case opXorShlMul:
		xorShlMulK(d, a, k, x.m)
	}
}

// The xorshift-multiply kernels are functions of their own, not inlined:
// their shift count then arrives in CX, where a variable shift wants it on
// amd64 (GOAMD64=v1), instead of being swapped with the loop's registers on
// every word.

// xorShrMulK sets d[i] = (a[i] ^ a[i]>>s) * m, s < 64.
//
//go:noinline
func xorShrMulK(d, a *[Size]uint64, s, m uint64) {
	s &= 63
	_, _ = d[0], a[0]
	for i := 0; i < Size; i += 4 {
		dd, aa := (*[4]uint64)(d[i:]), (*[4]uint64)(a[i:])
		dd[0] = (aa[0] ^ aa[0]>>s) * m
		dd[1] = (aa[1] ^ aa[1]>>s) * m
		dd[2] = (aa[2] ^ aa[2]>>s) * m
		dd[3] = (aa[3] ^ aa[3]>>s) * m
	}
}

// xorShlMulK sets d[i] = (a[i] ^ a[i]<<s) * m, s < 64.
//
//go:noinline
func xorShlMulK(d, a *[Size]uint64, s, m uint64) {
	s &= 63
	_, _ = d[0], a[0]
	for i := range d {
		d[i] = (a[i] ^ a[i]<<s) * m
	}
}

// check returns the first lane below limit (all lanes when limit < 0) that
// executes x and fails it, or -1.
func (m *machine) check(x *xinstr, n, limit int) int {
	if limit >= 0 {
		n = limit
	}
	c := &m.pl.prog.Checks[x.imm]
	a := m.regs[x.a][:n]
	var mask, b []uint64
	if x.c >= 0 {
		mask = m.regs[x.c][:n]
	}
	if x.b >= 0 {
		b = m.regs[x.b][:n]
	}
	for i := range a {
		if mask != nil && mask[i] == 0 {
			continue
		}
		var bv uint64
		if b != nil {
			bv = b[i]
		}
		if !fuse.CheckOK(c.Kind, a[i], bv, c.Imm) {
			return i
		}
	}
	return -1
}
