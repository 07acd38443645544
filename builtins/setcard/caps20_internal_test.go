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
