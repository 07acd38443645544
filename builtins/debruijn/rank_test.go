package debruijn_test

import (
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/internal/testscale"
)

// TestRankExhaustive checks Rank against the position of every magic of
// widths 8, 16 and 32 in the brute-force lists (naiveAll, naiveSearch).
func TestRankExhaustive(t *testing.T) {
	for _, w := range []int{8, 16, 32} {
		all := naiveSearch(w)
		if w < 32 {
			all = naiveAll(w)
		}
		if uint64(len(all)) != debruijn.Count(w) {
			t.Fatalf("width %d: naive list has %d magics; want %d", w, len(all), debruijn.Count(w))
		}
		for i, m := range all {
			if n, ok := debruijn.Rank(m, w); !ok || n != uint64(i+1) {
				t.Fatalf("Rank(%#x, %d) = %d, %v; want %d", m, w, n, ok, i+1)
			}
		}
	}
}

func TestRankTable(t *testing.T) {
	for _, c := range []struct {
		m  uint64
		w  int
		n  uint64
		ok bool
	}{
		{0x022fdd63cc95386d, 64, 4061955, true}, // Isenberg's example
		{debruijn.Default64, 64, 1 << 26, true}, // the last one
		{0x1D, 8, 2, true},
		{0x17, 8, 1, true},
		{0x1D, 16, 0, false},                       // not a magic for 16
		{0x1D << 3, 8, 0, false},                   // top bits not zero
		{0x022fdd63cc95386d ^ 1, 64, 0, false},     // not a magic
		{0x022fdd63cc95386d | 1<<63, 64, 0, false}, // top bit set
		{0x1D, 12, 0, false},                       // bad width
	} {
		if n, ok := debruijn.Rank(c.m, c.w); n != c.n || ok != c.ok {
			t.Errorf("Rank(%#x, %d) = %d, %v; want %d, %v", c.m, c.w, n, ok, c.n, c.ok)
		}
	}
}

// TestRankNth checks Rank(Nth(n)) == n at random n for width 64, where
// enumeration is too slow for a unit test.
func TestRankNth(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	trials := 50
	if testscale.Short() {
		trials = 10
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.Uint64N(1<<26)
		m, _ := debruijn.Nth(n, 64)
		if got, ok := debruijn.Rank(m, 64); !ok || got != n {
			t.Fatalf("Rank(Nth(%d) = %#x) = %d, %v", n, m, got, ok)
		}
	}
}

func FuzzRank(f *testing.F) {
	f.Add(uint64(0x022fdd63cc95386d), uint8(3))
	f.Add(uint64(0x1D), uint8(0))
	f.Fuzz(func(t *testing.T, m uint64, wi uint8) {
		w := []int{8, 16, 32, 64}[wi%4]
		n, ok := debruijn.Rank(m, w)
		s := uint(0)
		for 1<<s < w {
			s++
		}
		want := m>>(uint(w)-s) == 0 && debruijn.IsMagic(m, w)
		if ok != want {
			t.Fatalf("Rank(%#x, %d) ok = %v; want %v", m, w, ok, want)
		}
		if ok {
			if back, _ := debruijn.Nth(n, w); back != m {
				t.Fatalf("Nth(Rank(%#x, %d) = %d) = %#x", m, w, n, back)
			}
		}
	})
}

func BenchmarkRank(b *testing.B) {
	for b.Loop() {
		if _, ok := debruijn.Rank(0x022fdd63cc95386d, 64); !ok {
			b.Fatal("not a magic")
		}
	}
}

func TestBsfAll(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, w := range []int{8, 16, 32, 64} {
		all := naiveSearch(min(w, 32))
		if w == 64 {
			all = []uint64{debruijn.Default64, 0x022fdd63cc95386d}
		}
		for _, m := range all[:min(len(all), 20)] {
			sc, ok := debruijn.ScannerOf(m, w)
			if !ok {
				t.Fatalf("ScannerOf(%#x, %d) failed", m, w)
			}
			for _, n := range []int{0, 1, 5, 100} {
				x := make([]uint64, n)
				for i := range x {
					x[i] = r.Uint64()>>uint(64-w) | 1<<r.UintN(uint(w))
				}
				dst := make([]uint64, n)
				if !sc.BsfAll(dst, x) {
					t.Fatalf("BsfAll rejected valid input")
				}
				for i := range x {
					if want := uint64(sc.Bsf(x[i])); dst[i] != want {
						t.Fatalf("BsfAll element %d = %d; want %d", i, dst[i], want)
					}
				}
				if n > 0 {
					x[n-1] = 0
					if sc.BsfAll(dst, x) {
						t.Fatalf("BsfAll accepted a zero")
					}
					if w < 64 {
						x[n-1] = 1 << uint(w)
						if sc.BsfAll(dst, x) {
							t.Fatalf("BsfAll accepted a word wider than %d", w)
						}
					}
				}
			}
		}
	}
}
