package machine

import (
	"sync"
	"sync/atomic"
)

// A Pool keeps a function's idle workers between its runs and calls:
// making one maps its memory (tens of MB where a recursive helper's frames
// hold arrays), which a short run or a plain call should not pay again.
// Get takes the one idle worker kept aside without a lock where there is
// one (a plain function's calls come one at a time on most threads), else
// the newest of the others. The zero Pool is empty and ready.
type Pool[W any] struct {
	aside atomic.Pointer[W]
	mu    sync.Mutex
	idle  []*W
}

// Get returns an idle worker, or nil where there is none.
func (p *Pool[W]) Get() *W {
	if w := p.aside.Swap(nil); w != nil {
		return w
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	w := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return w
}

// Put gives w back to the idle workers.
func (p *Pool[W]) Put(w *W) {
	if p.aside.CompareAndSwap(nil, w) {
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// Drain empties the pool and calls done with each worker it held.
func (p *Pool[W]) Drain(done func(*W)) {
	if w := p.aside.Swap(nil); w != nil {
		done(w)
	}
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		done(w)
	}
}
