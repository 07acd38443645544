package native

import (
	"errors"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/memory"
)

// The memory mappings this package holds: each program's machine code and
// each worker's memory is a mapping of its own, and Linux refuses a
// process more than vm.max_map_count of them (65,530 by default), after
// which the Go runtime itself dies when it next maps memory (a heap
// arena, a thread's stack). So the package holds at most mapLimit: past
// it, CompileWith's Auto runs a function on the evaluator (WebAssembly
// would map its code too), AMD64 fails (a plain function stays
// interpreted), and a worker's memory comes from Go's heap. Unmapping
// gives the mapping back (Close, or the collector's cleanup of a program
// or worker no longer reachable).
//
// The count, and the bytes (memory.AddOutside), are the process's, as the
// kernel's limit is: atomic, for interpreters running in parallel.
var (
	mapped   atomic.Int64
	mapLimit atomic.Int64
)

// defaultMapLimit leaves three quarters of Linux's default limit to the Go
// runtime, the libraries, wazero and the GPU driver.
const defaultMapLimit = 16384

func init() { mapLimit.Store(defaultMapLimit) }

// errMappings is the error of a mapping past mapLimit.
var errMappings = errors.New("too many memory mappings held for machine code")

// takeMapping counts one more mapping of bytes, or fails past mapLimit.
func takeMapping(bytes int) error {
	if mapped.Add(1) > mapLimit.Load() {
		mapped.Add(-1)
		return errMappings
	}
	memory.AddOutside(int64(bytes))
	return nil
}

// giveMapping counts a mapping of bytes given back.
func giveMapping(bytes int) {
	mapped.Add(-1)
	memory.AddOutside(-int64(bytes))
}

// Mappings returns how many memory mappings the package holds now.
func Mappings() int { return int(mapped.Load()) }

// LimitMappings sets the most mappings the package holds (n < 1: the
// default) and returns the function that restores the limit before. It is
// a knob for tests, which reach the limit without making tens of
// thousands of mappings; the limit is the process's.
func LimitMappings(n int) (restore func()) {
	if n < 1 {
		n = defaultMapLimit
	}
	old := mapLimit.Swap(int64(n))
	return func() { mapLimit.Store(old) }
}
