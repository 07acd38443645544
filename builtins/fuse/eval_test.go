package fuse

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

func TestEvalOps(t *testing.T) {
	cases := []struct {
		op      Op
		a, b, c uint64
		imm     uint64
		want    uint64
	}{
		{OpShl, 1, 64, 0, 0, 0},
		{OpShl, 1, 63, 0, 0, 1 << 63},
		{OpShr, 1 << 63, 200, 0, 0, 0},
		{OpSub, 0, 1, 0, 0, ^uint64(0)},
		{OpDiv, 7, 0, 0, 0, 0},
		{OpMod, 7, 3, 0, 0, 1},
		{OpRotl, 0x81, 1, 0, 8, 0x03},
		{OpRotr, 0x81, 1, 0, 8, 0xc0},
		{OpRotl, 1, ^uint64(0), 0, 64, 1 << 63}, // k = -1
		{OpReverse, 1, 0, 0, 16, 0x8000},
		{OpSwapBytes, 0x1234, 0, 0, 16, 0x3412},
		{OpPdep, 0b101, 0xf0, 0, 0, 0x50},
		{OpPext, 0x50, 0xf0, 0, 0, 0b101},
		{OpDeltaSwap, 0b01, 0b01, 1, 0, 0b10},
		{OpGrayInv, 0b110, 0, 0, 0, 0b100},
		{OpGray, 0b100, 0, 0, 0, 0b110},
		{OpBsr, 0, 0, 0, 0, ^uint64(0)},
		{OpSelect, 2, 5, 6, 0, 5},
		{OpSelect, 0, 5, 6, 0, 6},
	}
	for _, c := range cases {
		if got := Eval1(Instr{Op: c.op, Imm: c.imm}, c.a, c.b, c.c); got != c.want {
			t.Errorf("%s(%#x, %#x, %#x; %d) = %#x, want %#x", c.op, c.a, c.b, c.c, c.imm, got, c.want)
		}
	}
	for i := 0; i < 1000; i++ {
		x, m := rand.Uint64(), rand.Uint64()
		if Eval1(Instr{Op: OpPext}, Eval1(Instr{Op: OpPdep}, x, m, 0), m, 0) != x&(uint64(1)<<bits.OnesCount64(m)-1) && bits.OnesCount64(m) < 64 {
			t.Fatalf("pext(pdep(%#x, %#x)) wrong", x, m)
		}
		if g := Eval1(Instr{Op: OpGrayInv}, Eval1(Instr{Op: OpGray}, x, 0, 0), 0, 0); g != x {
			t.Fatalf("gray_inverse(gray(%#x)) = %#x", x, g)
		}
	}
}
