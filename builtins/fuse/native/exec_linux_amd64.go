//go:build linux && amd64

package native

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// jitCall runs the machine code at code with RDI = mem; it saves and
// restores the registers Go keeps fixed (R14, R15; the code leaves RBP and
// RSP alone). See trampoline_amd64.s.
//
//go:noescape
func jitCall(code, mem uintptr)

// amd64Ready reports why this machine cannot run the amd64 engine's code
// (nil when it can): it needs BMI1, BMI2 and POPCNT (every x86-64 CPU since
// 2013 has them).
func amd64Ready() error {
	if !cpu.X86.HasBMI1 || !cpu.X86.HasBMI2 || !cpu.X86.HasPOPCNT {
		return errors.New("amd64: the CPU lacks BMI1, BMI2 or POPCNT")
	}
	return nil
}

// execMemory maps code into memory that can run and not be written: one
// mapping, counted (takeMapping), which fails past the package's limit.
func execMemory(code []byte) ([]byte, error) {
	page := os.Getpagesize()
	n := (len(code) + page - 1) / page * page
	if err := takeMapping(n); err != nil {
		return nil, err
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		giveMapping(n)
		return nil, err
	}
	copy(b, code)
	if err := syscall.Mprotect(b, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		freeExecMemory(b)
		return nil, err
	}
	return b, nil
}

func freeExecMemory(b []byte) {
	if syscall.Munmap(b) == nil {
		giveMapping(len(b))
	}
}

// workerMemory returns n words of zeros for a worker, mapped from the
// kernel rather than the Go heap: a page costs nothing until the code
// writes it (the frames of a deep recursion are mostly never touched) and
// nothing clears memory a previous worker used. free unmaps it. Past the
// package's limit of mappings (takeMapping) the words come from Go's heap.
func workerMemory(n int) (words []uint64, free func(), err error) {
	if takeMapping(8*n) != nil {
		return heapWords(n), func() {}, nil
	}
	b, err := syscall.Mmap(-1, 0, 8*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		giveMapping(8 * n)
		return nil, nil, err
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), func() {
		if syscall.Munmap(b) == nil {
			giveMapping(len(b))
		}
	}, nil
}

// heapWords returns n words of zeros on Go's heap, starting at an address
// that is a multiple of 64 as a mapping's would (the layout aligns to 64).
// The words hold no pointers, and Go's heap does not move its objects.
func heapWords(n int) []uint64 {
	w := make([]uint64, n+8)
	skip := (64 - int(uintptr(unsafe.Pointer(&w[0]))%64)) % 64 / 8
	return w[skip : skip+n : skip+n]
}

// callCode runs code on the memory mem. It is not inlined so that its
// prologue, which checks the stack, is a point where the Go scheduler can
// preempt the goroutine every time the code comes back to be polled:
// neither the trampoline nor a poll function (a leaf, so without a
// prologue) is one, and the code itself cannot be preempted, so without it
// a worker looping forever would keep its thread from every other
// goroutine (the one that watches the context above all) for seconds.
//
//go:noinline
func callCode(code []byte, mem []uint64) {
	jitCall(uintptr(unsafe.Pointer(&code[0])), uintptr(unsafe.Pointer(&mem[0])))
	runtime.KeepAlive(code)
	runtime.KeepAlive(mem)
}
