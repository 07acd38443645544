package words_test

import (
	"context"
	"testing"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/builtins/words"
	"github.com/bitsh/bitsh/internal/testscale"
)

// TestDebruijnMagics checks docs/words.md's promise: with the 64 one-bit words
// as keys and 6-bit hashes, a word passes HashOK exactly when it is a De
// Bruijn magic. Every magic of the enumeration passes (all 2^26 at the long
// scale of internal/testscale, else the first 2^18 and 64 spread by Nth),
// and one in 8 with a bit flipped passes only when debruijn.IsMagic says
// it is a magic.
func TestDebruijnMagics(t *testing.T) {
	keys := make([]uint64, 64)
	for i := range keys {
		keys[i] = 1 << i
	}
	limit := 1 << 26
	if testscale.Short() {
		limit = 1 << 18
	}
	// The enumeration is the slow part: run it a batch ahead of the checks.
	batches := make(chan []uint64, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer close(batches)
		batch := make([]uint64, 0, 1<<14)
		n := 0
		_ = debruijn.Enumerate(ctx, 64, func(m uint64) bool {
			batch = append(batch, m)
			n++
			if len(batch) == cap(batch) || n == limit {
				select {
				case batches <- batch:
				case <-ctx.Done():
					return false
				}
				batch = make([]uint64, 0, 1<<14)
			}
			return n < limit
		})
		if len(batch) > 0 {
			batches <- batch
		}
	}()
	c := words.NewChecker(keys, nil, 6)
	n, flippedMagic := 0, 0
	for batch := range batches {
		for _, m := range batch {
			if !c.OK(m) {
				t.Fatalf("magic %d = %#x fails HashOK", n+1, m)
			}
			n++
			if n%8 != 0 {
				continue
			}
			x := m ^ 1<<(n%64)
			ok := c.OK(x)
			if ok != debruijn.IsMagic(x, 64) {
				t.Fatalf("%#x (magic %#x with bit %d flipped): HashOK %v, IsMagic %v", x, m, n%64, ok, !ok)
			}
			if ok {
				flippedMagic++
			}
		}
	}
	if n != limit {
		t.Fatalf("checked %d magics; want %d", n, limit)
	}
	if testscale.Short() {
		for i := uint64(1); i <= 64; i++ {
			m, _ := debruijn.Nth(i<<20-i, 64)
			if !c.OK(m) {
				t.Fatalf("magic %d = %#x fails HashOK", i<<20-i, m)
			}
		}
	}
	if flippedMagic == n {
		t.Fatal("every flipped word is a magic: the test tests nothing")
	}
	t.Logf("%d magics pass; %d of their one-bit flips are magics too", n, flippedMagic)
}
