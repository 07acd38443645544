// bitsh fork: tests of smallBinary's >> (interp_fast.go, README.bitsh.md).

package starlark

import (
	"math"
	"testing"

	"go.starlark.net/internal/compile"
	"go.starlark.net/syntax"
)

// TestSmallShiftAgrees checks smallBinary's >> of int32 operands against
// Binary's, for every count from -70 to 600: the same value where it
// computes one, computed for every count in [0, 64), declined where Binary
// fails (a negative count) or the count is larger.
func TestSmallShiftAgrees(t *testing.T) {
	xs := []int64{0, 1, -1, 2, -2, 3, 5, -5, 255, -256, 1 << 20, -(1 << 20) - 1,
		math.MaxInt32, math.MaxInt32 - 1, math.MinInt32, math.MinInt32 + 1}
	for _, a := range xs {
		for b := int64(-70); b <= 600; b++ {
			want, err := Binary(syntax.GTGT, MakeInt64(a), MakeInt64(b))
			r, ok := smallBinary(compile.GTGT, a, b)
			if ok != (0 <= b && b < 64) {
				t.Errorf("smallBinary(%d >> %d): ok = %v", a, b, ok)
			}
			if !ok {
				continue
			}
			if err != nil {
				t.Errorf("smallBinary(%d >> %d) = %d where Binary fails: %v", a, b, r, err)
			} else if got := MakeInt64(r); got.String() != want.String() {
				t.Errorf("%d >> %d: smallBinary %v, Binary %v", a, b, got, want)
			}
		}
	}
}
