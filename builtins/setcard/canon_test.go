package setcard_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/setcard"
	"github.com/bitsh/bitsh/internal/testscale"
)

// bruteCanon applies all 31104 symmetries and keeps the least image in
// Knuth's order, comparing sorted card lists lexicographically.
func bruteCanon(h setcard.Hand) (setcard.Hand, int) {
	syms := allSyms()
	best := h
	bestList := h.Cards()
	auts := 0
	for i := range syms {
		img := syms[i].Apply(h)
		l := img.Cards()
		if cmp := lexCompare(l, bestList); cmp < 0 {
			best, bestList, auts = img, l, 0
		}
		if img == best {
			auts++
		}
	}
	return best, auts
}

func lexCompare(a, b []setcard.Card) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

var symsCache []setcard.Symmetry

func allSyms() []setcard.Symmetry {
	if symsCache == nil {
		symsCache = setcard.Symmetries()
	}
	return symsCache
}

func randomHand(r *rand.Rand, n int) setcard.Hand {
	var h setcard.Hand
	for h.Len() < n {
		h = h.Add(setcard.Card(r.IntN(setcard.NumCards)))
	}
	return h
}

func TestCanonKnown(t *testing.T) {
	cases := []struct {
		cards []setcard.Card
		canon []setcard.Card
		auts  int
	}{
		{nil, nil, 31104},
		{[]setcard.Card{80}, []setcard.Card{0}, 384},
		// Knuth's SETSET: {1223, 2233} is isomorphic to {1111, 1122}, which
		// has 32 automorphisms (orbit 972).
		{[]setcard.Card{1*9 + 1*3 + 2, 27 + 9 + 2*3 + 2}, []setcard.Card{0, 4}, 32},
		// 1111, 1112: 3! coordinate orders times 2^3 value maps fixing 1
		// times 2 on the last coordinate: 96, orbit 81*8/2 = 324.
		{[]setcard.Card{0, 1}, []setcard.Card{0, 1}, 96},
	}
	for _, c := range cases {
		got, auts := setcard.Canon(setcard.HandOf(c.cards...))
		if want := setcard.HandOf(c.canon...); got != want || auts != c.auts {
			t.Errorf("Canon(%v) = %v, %d; want %v, %d", c.cards, got.Cards(), auts, c.canon, c.auts)
		}
	}
}

func TestCanonVsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 31104))
	n := 60
	if testscale.Short() {
		n = 15
	}
	for i := 0; i < n; i++ {
		h := randomHand(r, 1+i%25)
		if i%3 == 0 { // structured hands have more automorphisms
			h = setcard.HandOf(0, 1, 3, 4)
			for j := 0; j < i%5; j++ {
				h = h.Add(setcard.Card(9 * (j + 1)))
			}
		}
		got, auts := setcard.Canon(h)
		want, wantAuts := bruteCanon(h)
		if got != want || auts != wantAuts {
			t.Fatalf("Canon(%v) = %v, %d; want %v, %d", h.Cards(), got.Cards(), auts, want.Cards(), wantAuts)
		}
		// Canon is constant on the orbit.
		s := setcard.SymmetryAt(r.IntN(setcard.NumSymmetries))
		if g2, a2 := setcard.Canon(s.Apply(h)); g2 != got || a2 != auts {
			t.Fatalf("Canon of an image of %v differs: %v, %d; want %v, %d", h.Cards(), g2.Cards(), a2, got.Cards(), auts)
		}
	}
}

func FuzzCanon(f *testing.F) {
	f.Add(uint64(3), uint64(0))
	f.Add(uint64(0x1b), uint64(1<<16))
	f.Fuzz(func(t *testing.T, lo, hi uint64) {
		// Bits above card 80 are ignored (never a panic).
		g1, a1 := setcard.Canon(setcard.Hand{lo, hi})
		g2, a2 := setcard.Canon(setcard.Hand{lo, hi & (1<<17 - 1)})
		if g1 != g2 || a1 != a2 {
			t.Fatalf("Canon(%#x, %#x) depends on bits above card 80", lo, hi)
		}
		h := setcard.Hand{lo, hi & (1<<17 - 1)}
		for h.Len() > 12 { // keep the oracle quick
			h[0] &= h[0] - 1
			if h[0] == 0 {
				h[1] &= h[1] - 1
			}
		}
		got, auts := setcard.Canon(h)
		want, wantAuts := bruteCanon(h)
		if got != want || auts != wantAuts {
			t.Fatalf("Canon(%v) = %v, %d; want %v, %d", h.Cards(), got.Cards(), auts, want.Cards(), wantAuts)
		}
	})
}

func BenchmarkCanon(b *testing.B) {
	for _, n := range []int{4, 10, 20} {
		h := randomHand(rand.New(rand.NewPCG(1, 2)), n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var sink setcard.Hand
			for b.Loop() {
				sink, _ = setcard.Canon(h)
			}
			_ = sink
		})
	}
}

func ExampleCanon() {
	// 1223 and 2233 differ in two coordinates, like 1111 and 1122.
	h := setcard.HandOf(setcard.FromDigits([4]uint8{0, 1, 1, 2}), setcard.FromDigits([4]uint8{1, 1, 2, 2}))
	c, auts := setcard.Canon(h)
	fmt.Println(c.Cards(), auts, setcard.NumSymmetries/auts)
	// Output: [0 4] 32 972
}
