package memory

import "sync/atomic"

// outside counts the bytes the process holds outside Go's heap for the
// runs of its interpreters: the machine code of fused and plain functions
// and their workers' memory (builtins/fuse/native maps both from the
// kernel). Go's heap metrics cannot see them, and the budget bounds the
// process's memory, so every check of the budget adds them to the heap
// reading (InUse). It is one count for the whole process, as the heap is
// one heap: interpreters running in parallel (the shards of bitsh -j)
// each compare the same sum with their budget. An atomic counter, so
// parallel interpreters update it without a lock.
var outside atomic.Int64

// AddOutside records n more bytes held outside Go's heap (n < 0: bytes
// given back). Whoever maps memory for a run calls it when it maps and
// when it unmaps, with the same size.
func AddOutside(n int64) { outside.Add(n) }

// OutsideBytes returns the bytes the process holds outside Go's heap for
// its runs, as AddOutside recorded them.
func OutsideBytes() int64 { return max(outside.Load(), 0) }

// InUse returns what the memory budget counts: the heap's objects
// (HeapBytes) and the bytes held outside the heap (OutsideBytes).
func InUse() int64 { return HeapBytes() + OutsideBytes() }
