//go:build linux

package cuda

import (
	"testing"
	"unsafe"
)

// TestPinnedPool: pinned buffers given back are kept up to the bound and
// handed out again where they fit (up to twice the words asked for);
// beyond the bound they are freed; nothing is lost.
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
	b, _ := pp.get(1000, alloc)
	if len(a) != 1000 || allocs != 2 {
		t.Fatalf("two buffers: len %d, %d allocations", len(a), allocs)
	}
	a[999] = 42
	pp.put(a, free)
	pp.put(b, free)
	c, _ := pp.get(600, alloc) // fits a kept buffer of 1000 words
	if allocs != 2 || len(c) != 600 || cap(c) != 1000 {
		t.Errorf("a kept buffer not reused: %d allocations, len %d cap %d", allocs, len(c), cap(c))
	}
	d, _ := pp.get(400, alloc) // 1000 is more than twice 400: a new one
	if allocs != 3 || len(d) != 400 {
		t.Errorf("a buffer of 1000 words handed out for 400: %d allocations", allocs)
	}
	e, _ := pp.get(2000, alloc)
	pp.put(c, free)
	pp.put(d, free)
	pp.put(e, free) // 1000+1000+400 kept: 2000 more passes the bound
	if frees != 1 || pp.kept != 2400*8 {
		t.Errorf("%d freed, %d bytes kept; want 1 and %d", frees, pp.kept, 2400*8)
	}
	for _, b := range pp.bufs {
		free(unsafe.Pointer(&b[0]))
	}
	if len(live) != 0 {
		t.Errorf("%d buffers lost", len(live))
	}
}
