//go:build linux

package cuda

import (
	"testing"
	"unsafe"
)

// TestPinnedPool: pinned buffers given back are kept up to the bound and
// handed out again, the smallest that holds what is asked for; beyond the
// bound they are freed; nothing is lost.
func TestPinnedPool(t *testing.T) {
	live := map[unsafe.Pointer][]uint64{} // the fake driver's allocations
	allocs, frees := 0, 0
	alloc := func(size uint64) (unsafe.Pointer, error) {
		allocs++
		b := make([]uint64, size/8)
		p := unsafe.Pointer(&b[0])
		live[p] = b
		return p, nil
	}
	free := func(p unsafe.Pointer) {
		if live[p] == nil {
			t.Fatalf("free of %p, not allocated or freed twice", p)
		}
		frees++
		delete(live, p)
	}
	pp := &pinnedPool{max: 3000 * 8}
	a, _ := pp.get(1000, alloc)
	b, _ := pp.get(500, alloc)
	if len(a) != 1000 || len(b) != 500 || allocs != 2 {
		t.Fatalf("two buffers: len %d and %d, %d allocations", len(a), len(b), allocs)
	}
	pp.put(a, free)
	pp.put(b, free)
	c, _ := pp.get(400, alloc) // the kept 500
	if allocs != 2 || len(c) != 400 || cap(c) != 500 {
		t.Errorf("not the smallest kept buffer: %d allocations, len %d cap %d", allocs, len(c), cap(c))
	}
	d, _ := pp.get(600, alloc) // the kept 1000
	if allocs != 2 || len(d) != 600 || cap(d) != 1000 {
		t.Errorf("a kept buffer not reused: %d allocations, len %d cap %d", allocs, len(d), cap(d))
	}
	e, _ := pp.get(2000, alloc) // none kept: a new one
	if allocs != 3 || len(e) != 2000 {
		t.Errorf("%d allocations, len %d", allocs, len(e))
	}
	pp.put(c, free)
	pp.put(d, free)
	pp.put(e, free) // 500+1000 kept: 2000 more passes the bound
	if frees != 1 || pp.kept != 1500*8 {
		t.Errorf("%d freed, %d bytes kept; want 1 and %d", frees, pp.kept, 1500*8)
	}
	for _, b := range pp.bufs {
		free(unsafe.Pointer(&b[0]))
	}
	if len(live) != 0 {
		t.Errorf("%d buffers lost", len(live))
	}
}
