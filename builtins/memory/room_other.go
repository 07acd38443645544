//go:build !linux

package memory

// AddressSpaceRoom returns -1: the address space left under a limit is
// read on Linux only.
func AddressSpaceRoom() int64 { return -1 }
