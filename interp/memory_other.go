//go:build !linux

package interp

// addressSpaceRoom returns -1: the address space left under a limit is
// read on Linux only.
func addressSpaceRoom() int64 { return -1 }

// DefaultMemoryBudget returns 0 (no budget): the memory available is read
// on Linux only.
func DefaultMemoryBudget() int64 { return 0 }
