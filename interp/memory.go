package interp

import (
	"context"

	"github.com/bitsh/bitsh/builtins/memory"
)

// WithMaxMemory gives each run a memory budget of n bytes (0: none). The
// budget counts the heap and the memory the process holds outside it for
// its runs (memory.InUse: the machine code of fused and plain functions
// and their workers' memory, of every interpreter of the process). A
// watchdog samples that sum every few milliseconds while the run lasts
// and cancels it with a *memory.LimitError as cause when it goes over n;
// collecting builtins, word arrays, new workers and the tables copied
// into machine code refuse, before allocating, a result that would not
// fit (builtins.CheckAlloc, memory.Budget). Source files are read up to
// a quarter of n (ReadSource).
//
// Under an address-space limit (ulimit -v, RLIMIT_AS; read on Linux) the
// watchdog also stops a run whose heap holds more than half the budget
// when the address space left could not take as much again plus one of
// Go's 64 MiB heap arenas: a single step of the interpreter (a dict
// doubling its table, a list growing) can allocate that much at once,
// before any sample, and running out of address space kills a Go program
// instead of failing the allocation. So under a limit tighter than about
// two and a half budgets above what the process has already reserved, a
// run may be stopped between half its budget and the budget; a run that
// stays under half its budget never is.
//
// Go cannot attribute memory to a goroutine, so the budget bounds the
// whole process's heap and what it holds outside it: interpreters running
// in parallel each compare the same sum with their own budget. The option does not touch the garbage
// collector, which is process-wide; a program that sets
// debug.SetMemoryLimit(n) as well (the bitsh command does) makes the
// collector work harder as the heap nears the budget and lets the
// watchdog decide without collecting itself.
func WithMaxMemory(n int64) Option { return func(in *Interp) { in.maxMemory = max(n, 0) } }

// MaxMemory returns the interpreter's memory budget in bytes (0: none).
func (in *Interp) MaxMemory() int64 { return in.maxMemory }

// watchMemory returns ctx watched for the interpreter's budget (unless
// memory.Watch already watches it for that budget or a smaller one), and
// the function that ends the watch.
func (in *Interp) watchMemory(ctx context.Context) (context.Context, func()) {
	if w, ok := memory.Watched(ctx); ok && w <= in.maxMemory {
		return ctx, func() {}
	}
	return memory.Watch(ctx, in.maxMemory)
}
