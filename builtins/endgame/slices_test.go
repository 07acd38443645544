package endgame_test

import (
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/endgame"
)

// TestSlicesAgainstRef checks FlipAll and Canonicals against the
// piece-by-piece reference images (refImage), for random lengths.
func TestSlicesAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, m := range endgame.Numberings() {
		for n := 1; n <= endgame.MaxPieces; n++ {
			l := layout(t, n, m)
			for _, size := range []int{0, 1, 2, 33} {
				x := make([]uint64, size)
				for i := range x {
					x[i] = r.Uint64() >> (64 - 6*uint(n))
				}
				if !endgame.Fit(x, n) {
					t.Fatalf("Fit rejected valid indices")
				}
				dst := make([]uint64, size)
				for _, k := range []int{endgame.FlipHorizontal, endgame.FlipVertical, endgame.FlipDiag} {
					l.FlipAll(k, dst, x)
					for i := range x {
						if want := refImage(x[i], n, m, k); dst[i] != want {
							t.Fatalf("%v n=%d FlipAll(%d) element %d = %#o; want %#o", m, n, k, i, dst[i], want)
						}
					}
				}
				l.Canonicals(dst, x)
				for i := range x {
					want := x[i]
					for k := 0; k < endgame.NumSymmetries; k++ {
						want = min(want, refImage(x[i], n, m, k))
					}
					if dst[i] != want {
						t.Fatalf("%v n=%d Canonicals element %d = %#o; want %#o", m, n, i, dst[i], want)
					}
				}
				if size > 0 && n < endgame.MaxPieces {
					x[size-1] |= 1 << (6 * uint(n))
					if endgame.Fit(x, n) {
						t.Fatalf("Fit accepted an index of more than %d pieces", n)
					}
				}
			}
		}
	}
}

func BenchmarkCanonicals(b *testing.B) {
	l, _ := endgame.NewLayout(5, endgame.Symmetric)
	x := make([]uint64, 1<<16)
	for i := range x {
		x[i] = uint64(i) * 0x9e3779b9 & (1<<30 - 1)
	}
	dst := make([]uint64, len(x))
	for b.Loop() {
		l.Canonicals(dst, x)
	}
}
