package setcard

import (
	"context"
	"testing"
)

// BenchmarkComputeCaps20 measures the whole affine route (the cached
// Caps20 is only a copy).
func BenchmarkComputeCaps20(b *testing.B) {
	var sink []Class
	for b.Loop() {
		sink, _ = computeCaps20(context.Background())
	}
	_ = sink
}

func TestComputeCaps20Cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := computeCaps20(ctx); err == nil {
		t.Errorf("computeCaps20 with a cancelled context succeeded")
	}
}
