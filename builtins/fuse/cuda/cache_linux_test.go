//go:build linux

package cuda

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCompilePTXUsesCache: the device's compilation goes through the
// kernel cache, keyed by the card's architecture and the versions too;
// the PTX handed to the driver ends in a NUL.
func TestCompilePTXUsesCache(t *testing.T) {
	var calls atomic.Int64
	dir := t.TempDir()
	mk := func(major, minor int32, nvrtc string) *Device {
		return &Device{major: major, minor: minor, nvrtcVersion: nvrtc, driverVersion: "13000",
			cache: &Cache{Dir: dir, MaxBytes: 1 << 20},
			compiler: func(src string, opts []string) ([]byte, error) {
				calls.Add(1)
				return []byte("ptx for " + src + " with " + strings.Join(opts, " ")), nil
			}}
	}
	steps := []struct {
		dev       *Device
		src       string
		compiles  int64
		wantCache bool
	}{
		{mk(9, 0, "13.0"), "kernel A", 1, false},
		{mk(9, 0, "13.0"), "kernel A", 1, true}, // a second process: from the cache
		{mk(9, 0, "13.0"), "kernel B", 2, false},
		{mk(8, 0, "13.0"), "kernel A", 3, false}, // another card
		{mk(9, 0, "12.8"), "kernel A", 4, false}, // another NVRTC
	}
	for i, s := range steps {
		ptx, err := s.dev.compilePTX(s.src)
		if err != nil {
			t.Fatal(err)
		}
		if ptx[len(ptx)-1] != 0 || !strings.Contains(string(ptx), s.src) {
			t.Errorf("step %d: PTX %q", i, ptx)
		}
		if !strings.Contains(string(ptx), fmt.Sprintf("compute_%d%d", s.dev.major, s.dev.minor)) {
			t.Errorf("step %d: PTX %q is not for the card", i, ptx)
		}
		if calls.Load() != s.compiles {
			t.Errorf("step %d: %d compilations, want %d", i, calls.Load(), s.compiles)
		}
		if c, h := s.dev.Compiles(); (h == 1) != s.wantCache || c != 1-h {
			t.Errorf("step %d: compiled %d, cached %d", i, c, h)
		}
	}
	// Without a cache every compilation runs the compiler.
	d := mk(9, 0, "13.0")
	d.cache = nil
	d.compilePTX("kernel A")
	if calls.Load() != 5 {
		t.Errorf("without a cache: %d compilations, want 5", calls.Load())
	}
}
