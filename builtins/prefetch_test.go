package builtins_test

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestPrefetchStops checks the producer goroutines of the width-64 magics
// and of subsets above 2^31: an early break stops them, a cancelled run
// stops them, and the items come in the kernel's order.
func TestPrefetchStops(t *testing.T) {
	before := runtime.NumGoroutine()
	err := runStar(t, context.Background(), `
firsts = []
for m in debruijn_sequences(64):
    firsts.append(m)
    if len(firsts) == 3000:
        break
for i in [0, 1, 1023, 1024, 2999]:
    if firsts[i] != debruijn(i + 1):
        fail("item %d = %x, want debruijn(%d)" % (i, firsts[i], i + 1))
s = subsets(0xfffff << 40)
n = 0
for x in s:
    if x != s[n]:
        fail("subset %d = %x, want %x" % (n, x, s[n]))
    n += 1
    if n == 5000:
        break
`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := runStar(t, ctx, "for m in debruijn_sequences(64):\n    pass\n"); err == nil {
		t.Error("the full width-64 loop ran to the end despite the deadline")
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := runStar(t, ctx, "x = max(subsets(-1))\n"); err == nil {
		t.Error("max over 2^64 subsets ended despite the deadline")
	}
	if after := waitGoroutines(before); after > before {
		t.Errorf("%d goroutines after the loops; %d before", after, before)
	}
}
