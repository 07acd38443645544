package builtins

import (
	"fmt"
	"runtime/metrics"

	"go.starlark.net/starlark"
)

// starlarkAllocCheckKey is the thread-local key under which bitsh's fork
// of go.starlark.net looks for an allocation check to call before +, *,
// += and list.extend allocate a result of more than 1 MiB
// (third_party/starlark/README.bitsh.md). Upstream go.starlark.net ignores
// it: there the watchdog alone stops these operations, after the step.
const starlarkAllocCheckKey = "go.starlark.net/alloc-check"

// checkStarlarkAlloc is the allocation check SetEnv gives
// go.starlark.net: what names the operation ("list + list").
func checkStarlarkAlloc(thread *starlark.Thread, what string, bytes int64) error {
	return CheckAlloc(thread, what, bytes)
}

// MaxMemory returns the budget of thread's Env (0: none).
func MaxMemory(thread *starlark.Thread) int64 {
	if e := envOf(thread); e != nil {
		return e.budget.limit
	}
	return 0
}

// A budget is one thread's memory budget and its allowance: the bytes
// CheckAlloc may still grant without reading the heap, a fraction of the
// room the last reading found. A thread runs on one goroutine at a time,
// so the allowance needs no lock.
type budget struct {
	limit     int64
	allowance int64
}

// Granting without a reading: at most this share of the room the last
// reading found, and at most maxAllowance bytes, before the next reading.
// Reading the heap costs microseconds, so a builtin that collects ten
// items would otherwise spend most of its time there; between readings
// the run's watchdog still samples the whole heap every few milliseconds.
const (
	allowanceShare = 8
	maxAllowance   = 4 << 20
)

// Heap samples: heap objects (live and not yet swept) and the live heap as
// of the last garbage collection. Reading them does not stop the world.
const (
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
	heapLiveMetric    = "/gc/heap/live:bytes"
)

// HeapBytes returns the bytes the process's heap objects occupy now, the
// figure the memory watchdog compares with the budget. Go cannot tell
// which goroutine allocated what, so it counts the whole process.
func HeapBytes() int64 { return readMetric(heapObjectsMetric) }

// heapLive returns the live heap found by the last garbage collection.
func heapLive() int64 { return readMetric(heapLiveMetric) }

// LiveHeapBytes returns the live heap found by the last garbage
// collection: unlike HeapBytes, no garbage, but nothing allocated since.
func LiveHeapBytes() int64 { return heapLive() }

func readMetric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(s[0].Value.Uint64(), 1<<62))
}

// CheckAlloc reports an error naming fn when allocating bytes more bytes
// would exceed the run's memory budget (docs/words.md). Collecting
// builtins and word arrays call it before they allocate, so that a request
// too big for the budget fails as an ordinary Starlark error instead of
// growing the heap until the watchdog (or the operating system) stops it.
// Without a budget it returns nil.
//
// Small requests are cheap: after reading the heap, CheckAlloc grants
// without reading again up to an eighth of the room it found (at most 4
// MiB in all), so that list(p) of a few items does not pay for a reading.
func CheckAlloc(thread *starlark.Thread, fn string, bytes int64) error {
	e := envOf(thread)
	if e == nil || e.budget.limit <= 0 {
		return nil
	}
	b := &e.budget
	limit := b.limit
	if bytes < 0 || bytes > limit {
		return allocError(fn, limit, bytes)
	}
	if bytes <= b.allowance {
		b.allowance -= bytes
		return nil
	}
	// Heap objects include garbage not yet collected; only when that sum is
	// over the budget does the live heap of the last collection decide, so
	// that garbage alone never fails a request.
	inUse := HeapBytes()
	if inUse+bytes > limit {
		if inUse = heapLive(); inUse+bytes > limit {
			b.allowance = 0
			return allocError(fn, limit, bytes)
		}
	}
	// Under an address-space limit (ulimit -v), running out of address
	// space kills a Go program instead of failing the allocation, and a
	// large allocation needs new heap arenas (64 MiB each) when the free
	// pages are too scattered to hold it, whatever the heap holds: a
	// request that fits in the budget is refused when the room left could
	// not take it and one more arena.
	if bytes >= addressCheckBytes {
		if room := AddressSpaceRoom(); room >= 0 && room < bytes+arenaBytes {
			b.allowance = 0
			return fmt.Errorf("%s: memory limit of %s exceeded (the result needs about %s, and only %s of address space is left under ulimit -v)",
				fn, FormatSize(limit), FormatSize(bytes), FormatSize(max(room, 0)))
		}
	}
	b.allowance = min((limit-inUse-bytes)/allowanceShare, maxAllowance)
	return nil
}

// addressCheckBytes is the least request CheckAlloc compares with the
// address space left (AddressSpaceRoom reads /proc, a few microseconds),
// and arenaBytes the unit in which Go's heap reserves address space (a
// heap arena, on 64-bit Linux).
const (
	addressCheckBytes = 1 << 20
	arenaBytes        = 64 << 20
)

func allocError(fn string, limit, bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("%s: memory limit of %s exceeded (the result would need more than 2^63 bytes)", fn, FormatSize(limit))
	}
	return fmt.Errorf("%s: memory limit of %s exceeded (the result needs about %s, with %s in use)",
		fn, FormatSize(limit), FormatSize(bytes), FormatSize(HeapBytes()))
}

// AllocSize returns n * size, or -1 when the product overflows int64, for
// CheckAlloc's bytes argument.
func AllocSize(n, size int64) int64 {
	if n < 0 || size < 0 {
		return -1
	}
	if size != 0 && n > (1<<63-1)/size {
		return -1
	}
	return n * size
}

// FormatSize writes a byte count the way -max-memory reads it, in the
// largest binary unit (K, M, G, T) it reaches: a whole number when exact,
// else with one decimal ("256M", "1.5G", "17").
func FormatSize(n int64) string {
	for i, u := range []string{"T", "G", "M", "K"} {
		scale := int64(1) << (10 * (4 - i))
		if n >= scale {
			if n%scale == 0 {
				return fmt.Sprintf("%d%s", n/scale, u)
			}
			return fmt.Sprintf("%.1f%s", float64(n)/float64(scale), u)
		}
	}
	return fmt.Sprintf("%d", n)
}
