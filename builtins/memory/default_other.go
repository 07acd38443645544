//go:build !linux

package memory

// DefaultBudget returns 0 (no budget): the memory available is read
// on Linux only.
func DefaultBudget() int64 { return 0 }
