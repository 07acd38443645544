//go:build linux

#include "textflag.h"

// func jitCall(code, mem uintptr)
//
// The generated code takes the memory in DI, may change every register
// but SP and BP, and uses no stack beyond its return address.
TEXT ·jitCall(SB), NOSPLIT, $24-16
	MOVQ R14, 0(SP)
	MOVQ R15, 8(SP)
	MOVQ BP, 16(SP)
	MOVQ code+0(FP), AX
	MOVQ mem+8(FP), DI
	CALL AX
	MOVQ 0(SP), R14
	MOVQ 8(SP), R15
	MOVQ 16(SP), BP
	RET
