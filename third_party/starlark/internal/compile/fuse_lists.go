package compile

import "math/big"

// Fused instructions for list stores, global lists and range loops (bitsh
// fork; the interpreter's cases are in starlark/interp.go). As the
// others (see FusedLocalLocal), each replaces the decoded entry of the
// first instruction of its sequence, with the sequence's total length;
// the other instructions keep their entries, and where the operands are
// not what the fused instruction computes inline the interpreter runs the
// first instruction as written. The operand x is in bits 16-31 of the
// entry; the loads' operands are below 2^16. They sit apart from the first
// fused opcodes, so that either list may grow.
const (
	// FusedStoreIndex is x[y] = v with v on the stack: LOCAL<x&0x7f> (or
	// GLOBAL<x&0x7f> where x&0x100 is set) EXCH LOCAL<arg> (or
	// CONSTANT<arg> where x&0x200 is set) EXCH SETINDEX.
	FusedStoreIndex Opcode = 0x70 + iota
	// FusedGlobalIndex is g[y]: GLOBAL<x&0x7f> LOCAL<arg> (or
	// CONSTANT<arg> where x&0x200 is set) INDEX.
	FusedGlobalIndex
	// FusedIterSetlocal is ITERJMP<arg> SETLOCAL<x&0xff>, the ITERJMP's
	// length (with its padding) x>>8: the head of a for loop over one
	// name.
	FusedIterSetlocal
	// FusedWideOp is x * y or x << y, then + z or >> z: op<x&0xff>
	// GLOBAL<arg> op2<x>>10> (CONSTANT<arg> where x>>8&3 is 1, LOCAL<arg>
	// where 2), computed on 128 bits without the product's object (a
	// multiply-add-shift hash, (A * x + B) >> 32). The operator's operands
	// are on the stack; the loads before it are not fused with it, as for
	// FusedMaskedOp.
	FusedWideOp
	// FusedLoadStoreIndex is x[y] = v with v loaded: LOCAL<v> (CONSTANT,
	// UNIVERSAL, GLOBAL where x>>10&3 is 1, 2, 3; its length x>>12) then a
	// FusedStoreIndex's sequence, whose x&0x3ff is this x&0x3ff; y's
	// operand in bits 0-15 of arg, v's in bits 16-31.
	FusedLoadStoreIndex
	// FusedDup2Index is x[y] read for x[y] op= v: LOCAL<x&0x7f> (or
	// GLOBAL<x&0x7f> where x&0x100 is set) LOCAL<arg> (or CONSTANT<arg>
	// where x&0x200 is set) DUP2 INDEX.
	FusedDup2Index
	// FusedRangeStore is a FusedIterSetlocal (same operands) whose loop
	// body is one FusedLoadStoreIndex indexed by the loop's name, then the
	// JMP back: for j in ...: x[j] = v. Over a range, the interpreter may
	// run many iterations at once (lists_fast.go, rangeStores).
	FusedRangeStore
	// FusedGlobalIndexOp is v op g[y], v on the stack: a FusedGlobalIndex's
	// sequence then AMP, PIPE or CIRCUMFLEX (x>>10), its operands as
	// FusedGlobalIndex's: h ^= ZOBRIST[sq], state[0] & pow2[vtx].
	FusedGlobalIndexOp
)

// wideOperand reports whether op2 with the operand that load (GLOBAL,
// CONSTANT or LOCAL) pushes, after a product or a left shift, makes a
// FusedWideOp: + of a global or of a constant beyond int32 (words: a
// small-int x * 8 + y keeps its fused int32 loads), >> of a global or of a
// constant of 32 or more (the high half of a product).
func wideOperand(load Opcode, arg uint32, op2 Opcode, constants []any) bool {
	if op2 != PLUS && op2 != GTGT {
		return false
	}
	switch load {
	case GLOBAL:
		return true
	case CONSTANT:
		switch c := constants[arg].(type) {
		case int64:
			if op2 == PLUS {
				return c > 1<<31-1
			}
			return 32 <= c && c < 128
		case *big.Int:
			return op2 == PLUS && c.Sign() > 0 && c.BitLen() <= 64
		}
	}
	return false
}

// fuseLists rewrites in d the entries of the sequences of FusedStoreIndex,
// FusedGlobalIndex and FusedIterSetlocal, reading the plain entries.
func fuseLists(d, plain []uint64) {
	get := func(pc int) (op Opcode, n int, arg uint32, ok bool) {
		if pc >= len(plain) {
			return 0, 0, 0, false
		}
		w := plain[pc]
		n = int(w>>8) & 0xff
		return Opcode(w), n, uint32(w >> 32), n != 0
	}
	word := func(op Opcode, n int, x, arg uint32) uint64 {
		return uint64(op) | uint64(n)<<8 | uint64(x)<<16 | uint64(arg)<<32
	}
	for pc := range plain {
		op1, n1, a1, ok := get(pc)
		if !ok || uint64(Opcode(d[pc])) != uint64(op1) {
			continue // not an instruction's start, or fused already
		}
		op2, n2, a2, ok := get(pc + n1)
		if !ok {
			continue
		}
		switch {
		case op1 == ITERJMP && op2 == SETLOCAL && a2 < 0x100 && n1+n2 < 0x100:
			d[pc] = word(FusedIterSetlocal, n1+n2, a2|uint32(n1)<<8, a1)

		case (op1 == LOCAL || op1 == GLOBAL) && n1 == 2 && op2 == EXCH:
			op3, n3, a3, ok := get(pc + n1 + n2)
			if !ok || op3 != LOCAL && op3 != CONSTANT || a3 >= 1<<16 {
				continue
			}
			op4, n4, _, ok := get(pc + n1 + n2 + n3)
			if !ok || op4 != EXCH {
				continue
			}
			op5, n5, _, ok := get(pc + n1 + n2 + n3 + n4)
			if !ok || op5 != SETINDEX || n1+n2+n3+n4+n5 >= 0x100 {
				continue
			}
			x := a1
			if op1 == GLOBAL {
				x |= 0x100
			}
			if op3 == CONSTANT {
				x |= 0x200
			}
			d[pc] = word(FusedStoreIndex, n1+n2+n3+n4+n5, x, a3)

		case op1 == GLOBAL && n1 == 2 && (op2 == LOCAL || op2 == CONSTANT) && a2 < 1<<16:
			op3, n3, _, ok := get(pc + n1 + n2)
			if !ok || op3 != INDEX || n1+n2+n3 >= 0x100 {
				continue
			}
			x := a1
			if op2 == CONSTANT {
				x |= 0x200
			}
			d[pc] = word(FusedGlobalIndex, n1+n2+n3, x, a2)
			if op4, n4, _, ok := get(pc + n1 + n2 + n3); ok && (op4 == AMP || op4 == PIPE || op4 == CIRCUMFLEX) {
				d[pc] = word(FusedGlobalIndexOp, n1+n2+n3+n4, x|uint32(op4)<<10, a2)
			}
		}
	}
	// x[y] op= v, x and y loaded: state[0] ^= pow2[vtx]. The first load
	// may have been fused with the second (FusedLocalLocal).
	for pc := range plain {
		op1, n1, a1, ok := get(pc)
		if !ok || op1 != LOCAL && op1 != GLOBAL || n1 != 2 {
			continue
		}
		op2, n2, a2, ok := get(pc + n1)
		if !ok || op2 != LOCAL && op2 != CONSTANT || a2 >= 1<<16 {
			continue
		}
		op3, n3, _, ok := get(pc + n1 + n2)
		if !ok || op3 != DUP2 {
			continue
		}
		op4, n4, _, ok := get(pc + n1 + n2 + n3)
		if !ok || op4 != INDEX || n1+n2+n3+n4 >= 0x100 {
			continue
		}
		x := a1
		if op1 == GLOBAL {
			x |= 0x100
		}
		if op2 == CONSTANT {
			x |= 0x200
		}
		d[pc] = word(FusedDup2Index, n1+n2+n3+n4, x, a2)
	}
	// A load of the value before a FusedStoreIndex: is_p[j] = False.
	loads := map[Opcode]uint32{LOCAL: 0, CONSTANT: 1, UNIVERSAL: 2, GLOBAL: 3}
	for pc := range plain {
		op1, n1, a1, ok := get(pc)
		kind, load := loads[op1]
		if !ok || !load || a1 >= 1<<16 || pc+n1 >= len(d) {
			continue
		}
		s := d[pc+n1]
		n := n1 + int(s>>8&0xff)
		if Opcode(s) != FusedStoreIndex || s>>32 >= 1<<16 || n >= 0x100 {
			continue
		}
		x := uint32(s>>16)&0x3ff | kind<<10 | uint32(n1)<<12
		d[pc] = word(FusedLoadStoreIndex, n, x, uint32(s>>32)|a1<<16)
	}
	rangeStoreLoops(d)
}

// rangeStoreLoops marks in d the FusedIterSetlocal entries of loops whose
// body is one FusedLoadStoreIndex whose index is the loop's local, then a
// JMP back to the loop's head: FusedRangeStore.
func rangeStoreLoops(d []uint64) {
	for pc, w := range d {
		if Opcode(w) != FusedIterSetlocal {
			continue
		}
		local := uint32(w>>16) & 0xff
		body := pc + int(w>>8&0xff)
		if body >= len(d) {
			continue
		}
		s := d[body]
		jmp := body + int(s>>8&0xff)
		if Opcode(s) != FusedLoadStoreIndex || s>>16&0x200 != 0 || uint32(s>>32)&0xffff != local || jmp >= len(d) {
			continue
		}
		if j := d[jmp]; Opcode(j) != JMP || uint32(j>>32) != uint32(pc) {
			continue
		}
		d[pc] = w&^0xff | uint64(FusedRangeStore)
	}
}
