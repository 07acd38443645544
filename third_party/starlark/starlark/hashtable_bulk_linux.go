// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

//go:build linux

package starlark

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel for transparent huge pages for the whole
// 2 MiB blocks of the capacity of ents, an array just made whose end is
// not yet written: where the system gives them only to memory that asks
// (the common setting, /sys/kernel/mm/transparent_hugepage/enabled at
// "madvise"), an array of tens of megabytes otherwise takes a page fault
// every 4 KiB as the inserts fill it. The advice
// changes no content, and the kernel may ignore it (an error is ignored).
func adviseHuge(ents []entry) {
	const huge = 2 << 20
	size := uintptr(cap(ents)) * unsafe.Sizeof(entry{})
	if size < 2*huge {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(ents[:cap(ents)])))
	start := (base + huge - 1) &^ (huge - 1)
	end := (base + size) &^ (huge - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ents[:cap(ents)]))), size)
	syscall.Madvise(b[start-base:end-base], syscall.MADV_HUGEPAGE)
}
