//go:build !linux

package interp

// DefaultMemoryBudget returns 0 (no budget): the memory available is read
// on Linux only.
func DefaultMemoryBudget() int64 { return 0 }
