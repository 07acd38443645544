//go:build linux

package cuda

import (
	"testing"
)

// TestStackPlan: the depth cap is the most calls whose stacks, reserved
// for every thread a card holds, fit in the share of its memory, and never
// more than the function allows; a frame too large for one call gives 0.
func TestStackPlan(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		local, frame, threads, mem uint64
		maxCalls                   int
	}{
		{0, 512, 132 * 2048, 80 * gib, 10000},     // an H100, small frames
		{200, 2400, 132 * 2048, 141 * gib, 10000}, // an H200, a move list per frame
		{0, 64, 2 * 1024, 64 * gib, 10000},        // a small card with much memory: the function's limit
		{0, 1 << 20, 132 * 2048, 80 * gib, 10000}, // frames too large
		{16, 16, 1, 1 << 20, 5},
	} {
		depth, stack := stackPlan(c.local, c.frame, c.threads, c.mem, c.maxCalls)
		budget := c.mem / stackShare
		if depth < 0 || depth > c.maxCalls {
			t.Fatalf("%+v: depth %d", c, depth)
		}
		if depth == 0 {
			if c.threads*(c.local+stackSlack+c.frame) <= budget {
				t.Errorf("%+v: no call allowed, where one fits", c)
			}
			continue
		}
		if stack != c.local+stackSlack+uint64(depth)*c.frame || stack*c.threads > budget {
			t.Errorf("%+v: depth %d, stack %d: past the share %d", c, depth, stack, budget)
		}
		if depth < c.maxCalls && (stack+c.frame)*c.threads <= budget {
			t.Errorf("%+v: depth %d, where one more call fits", c, depth)
		}
	}
}
