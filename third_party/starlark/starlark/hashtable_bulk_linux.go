// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

//go:build linux

package starlark

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel for transparent huge pages for the whole
// 2 MiB blocks of table, a table just made and not yet written: where the
// system gives them only to memory that asks (the common setting,
// /sys/kernel/mm/transparent_hugepage/enabled at "madvise"), a table of
// tens of megabytes otherwise takes a page fault every 4 KiB, and its
// inserts, in their keys' random order, a TLB miss each. The advice
// changes no content, and the kernel may ignore it (an error is ignored).
func adviseHuge(table []bucket) {
	const huge = 2 << 20
	size := uintptr(len(table)) * unsafe.Sizeof(bucket{})
	if size < 2*huge {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(table)))
	start := (base + huge - 1) &^ (huge - 1)
	end := (base + size) &^ (huge - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(table))), size)
	syscall.Madvise(b[start-base:end-base], syscall.MADV_HUGEPAGE)
}
