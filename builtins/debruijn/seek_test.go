package debruijn_test

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/internal/testscale"
)

func all(t *testing.T, width int) []uint64 {
	t.Helper()
	it, err := debruijn.NewIter(width)
	if err != nil {
		t.Fatal(err)
	}
	var ms []uint64
	for it.Next() {
		ms = append(ms, it.Value())
	}
	return ms
}

// TestSeekSmall seeks every magic, and the value above each, for widths
// 8, 16 and 32, and checks the rest of the enumeration from there against
// the full one.
func TestSeekSmall(t *testing.T) {
	for _, width := range []int{8, 16, 32} {
		ms := all(t, width)
		for i, m := range ms {
			for _, target := range []uint64{m, m - 1, m + 1} {
				j := i
				if target > m {
					j = i + 1
				}
				it, _ := debruijn.NewIter(width)
				ok := it.Seek(target)
				if ok != (j < len(ms)) {
					t.Fatalf("width %d: Seek(%#x) = %v, want %v", width, target, ok, j < len(ms))
				}
				if !ok {
					continue
				}
				got := []uint64{it.Value()}
				for len(got) < 20 && it.Next() {
					got = append(got, it.Value())
				}
				for k, g := range got {
					if want := ms[j+k]; g != want {
						t.Fatalf("width %d: after Seek(%#x), item %d = %#x, want %#x", width, target, k, g, want)
					}
				}
				if want := min(20, len(ms)-j); len(got) != want {
					t.Fatalf("width %d: after Seek(%#x), %d items, want %d", width, target, len(got), want)
				}
			}
		}
	}
}

func TestSeekPastEnd(t *testing.T) {
	for _, width := range []int{8, 16, 32, 64} {
		it, _ := debruijn.NewIter(width)
		if it.Seek(^uint64(0)) {
			t.Errorf("width %d: Seek(max) found %#x", width, it.Value())
		}
	}
}

// TestSeek64 compares Seek with Nth at random indices of width 64.
func TestSeek64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 6
	if testscale.Short() {
		n = 2
	}
	count := debruijn.Count(64)
	for range n {
		i := 1 + r.Uint64N(count-3)
		m, _ := debruijn.Nth(i, 64)
		it, _ := debruijn.NewIter(64)
		if !it.Seek(m) || it.Value() != m {
			t.Fatalf("Seek(Nth(%d) = %#x) gave %#x", i, m, it.Value())
		}
		for j := uint64(1); j <= 3; j++ {
			want, _ := debruijn.Nth(i+j, 64)
			if !it.Next() || it.Value() != want {
				t.Fatalf("after Seek(Nth(%d)), Next #%d = %#x, want Nth(%d) = %#x", i, j, it.Value(), i+j, want)
			}
		}
	}
	// The first and the last.
	first, _ := debruijn.Nth(1, 64)
	it, _ := debruijn.NewIter(64)
	if !it.Seek(0) || it.Value() != first {
		t.Fatalf("Seek(0) = %#x, want %#x", it.Value(), first)
	}
	last, _ := debruijn.Nth(count, 64)
	it, _ = debruijn.NewIter(64)
	if !it.Seek(last) || it.Value() != last || it.Next() {
		t.Fatalf("Seek(last) = %#x, want %#x and no more", it.Value(), last)
	}
}

func BenchmarkSeek64(b *testing.B) {
	m, _ := debruijn.Nth(33554432, 64)
	for b.Loop() {
		it, _ := debruijn.NewIter(64)
		it.Seek(m)
	}
}

// FuzzSeek compares Seek with a search of the full list for width 32 and
// with Nth for width 64 (any target, magic or not).
func FuzzSeek(f *testing.F) {
	f.Add(uint64(0x077cb531), uint64(0))
	f.Add(uint64(0xffffffff), uint64(1<<60))
	it32, _ := debruijn.NewIter(32)
	var ms []uint64
	for it32.Next() {
		ms = append(ms, it32.Value())
	}
	f.Fuzz(func(t *testing.T, target32, target64 uint64) {
		target32 &= 1<<32 - 1
		i := sort.Search(len(ms), func(i int) bool { return ms[i] >= target32 })
		it, _ := debruijn.NewIter(32)
		ok := it.Seek(target32)
		if ok != (i < len(ms)) || ok && it.Value() != ms[i] {
			t.Fatalf("Seek(%#x) = %v, %#x; want the magic at %d", target32, ok, it.Value(), i)
		}
		// Width 64: the least n with Nth(n) >= target, by bisection.
		count := debruijn.Count(64)
		lo, hi := uint64(1), count+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			if m, _ := debruijn.Nth(mid, 64); m >= target64 {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		it, _ = debruijn.NewIter(64)
		ok = it.Seek(target64)
		want, _ := debruijn.Nth(lo, 64)
		if ok != (lo <= count) || ok && it.Value() != want {
			t.Fatalf("Seek(%#x) = %v, %#x; want Nth(%d) = %#x", target64, ok, it.Value(), lo, want)
		}
	})
}
