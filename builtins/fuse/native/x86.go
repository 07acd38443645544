package native

import (
	"encoding/binary"
	"fmt"
)

// This file is a small x86-64 assembler: the instructions the amd64 code
// generator (amd64.go) emits, encoded as the Intel manual (volume 2) gives
// them, with labels for jumps.

// A reg is a general-purpose register, numbered as the encoding does.
type reg uint8

const (
	rAX reg = iota
	rCX
	rDX
	rBX
	rSP
	rBP
	rSI
	rDI
	r8
	r9
	r10
	r11
	r12
	r13
	r14
	r15
)

// A mem is a memory operand: base + index*scale + disp (no index when
// scale is 0).
type mem struct {
	base  reg
	index reg
	scale uint8
	disp  int32
}

// at returns the operand base + disp.
func at(base reg, disp int32) mem { return mem{base: base, disp: disp} }

// indexed returns the operand base + index*scale + disp.
func indexed(base, index reg, scale uint8, disp int32) mem {
	return mem{base: base, index: index, scale: scale, disp: disp}
}

// An rm is the r/m operand of an instruction: a register or memory.
type rm struct {
	isMem bool
	r     reg
	m     mem
}

func R(r reg) rm { return rm{r: r} }
func M(m mem) rm { return rm{isMem: true, m: m} }

// Condition codes.
type cond uint8

const (
	ccB  cond = 0x2 // below (unsigned <)
	ccAE cond = 0x3
	ccE  cond = 0x4
	ccNE cond = 0x5
	ccBE cond = 0x6
	ccA  cond = 0x7
	ccS  cond = 0x8
	ccNS cond = 0x9
	ccL  cond = 0xc // signed <
	ccGE cond = 0xd
	ccLE cond = 0xe
	ccG  cond = 0xf
)

// not returns the opposite condition.
func (c cond) not() cond { return c ^ 1 }

// ALU operations: their /digit in the immediate forms; the register forms
// are 8*digit+1 (r/m, reg) and 8*digit+3 (reg, r/m).
type aluOp uint8

const (
	aluAdd aluOp = 0
	aluOr  aluOp = 1
	aluAdc aluOp = 2
	aluAnd aluOp = 4
	aluSub aluOp = 5
	aluXor aluOp = 6
	aluCmp aluOp = 7
)

// Shifts and rotations by an immediate: their /digit.
type shiftOp uint8

const (
	shRol shiftOp = 0
	shRor shiftOp = 1
	shShl shiftOp = 4
	shShr shiftOp = 5
	shSar shiftOp = 7
)

type fixup struct{ at, label int }

// An assembler accumulates machine code.
type assembler struct {
	b      []byte
	labels []int // each label's offset, -1 until bound
	fixups []fixup
	// The last instruction, where it stored a register (store ends at
	// end), and where a label was last bound: a load of what was just
	// stored, with no label between, takes the register instead.
	stored struct {
		end int
		m   mem
		r   reg
	}
	boundAt int
}

func (a *assembler) newLabel() int {
	a.labels = append(a.labels, -1)
	return len(a.labels) - 1
}

func (a *assembler) bind(l int) {
	a.labels[l] = len(a.b)
	a.boundAt = len(a.b)
}

// align pads the code with no-ops to a multiple of n bytes (a power of
// two, at most 16).
func (a *assembler) align(n int) {
	nops := [][]byte{{}, {0x90}, {0x66, 0x90}, {0x0f, 0x1f, 0x00}, {0x0f, 0x1f, 0x40, 0x00},
		{0x0f, 0x1f, 0x44, 0x00, 0x00}, {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00}, {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}}
	for pad := (n - len(a.b)%n) % n; pad > 0; {
		k := min(pad, 8)
		a.b = append(a.b, nops[k]...)
		pad -= k
	}
}

// finish resolves the jumps to labels.
func (a *assembler) finish() error {
	for _, f := range a.fixups {
		to := a.labels[f.label]
		if to < 0 {
			return fmt.Errorf("amd64: label %d never bound", f.label)
		}
		binary.LittleEndian.PutUint32(a.b[f.at:], uint32(int32(to-(f.at+4))))
	}
	return nil
}

func (a *assembler) u32(v uint32) { a.b = binary.LittleEndian.AppendUint32(a.b, v) }

// rel32 emits a 32-bit offset to label l from the end of the offset.
func (a *assembler) rel32(l int) {
	a.fixups = append(a.fixups, fixup{len(a.b), l})
	a.u32(0)
}

// enc emits prefix (0: none), a REX prefix where needed, the opcode and the
// ModRM (and SIB, displacement) of register field r and operand o. byteRegs
// forces a REX prefix so that registers 4-7 name SPL..DIL, not AH..BH.
func (a *assembler) enc(prefix byte, w bool, opcode []byte, r reg, o rm, byteRegs bool) {
	if prefix != 0 {
		a.b = append(a.b, prefix)
	}
	rex := byte(0x40)
	if w {
		rex |= 8
	}
	if r&8 != 0 {
		rex |= 4
	}
	if o.isMem {
		if o.m.scale != 0 && o.m.index&8 != 0 {
			rex |= 2
		}
		if o.m.base&8 != 0 {
			rex |= 1
		}
	} else if o.r&8 != 0 {
		rex |= 1
	}
	if rex != 0x40 || byteRegs && (!o.isMem && o.r >= 4 || r >= 4) {
		a.b = append(a.b, rex)
	}
	a.b = append(a.b, opcode...)
	if !o.isMem {
		a.b = append(a.b, 0xc0|byte(r&7)<<3|byte(o.r&7))
		return
	}
	m := o.m
	var mod byte
	switch {
	case m.disp == 0 && m.base&7 != 5:
		mod = 0
	case m.disp >= -128 && m.disp <= 127:
		mod = 1
	default:
		mod = 2
	}
	if m.scale == 0 && m.base&7 != 4 {
		a.b = append(a.b, mod<<6|byte(r&7)<<3|byte(m.base&7))
	} else {
		idx, ss := byte(4), byte(0)
		if m.scale != 0 {
			idx = byte(m.index & 7)
			ss = map[uint8]byte{1: 0, 2: 1, 4: 2, 8: 3}[m.scale]
		}
		a.b = append(a.b, mod<<6|byte(r&7)<<3|4, ss<<6|idx<<3|byte(m.base&7))
	}
	switch mod {
	case 1:
		a.b = append(a.b, byte(int8(m.disp)))
	case 2:
		a.u32(uint32(m.disp))
	}
}

// vex emits a VEX-encoded instruction of map 0F38 (the BMI instructions):
// pp selects the implied prefix (0 none, 1 66, 2 F3, 3 F2), r is ModRM.reg,
// v is VEX.vvvv and o is ModRM.r/m (a register).
func (a *assembler) vex(pp byte, opcode byte, r, v, o reg) {
	b1 := byte(0x02) // map 0F38
	if r&8 == 0 {
		b1 |= 0x80
	}
	b1 |= 0x40 // no index
	if o&8 == 0 {
		b1 |= 0x20
	}
	b2 := byte(0x80) | (^byte(v)&15)<<3 | pp // W1, L0
	a.b = append(a.b, 0xc4, b1, b2, opcode, 0xc0|byte(r&7)<<3|byte(o&7))
}

func (a *assembler) movRR(d, s reg) {
	if d != s {
		a.enc(0, true, []byte{0x89}, s, R(d), false)
	}
}

// movRI loads the constant v in its shortest encoding.
func (a *assembler) movRI(d reg, v uint64) {
	switch {
	case v == 0:
		a.enc(0, false, []byte{0x31}, d, R(d), false) // xor d32, d32
	case v <= 0xffffffff:
		if d&8 != 0 {
			a.b = append(a.b, 0x41)
		}
		a.b = append(a.b, 0xb8+byte(d&7))
		a.u32(uint32(v))
	case int64(v) >= -1<<31 && int64(v) < 1<<31:
		a.enc(0, true, []byte{0xc7}, 0, R(d), false)
		a.u32(uint32(v))
	default:
		rex := byte(0x48)
		if d&8 != 0 {
			rex |= 1
		}
		a.b = append(a.b, rex, 0xb8+byte(d&7))
		a.b = binary.LittleEndian.AppendUint64(a.b, v)
	}
}

// load loads d from m; right after a store to m (no label between), it
// takes the register stored instead.
func (a *assembler) load(d reg, m mem) {
	if st := a.stored; st.end == len(a.b) && a.boundAt != len(a.b) && st.m == m && st.end > 0 {
		a.movRR(d, st.r)
		return
	}
	a.enc(0, true, []byte{0x8b}, d, M(m), false)
}

func (a *assembler) load32(d reg, m mem) { a.enc(0, false, []byte{0x8b}, d, M(m), false) }

func (a *assembler) store(m mem, s reg) {
	a.enc(0, true, []byte{0x89}, s, M(m), false)
	if m.base != s && (m.scale == 0 || m.index != s) {
		a.stored.end, a.stored.m, a.stored.r = len(a.b), m, s
	}
}
func (a *assembler) lea(d reg, m mem) { a.enc(0, true, []byte{0x8d}, d, M(m), false) }
func (a *assembler) store32I(m mem, v uint32) {
	a.enc(0, false, []byte{0xc7}, 0, M(m), false)
	a.u32(v)
}

// storeI stores the sign-extended 32-bit constant v.
func (a *assembler) storeI(m mem, v int32) {
	a.enc(0, true, []byte{0xc7}, 0, M(m), false)
	a.u32(uint32(v))
}

// leaRIP loads the address of label l.
func (a *assembler) leaRIP(d reg, l int) {
	rex := byte(0x48)
	if d&8 != 0 {
		rex |= 4
	}
	a.b = append(a.b, rex, 0x8d, byte(d&7)<<3|5)
	a.rel32(l)
}

// alu emits op d, o (d = d op o; cmp only sets the flags).
func (a *assembler) alu(op aluOp, d reg, o rm) {
	a.enc(0, true, []byte{byte(op)*8 + 3}, d, o, false)
}

// aluI emits op o, v with v sign-extended from 32 bits.
func (a *assembler) aluI(op aluOp, o rm, v int32) {
	if v >= -128 && v <= 127 {
		a.enc(0, true, []byte{0x83}, reg(op), o, false)
		a.b = append(a.b, byte(int8(v)))
		return
	}
	a.enc(0, true, []byte{0x81}, reg(op), o, false)
	a.u32(uint32(v))
}

func (a *assembler) test(x, y reg)    { a.enc(0, true, []byte{0x85}, y, R(x), false) }
func (a *assembler) imul(d reg, o rm) { a.enc(0, true, []byte{0x0f, 0xaf}, d, o, false) }
func (a *assembler) imulI(d, s reg, v int32) {
	a.enc(0, true, []byte{0x69}, d, R(s), false)
	a.u32(uint32(v))
}

func (a *assembler) shiftI(op shiftOp, d reg, k uint8) {
	a.enc(0, true, []byte{0xc1}, reg(op), R(d), false)
	a.b = append(a.b, k)
}

func (a *assembler) not(d reg) { a.enc(0, true, []byte{0xf7}, 2, R(d), false) }
func (a *assembler) neg(d reg) { a.enc(0, true, []byte{0xf7}, 3, R(d), false) }

// mul multiplies RAX by s, unsigned: the product in RDX:RAX, CF set where
// RDX is not 0.
func (a *assembler) mul(s reg) { a.enc(0, true, []byte{0xf7}, 4, R(s), false) }

// div divides RDX:RAX by s, unsigned: the quotient in RAX, the remainder
// in RDX.
func (a *assembler) div(s reg) { a.enc(0, true, []byte{0xf7}, 6, R(s), false) }

func (a *assembler) popcnt(d, s reg) { a.enc(0xf3, true, []byte{0x0f, 0xb8}, d, R(s), false) }
func (a *assembler) tzcnt(d, s reg)  { a.enc(0xf3, true, []byte{0x0f, 0xbc}, d, R(s), false) }
func (a *assembler) lzcnt(d, s reg)  { a.enc(0xf3, true, []byte{0x0f, 0xbd}, d, R(s), false) }

func (a *assembler) bswap(d reg) {
	rex := byte(0x48)
	if d&8 != 0 {
		rex |= 1
	}
	a.b = append(a.b, rex, 0x0f, 0xc8+byte(d&7))
}

// setcc sets d to 0 or 1 by condition c (all 64 bits).
func (a *assembler) setcc(c cond, d reg) {
	a.enc(0, false, []byte{0x0f, 0x90 + byte(c)}, 0, R(d), true)
	a.enc(0, false, []byte{0x0f, 0xb6}, d, R(d), true) // movzx d32, d8
}

func (a *assembler) cmov(c cond, d, s reg) {
	a.enc(0, true, []byte{0x0f, 0x40 + byte(c)}, d, R(s), false)
}

func (a *assembler) jcc(c cond, l int) {
	a.b = append(a.b, 0x0f, 0x80+byte(c))
	a.rel32(l)
}

func (a *assembler) jmp(l int) {
	a.b = append(a.b, 0xe9)
	a.rel32(l)
}

// jmpR jumps to the address in r.
func (a *assembler) jmpR(r reg) { a.enc(0, false, []byte{0xff}, 4, R(r), false) }

func (a *assembler) ret() { a.b = append(a.b, 0xc3) }

// callL calls the code at label l.
func (a *assembler) callL(l int) {
	a.b = append(a.b, 0xe8)
	a.rel32(l)
}

// The BMI2 instructions: d = s << n, s >> n (logical, arithmetic), counts
// taken mod 64; pdep and pext of s by the mask m.
func (a *assembler) shlx(d, s, n reg) { a.vex(1, 0xf7, d, n, s) }
func (a *assembler) shrx(d, s, n reg) { a.vex(3, 0xf7, d, n, s) }
func (a *assembler) sarx(d, s, n reg) { a.vex(2, 0xf7, d, n, s) }
func (a *assembler) pdep(d, s, m reg) { a.vex(3, 0xf5, d, s, m) }
func (a *assembler) pext(d, s, m reg) { a.vex(2, 0xf5, d, s, m) }

// lowBit emits one of BMI1's lowest-bit instructions, d = op(s): blsr
// (s & (s - 1)), blsmsk (s ^ (s - 1)) or blsi (s & -s).
func (a *assembler) lowBit(op lowBitOp, d, s reg) { a.vex(0, 0xf3, reg(op), d, s) }

// A lowBitOp selects a lowest-bit instruction by its ModRM.reg extension.
type lowBitOp uint8

const (
	blsr   lowBitOp = 1
	blsmsk lowBitOp = 2
	blsi   lowBitOp = 3
)
