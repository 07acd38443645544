package builtins_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the CPU time of the benchmark's own thread, so that
// figures taken on a shared, loaded machine are not inflated by waiting
// for a core: reportCPU adds it as the metric cpu-ns/op beside ns/op.
type cpuClock struct{ start time.Duration }

func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCPU locks the goroutine to its thread and starts the clock.
func startCPU() cpuClock {
	runtime.LockOSThread()
	return cpuClock{start: threadCPU()}
}

// report stops the clock and reports cpu-ns per unit of work (n units).
func (c cpuClock) report(b *testing.B, n int) {
	d := threadCPU() - c.start
	runtime.UnlockOSThread()
	if n > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}
