package builtins

import (
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// TestFusedOverFarRange: fused count and sum over ranges whose bounds are
// more than 2^63 apart see the items plain Starlark does (the range's
// length overflowed in go.starlark.net: 1 item instead of 16, none
// instead of 3).
func TestFusedOverFarRange(t *testing.T) {
	v, err := starlark.Eval(&starlark.Thread{}, "probe", "len(range(-(1 << 63), (1 << 63) - 1, 1 << 60))", nil)
	starlarkfork.Require(t, "the fix of range's length", err == nil && v.String() == "16")
	_, err = runStar(t, `
def check():
    for r in [range(-(1 << 63), (1 << 63) - 1, 1 << 60), range(-(1 << 63), 1 << 62, 1 << 62), range((1 << 63) - 1, -(1 << 63), -(3 << 60))]:
        items = [x for x in r]
        if fuse(lambda x: 1).count(r) != len(items) or len(items) < 3:
            fail("count of %s: %d, want %d" % (r, fuse(lambda x: 1).count(r), len(items)))
        got = fuse(lambda x: x >> 60).sum(r)
        want = sum([(x % (1 << 64)) >> 60 for x in items])
        if got != want:
            fail("sum of %s: %d, want %d" % (r, got, want))
check()
`, 1)
	if err != nil {
		t.Fatal(err)
	}
}
