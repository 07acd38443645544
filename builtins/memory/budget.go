// Package memory is bitsh's memory budget: the heap as the budget counts
// it, the address space left under ulimit -v, the default budget, the
// check a builtin makes before it allocates (Budget), the watchdog that
// stops a run whose heap outgrows its budget (Watch), and sizes as
// -max-memory writes them. It imports no Starlark: package builtins keeps
// each thread's Budget in its run environment, interp and cmd/bitsh set
// the budget and watch the run.
package memory

import (
	"fmt"
	"math"
	"runtime/metrics"
	"strconv"
	"strings"
)

// A Budget is one thread's memory budget and its allowance: the bytes
// Check may still grant without reading the heap, a fraction of the room
// the last reading found. A thread runs on one goroutine at a time, so the
// allowance needs no lock.
type Budget struct {
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

// NewBudget returns a budget of limit bytes (0 or less: none).
func NewBudget(limit int64) Budget { return Budget{limit: max(limit, 0)} }

// Limit returns the budget in bytes (0: none).
func (b *Budget) Limit() int64 { return b.limit }

// Check reports an error naming fn when allocating bytes more bytes would
// exceed the budget (docs/words.md): the heap and the memory held outside
// it (InUse) with bytes more. Without a budget it returns nil.
//
// Small requests are cheap: after reading the heap, Check grants without
// reading again up to an eighth of the room it found (at most 4 MiB in
// all), so that list(p) of a few items does not pay for a reading.
func (b *Budget) Check(fn string, bytes int64) error {
	if b.limit <= 0 {
		return nil
	}
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
	// that garbage alone never fails a request. Memory held outside the
	// heap (machine code, its workers) counts either way.
	inUse := InUse()
	if inUse+bytes > limit {
		if inUse = heapLive() + OutsideBytes(); inUse+bytes > limit {
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

// addressCheckBytes is the least request Check compares with the
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
		fn, FormatSize(limit), FormatSize(bytes), FormatSize(InUse()))
}

// AllocSize returns n * size, or -1 when the product overflows int64, for
// Check's bytes argument.
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

// ParseSize reads a memory size as -max-memory takes it: a number of
// bytes with an optional binary unit K, M, G or T (KB, KiB... and any case
// are accepted too), such as 512M, 2G or 1.5G; 0 or "none" means no
// budget.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	if t == "NONE" || t == "OFF" {
		return 0, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	scale := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			scale = math.Ldexp(1, 10*(i+1))
			t = t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("bad size %q (want a number with an optional unit K, M, G or T, such as 512M)", s)
	}
	v := f * scale
	if v >= math.Ldexp(1, 63) {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}
