package native

import (
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestEncodings decodes what the assembler emits with golang.org/x/arch's
// disassembler: every instruction form the amd64 engine uses, over the
// registers whose encodings differ (REX.B/R/X, RSP/R12 as a base needs a
// SIB byte, RBP/R13 a displacement, SIL/DIL a REX prefix).
func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		emit func(a *assembler)
		want string
	}{
		{func(a *assembler) { a.movRR(rBX, r9) }, "mov rbx, r9"},
		{func(a *assembler) { a.movRR(r13, rSI) }, "mov r13, rsi"},
		{func(a *assembler) { a.movRI(rCX, 0) }, "xor ecx, ecx"},
		{func(a *assembler) { a.movRI(r10, 0x10000) }, "mov r10d, 0x10000"},
		{func(a *assembler) { a.movRI(rAX, ^uint64(0)) }, "mov rax, -0x1"},
		{func(a *assembler) { a.movRI(r15, 0xbf58476d1ce4e5b9) }, "mov r15, 0xbf58476d1ce4e5b9"},
		{func(a *assembler) { a.load(rAX, at(rDI, 0x10)) }, "mov rax, qword ptr [rdi+0x10]"},
		{func(a *assembler) { a.load(r11, at(rDI, 0x24040)) }, "mov r11, qword ptr [rdi+0x24040]"},
		{func(a *assembler) { a.load(rAX, at(r12, 0)) }, "mov rax, qword ptr [r12]"},
		{func(a *assembler) { a.load(rAX, at(r13, 0)) }, "mov rax, qword ptr [r13]"},
		{func(a *assembler) { a.load(rAX, at(rBP, -8)) }, "mov rax, qword ptr [rbp-0x8]"},
		{func(a *assembler) { a.load(r9, indexed(rDI, r12, 8, 0x40)) }, "mov r9, qword ptr [rdi+8*r12+0x40]"},
		{func(a *assembler) { a.load(rSI, indexed(r13, r14, 8, 0)) }, "mov rsi, qword ptr [r13+8*r14]"},
		{func(a *assembler) { a.load32(rDX, indexed(rDI, rCX, 8, 0x104)) }, "mov edx, dword ptr [rdi+8*rcx+0x104]"},
		{func(a *assembler) { a.store(indexed(rDI, rAX, 8, 0x8040), rDX) }, "mov qword ptr [rdi+8*rax+0x8040], rdx"},
		{func(a *assembler) { a.store32I(at(rDI, 4), 5) }, "mov dword ptr [rdi+0x4], 0x5"},
		{func(a *assembler) { a.storeI(at(rDI, 8), -1) }, "mov qword ptr [rdi+0x8], -0x1"},
		{func(a *assembler) { a.lea(rAX, at(r11, -1)) }, "lea rax, ptr [r11-0x1]"},
		{func(a *assembler) { a.alu(aluAdd, r8, R(rCX)) }, "add r8, rcx"},
		{func(a *assembler) { a.alu(aluSub, rAX, M(at(rDI, 0x30))) }, "sub rax, qword ptr [rdi+0x30]"},
		{func(a *assembler) { a.alu(aluAnd, r14, R(r15)) }, "and r14, r15"},
		{func(a *assembler) { a.alu(aluOr, rDX, R(r9)) }, "or rdx, r9"},
		{func(a *assembler) { a.alu(aluXor, r13, R(r10)) }, "xor r13, r10"},
		{func(a *assembler) { a.alu(aluCmp, rAX, R(rSI)) }, "cmp rax, rsi"},
		{func(a *assembler) { a.aluI(aluAdd, R(rCX), -1) }, "add rcx, -0x1"},
		{func(a *assembler) { a.aluI(aluCmp, R(r12), 0x400) }, "cmp r12, 0x400"},
		{func(a *assembler) { a.aluI(aluAnd, R(rAX), 0x7fffffff) }, "and rax, 0x7fffffff"},
		{func(a *assembler) { a.aluI(aluSub, M(at(rDI, 0x10)), 1) }, "sub qword ptr [rdi+0x10], 0x1"},
		{func(a *assembler) { a.aluI(aluAdc, M(at(rDI, 0x24060)), 0) }, "adc qword ptr [rdi+0x24060], 0x0"},
		{func(a *assembler) { a.test(r9, r9) }, "test r9, r9"},
		{func(a *assembler) { a.imul(r13, R(rAX)) }, "imul r13, rax"},
		{func(a *assembler) { a.imul(rBX, M(at(rDI, 0x100))) }, "imul rbx, qword ptr [rdi+0x100]"},
		{func(a *assembler) { a.imulI(r8, r8, 3) }, "imul r8, r8, 0x3"},
		{func(a *assembler) { a.shiftI(shShr, r13, 54) }, "shr r13, 0x36"},
		{func(a *assembler) { a.shiftI(shSar, rAX, 63) }, "sar rax, 0x3f"},
		{func(a *assembler) { a.shiftI(shShl, rSI, 4) }, "shl rsi, 0x4"},
		{func(a *assembler) { a.shiftI(shRol, r10, 7) }, "rol r10, 0x7"},
		{func(a *assembler) { a.shiftI(shRor, rBX, 9) }, "ror rbx, 0x9"},
		{func(a *assembler) { a.not(r11) }, "not r11"},
		{func(a *assembler) { a.neg(rAX) }, "neg rax"},
		{func(a *assembler) { a.div(r9) }, "div r9"},
		{func(a *assembler) { a.popcnt(r13, r13) }, "popcnt r13, r13"},
		{func(a *assembler) { a.tzcnt(rAX, rCX) }, "tzcnt rax, rcx"},
		{func(a *assembler) { a.lzcnt(rDX, r8) }, "lzcnt rdx, r8"},
		{func(a *assembler) { a.bswap(r12) }, "bswap r12"},
		{func(a *assembler) { a.setcc(ccB, rSI) }, "setb sil; movzx esi, sil"},
		{func(a *assembler) { a.setcc(ccE, r10) }, "setz r10b; movzx r10d, r10b"},
		{func(a *assembler) { a.cmov(ccNE, r13, rDX) }, "cmovnz r13, rdx"},
		{func(a *assembler) { a.cmov(ccAE, rBX, rAX) }, "cmovnb rbx, rax"},
		{func(a *assembler) { a.jmpR(rAX) }, "jmp rax"},
		{func(a *assembler) { a.ret() }, "ret"},
		{func(a *assembler) { a.shlx(rDX, rAX, r9) }, "shlx rdx, rax, r9"},
		{func(a *assembler) { a.shrx(r13, r13, rCX) }, "shrx r13, r13, rcx"},
		{func(a *assembler) { a.sarx(rAX, r8, r15) }, "sarx rax, r8, r15"},
		{func(a *assembler) { a.pdep(r12, rAX, rSI) }, "pdep r12, rax, rsi"},
		{func(a *assembler) { a.pext(rDX, r10, r11) }, "pext rdx, r10, r11"},
		{func(a *assembler) { a.lowBit(blsr, rSI, rSI) }, "blsr rsi, rsi"},
		{func(a *assembler) { a.lowBit(blsmsk, r9, rAX) }, "blsmsk r9, rax"},
		{func(a *assembler) { a.lowBit(blsi, rDX, r13) }, "blsi rdx, r13"},
	} {
		var a assembler
		tc.emit(&a)
		var got []string
		for b := a.b; len(b) > 0; {
			in, err := x86asm.Decode(b, 64)
			if err != nil {
				t.Fatalf("%q: % x does not decode: %v", tc.want, a.b, err)
			}
			got = append(got, x86asm.IntelSyntax(in, 0, nil))
			b = b[in.Len:]
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("% x is %q; want %q", a.b, g, tc.want)
		}
	}
}

// TestJumps: jumps and leaRIP reach their labels, bound before or after.
func TestJumps(t *testing.T) {
	var a assembler
	back, fwd := a.newLabel(), a.newLabel()
	a.bind(back)
	a.ret()
	a.jcc(ccNE, fwd) // at 1, 6 bytes
	a.jmp(back)      // at 7, 5 bytes
	a.leaRIP(rAX, fwd)
	a.bind(fwd) // at 19
	if err := a.finish(); err != nil {
		t.Fatal(err)
	}
	var got []string
	pc := uint64(0)
	for b := a.b; len(b) > 0; {
		in, err := x86asm.Decode(b, 64)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, x86asm.GNUSyntax(in, pc, nil))
		pc += uint64(in.Len)
		b = b[in.Len:]
	}
	want := "retq; jne 0x13; jmpq 0x0; lea (%rip),%rax"
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("got %q; want %q", g, want)
	}
	var b assembler
	b.jmp(b.newLabel())
	if b.finish() == nil {
		t.Error("a jump to a label never bound finished")
	}
}

// TestAlign: align pads to the boundary with no-ops, whatever the length
// before it.
func TestAlign(t *testing.T) {
	for n := 0; n < 32; n++ {
		var a assembler
		a.b = make([]byte, n)
		a.align(16)
		if len(a.b)%16 != 0 || len(a.b)-n >= 16 {
			t.Fatalf("from %d bytes: %d", n, len(a.b))
		}
		for b := a.b[n:]; len(b) > 0; {
			in, err := x86asm.Decode(b, 64)
			if err != nil || in.Op != x86asm.NOP {
				t.Fatalf("from %d bytes: % x is not a no-op (%v, %v)", n, b, in, err)
			}
			b = b[in.Len:]
		}
	}
}
