package subset_test

import (
	"math/big"
	"testing"

	"github.com/bitsh/bitsh/builtins/subset"
)

// TestBinomialBig checks BinomialBig against Pascal's triangle built with
// big ints for n <= 200, and its edge cases.
func TestBinomialBig(t *testing.T) {
	row := []*big.Int{big.NewInt(1)}
	for n := int64(0); n <= 200; n++ {
		for k := int64(-2); k <= n+2; k++ {
			want := new(big.Int)
			if k >= 0 && k <= n {
				want = row[k]
			}
			got, ok := subset.BinomialBig(n, k)
			if !ok || got.Cmp(want) != 0 {
				t.Fatalf("BinomialBig(%d, %d) = %v, %v; want %v", n, k, got, ok, want)
			}
		}
		next := make([]*big.Int, n+2)
		next[0], next[n+1] = big.NewInt(1), big.NewInt(1)
		for k := int64(1); k <= n; k++ {
			next[k] = new(big.Int).Add(row[k-1], row[k])
		}
		row = next
	}
	for _, c := range []struct {
		n, k int64
		ok   bool
	}{
		{-1, 0, false},
		{-5, 2, false},
		{1 << 40, 2, true},
		{1 << 40, 1<<40 - 1, true},
		{1 << 40, 1 << 20, false}, // about 2^20 * 40 bits
		{1<<62 + 3, 1, true},
	} {
		if _, ok := subset.BinomialBig(c.n, c.k); ok != c.ok {
			t.Errorf("BinomialBig(%d, %d) ok = %v; want %v", c.n, c.k, ok, c.ok)
		}
	}
	want := new(big.Int).Lsh(big.NewInt(1<<40-1), 39) // 2^40 (2^40 - 1) / 2
	if got, _ := subset.BinomialBig(1<<40, 2); got.Cmp(want) != 0 {
		t.Errorf("BinomialBig(2^40, 2) = %v", got)
	}
}

func FuzzBinomialBig(f *testing.F) {
	f.Add(int64(10), int64(3))
	f.Fuzz(func(t *testing.T, n, k int64) {
		n, k = n%5000, k%5000
		got, ok := subset.BinomialBig(n, k)
		if ok != (n >= 0) {
			t.Fatalf("BinomialBig(%d, %d) ok = %v", n, k, ok)
		}
		if !ok || k < 1 || k > n {
			return
		}
		// C(n, k) = C(n-1, k-1) + C(n-1, k).
		a, _ := subset.BinomialBig(n-1, k-1)
		b, _ := subset.BinomialBig(n-1, k)
		if got.Cmp(new(big.Int).Add(a, b)) != 0 {
			t.Fatalf("BinomialBig(%d, %d) breaks Pascal's rule", n, k)
		}
	})
}

func BenchmarkBinomialBig(b *testing.B) {
	for b.Loop() {
		subset.BinomialBig(1000, 500)
	}
}
