package debruijn_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/internal/testscale"
)

// naiveMagic checks the definition directly: the w windows, read as bit
// strings of the word shifted left by i within w bits, are distinct.
func naiveMagic(m uint64, w int) bool {
	s := bits.Len(uint(w)) - 1
	seen := map[string]bool{}
	for i := 0; i < w; i++ {
		str := ""
		for j := 0; j < s; j++ {
			pos := w - 1 - i - j // bit of m read at window offset j
			bit := uint64(0)
			if pos >= 0 {
				bit = m >> uint(pos) & 1
			}
			str += fmt.Sprint(bit)
		}
		if seen[str] {
			return false
		}
		seen[str] = true
	}
	return true
}

// naiveAll enumerates the magics with top s bits zero by brute force over
// all words (feasible for widths 8 and 16).
func naiveAll(w int) []uint64 {
	s := bits.Len(uint(w)) - 1
	var out []uint64
	for m := uint64(0); m < 1<<uint(w-s); m++ {
		if naiveMagic(m, w) {
			out = append(out, m)
		}
	}
	return out
}

// naiveSearch enumerates them by a plain recursive backtracking over
// windows with no pruning beyond repeated windows (for width 32).
func naiveSearch(w int) []uint64 {
	s := uint(bits.Len(uint(w)) - 1)
	mask := uint64(1)<<s - 1
	var out []uint64
	var used uint64 = 1
	var rec func(m uint64, placed int, win uint64)
	rec = func(m uint64, placed int, win uint64) {
		if placed == w-int(s) {
			if naiveMagic(m, w) {
				out = append(out, m)
			}
			return
		}
		for b := uint64(0); b < 2; b++ {
			c := (win<<1 | b) & mask
			if used>>c&1 == 0 {
				used |= 1 << c
				rec(m<<1|b, placed+1, c)
				used &^= 1 << c
			}
		}
	}
	rec(0, 0, 0)
	return out
}

func collect(t *testing.T, w int) []uint64 {
	it, err := debruijn.NewIter(w)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for it.Next() {
		out = append(out, it.Value())
	}
	return out
}

func TestIsMagic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{8, 16, 32, 64} {
		for trial := 0; trial < 3000; trial++ {
			m := r.Uint64() >> uint(64-w)
			if w < 64 {
				m &= 1<<uint(w) - 1
			}
			if trial%3 == 0 {
				m >>= bits.Len(uint(w)) - 1 // top s bits zero, more likely magic
			}
			if got, want := debruijn.IsMagic(m, w), naiveMagic(m, w); got != want {
				t.Errorf("IsMagic(%#x, %d) = %v; want %v", m, w, got, want)
			}
		}
	}
	for _, c := range []struct {
		m    uint64
		w    int
		want bool
	}{
		{0x1d, 8, true}, {0x17, 8, true}, {0x1e, 8, false}, {0x1d, 7, false}, {0x11d, 8, false},
		{debruijn.Default64, 64, true}, {0x022fdd63cc95386d, 64, true}, {0x03f79d71b4cb0a88, 64, false},
		{0x077cb531, 32, true}, // the classic 32-bit magic of Leiserson, Prokop and Randall
	} {
		if got := debruijn.IsMagic(c.m, c.w); got != c.want {
			t.Errorf("IsMagic(%#x, %d) = %v; want %v", c.m, c.w, got, c.want)
		}
	}
}

func TestTable(t *testing.T) {
	got, ok := debruijn.Table(0x1d, 8)
	if want := []int{0, 1, 6, 2, 7, 5, 4, 3}; !ok || !slices.Equal(got, want) {
		t.Errorf("Table(0x1d, 8) = %v; want %v (the Chess Programming Wiki's table minus one)", got, want)
	}
	// Isenberg's printed table for its 4061955th magic.
	want002 := []int{
		0, 1, 2, 53, 3, 7, 54, 27,
		4, 38, 41, 8, 34, 55, 48, 28,
		62, 5, 39, 46, 44, 42, 22, 9,
		24, 35, 59, 56, 49, 18, 29, 11,
		63, 52, 6, 26, 37, 40, 33, 47,
		61, 45, 43, 21, 23, 58, 17, 10,
		51, 25, 36, 32, 60, 20, 57, 16,
		50, 31, 19, 15, 30, 14, 13, 12,
	}
	if got, ok := debruijn.Table(0x022fdd63cc95386d, 64); !ok || !slices.Equal(got, want002) {
		t.Errorf("Table(0x022fdd63cc95386d) = %v; want Isenberg's", got)
	}
	// the Chess Programming Wiki's deBruijnLookup for the default magic.
	want000 := []int{
		0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
		62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
		63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
		46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6,
	}
	if got, _ := debruijn.Table(debruijn.Default64, 64); !slices.Equal(got, want000) {
		t.Errorf("Table(Default64) = %v; want the Chess Programming Wiki's", got)
	}
	if _, ok := debruijn.Table(0x1e, 8); ok {
		t.Error("Table(0x1e, 8) accepted a non-magic")
	}
	// From first principles: the table maps the hash of each one-bit word
	// back to its index.
	for _, w := range []int{8, 16, 32, 64} {
		for _, n := range []uint64{1, 2} {
			m, _ := debruijn.Nth(n, w)
			tab, ok := debruijn.Table(m, w)
			if !ok {
				t.Fatalf("Table(%#x, %d) rejected a magic", m, w)
			}
			s := bits.Len(uint(w)) - 1
			for i := 0; i < w; i++ {
				h := (uint64(1) << uint(i) * m) << uint(64-w) >> uint(64-s)
				if tab[h] != i {
					t.Errorf("Table(%#x, %d)[%d] = %d; want %d", m, w, h, tab[h], i)
				}
			}
		}
	}
}

func TestScanner(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, w := range []int{8, 16, 32, 64} {
		for _, n := range []uint64{1, debruijn.Count(w)} {
			m, _ := debruijn.Nth(n, w)
			sc, ok := debruijn.NewScanner(m, w)
			if !ok {
				t.Fatalf("NewScanner(%#x, %d) failed", m, w)
			}
			for i := 0; i < w; i++ {
				x := uint64(1)<<uint(i) | (r.Uint64()<<uint(i))&(^uint64(0)>>uint(64-w))
				if got := sc.Bsf(x); got != i {
					t.Errorf("width %d magic %#x: Bsf(%#x) = %d; want %d", w, m, x, got, i)
				}
			}
		}
	}
	if _, ok := debruijn.NewScanner(3, 8); ok {
		t.Error("NewScanner(3, 8) accepted a non-magic")
	}
}

func FuzzBsf(f *testing.F) {
	sc, _ := debruijn.NewScanner(debruijn.Default64, 64)
	sc2, _ := debruijn.NewScanner(0x022fdd63cc95386d, 64)
	f.Add(uint64(1))
	f.Add(uint64(0x8000000000000000))
	f.Fuzz(func(t *testing.T, x uint64) {
		if x == 0 {
			return
		}
		want := bits.TrailingZeros64(x)
		if got := debruijn.Bsf64(x); got != want {
			t.Fatalf("Bsf64(%#x) = %d; want %d", x, got, want)
		}
		if got := sc.Bsf(x); got != want {
			t.Fatalf("Bsf(%#x) = %d; want %d", x, got, want)
		}
		if got := sc2.Bsf(x); got != want {
			t.Fatalf("Bsf with 0x022fdd63cc95386d (%#x) = %d; want %d", x, got, want)
		}
	})
}

func FuzzIsMagic(f *testing.F) {
	f.Add(uint64(0x1d), uint8(0))
	f.Add(uint64(debruijn.Default64), uint8(3))
	f.Fuzz(func(t *testing.T, m uint64, wi uint8) {
		w := 8 << (wi % 4)
		if w < 64 {
			m &= 1<<uint(w) - 1
		}
		if got, want := debruijn.IsMagic(m, w), naiveMagic(m, w); got != want {
			t.Fatalf("IsMagic(%#x, %d) = %v; want %v", m, w, got, want)
		}
	})
}

func TestEnumerationSmall(t *testing.T) {
	for _, w := range []int{8, 16} {
		if got, want := collect(t, w), naiveAll(w); !slices.Equal(got, want) {
			t.Errorf("width %d: Iter gives %#x; brute force %#x", w, got, want)
		}
	}
	got := collect(t, 32)
	if want := naiveSearch(32); !slices.Equal(got, want) {
		t.Errorf("width 32: Iter gives %d magics, naive search %d, or a different order", len(got), len(want))
	}
	for _, w := range []int{8, 16, 32} {
		ms := collect(t, w)
		if uint64(len(ms)) != debruijn.Count(w) {
			t.Errorf("width %d: %d magics; Count says %d", w, len(ms), debruijn.Count(w))
		}
		for i, m := range ms {
			if got, ok := debruijn.Nth(uint64(i+1), w); !ok || got != m {
				t.Errorf("Nth(%d, %d) = %#x, %v; want %#x", i+1, w, got, ok, m)
			}
		}
	}
	if len(got) != 2048 || debruijn.Count(8) != 2 || debruijn.Count(16) != 16 || debruijn.Count(64) != 1<<26 {
		t.Error("counts differ from 2, 16, 2048, 67108864")
	}
}

// TestEnumeration64 walks into the width-64 enumeration and checks it
// against Nth at sampled points; the whole 2^26 at the long scale
// (internal/testscale).
func TestEnumeration64(t *testing.T) {
	limit := uint64(1) << 26
	step := uint64(1) << 16
	if testscale.Short() {
		limit, step = 1<<18, 1<<12
	}
	it, _ := debruijn.NewIter(64)
	var n, prev uint64
	for n < limit && it.Next() {
		n++
		m := it.Value()
		if m <= prev && n > 1 {
			t.Fatalf("magic %d = %#x is not above %#x", n, m, prev)
		}
		prev = m
		if n%step == 1 || n == 4061955 || n == limit {
			if !debruijn.IsMagic(m, 64) {
				t.Fatalf("magic %d = %#x is not a magic", n, m)
			}
			if q, _ := debruijn.Nth(n, 64); q != m {
				t.Fatalf("Nth(%d) = %#x; enumeration %#x", n, q, m)
			}
		}
	}
	if n != limit {
		t.Fatalf("enumeration stopped at %d", n)
	}
	if limit == 1<<26 && it.Next() {
		t.Fatal("more than 2^26 magics")
	}
}

func TestNth(t *testing.T) {
	if m, ok := debruijn.Nth(4061955, 64); !ok || m != 0x022fdd63cc95386d {
		t.Errorf("Nth(4061955, 64) = %#x; want Isenberg's 0x022fdd63cc95386d", m)
	}
	if m, _ := debruijn.Nth(1<<26, 64); m != debruijn.Default64 {
		t.Errorf("Nth(2^26, 64) = %#x; want the default magic %#x", m, uint64(debruijn.Default64))
	}
	for _, c := range []struct {
		n uint64
		w int
	}{{0, 64}, {1<<26 + 1, 64}, {3, 8}, {1, 12}} {
		if _, ok := debruijn.Nth(c.n, c.w); ok {
			t.Errorf("Nth(%d, %d) accepted", c.n, c.w)
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 20; trial++ {
		n := 1 + r.Uint64N(1<<26-1)
		a, _ := debruijn.Nth(n, 64)
		b, _ := debruijn.Nth(n+1, 64)
		if !debruijn.IsMagic(a, 64) || a>>58 != 0 || a >= b {
			t.Errorf("Nth(%d) = %#x, Nth(%d) = %#x: not ascending magics", n, a, n+1, b)
		}
	}
}

func TestEnumerateCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := debruijn.Enumerate(ctx, 64, func(uint64) bool {
		if n++; n == 10000 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || n > 20000 {
		t.Errorf("Enumerate after cancel: %v after %d magics", err, n)
	}
	n = 0
	if err := debruijn.Enumerate(context.Background(), 32, func(uint64) bool { n++; return n < 5 }); err != nil || n != 5 {
		t.Errorf("Enumerate stopped by fn: %v, %d", err, n)
	}
	if err := debruijn.Enumerate(context.Background(), 12, nil); err == nil {
		t.Error("Enumerate accepted width 12")
	}
}

var sink uint64

// BenchmarkBsf serialises the bits of four words with De Bruijn bitscans
// by the default magic; one op is one bitscan (compare bench/debruijn.c).
func BenchmarkBsf(b *testing.B) {
	words := [4]uint64{0x8142241818244281, 0xffffffffffffffff, 0x0123456789abcdef, 0xa5a5a5a5a5a5a5a5}
	acc, n := 0, b.N
	for done, round := 0, 0; done < n; round++ {
		for x := words[round&3]; x != 0; x &= x - 1 {
			acc += debruijn.Bsf64(x)
			done++
		}
	}
	sink = uint64(acc)
}

// BenchmarkScannerBsf is BenchmarkBsf through a Scanner (any magic and
// width, as debruijn_bsf uses).
func BenchmarkScannerBsf(b *testing.B) {
	sc, _ := debruijn.NewScanner(debruijn.Default64, 64)
	words := [4]uint64{0x8142241818244281, 0xffffffffffffffff, 0x0123456789abcdef, 0xa5a5a5a5a5a5a5a5}
	acc, round, x := 0, 0, words[0]
	for i := 0; i < b.N; i++ {
		acc += sc.Bsf(x)
		if x &= x - 1; x == 0 {
			round++
			x = words[round&3]
		}
	}
	sink = uint64(acc)
}

// BenchmarkEnumerate64 pulls width-64 magics from an Iter; one op is one
// magic (compare bench/debruijn.c).
func BenchmarkEnumerate64(b *testing.B) {
	it, _ := debruijn.NewIter(64)
	acc := uint64(0)
	for i := 0; i < b.N; i++ {
		if !it.Next() {
			it, _ = debruijn.NewIter(64)
			it.Next()
		}
		acc += it.Value()
	}
	sink = acc
}

// BenchmarkNth times the last magic found by counting; one op is one call.
func BenchmarkNth(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, _ := debruijn.Nth(1<<26, 64)
		sink += m
	}
}

func ExampleTable() {
	t, _ := debruijn.Table(0x1d, 8)
	fmt.Println(t)
	// Output: [0 1 6 2 7 5 4 3]
}

func ExampleNth() {
	m, _ := debruijn.Nth(4061955, 64)
	fmt.Printf("%#016x\n", m)
	// Output: 0x022fdd63cc95386d
}

func ExampleIter() {
	it, _ := debruijn.NewIter(16)
	for i := 0; i < 4 && it.Next(); i++ {
		fmt.Printf("%#04x ", it.Value())
	}
	fmt.Println()
	// Output: 0x09af 0x09eb 0x0a6f 0x0a7b
}

func ExampleBsf64() {
	fmt.Println(debruijn.Bsf64(0b101000))
	// Output: 3
}

func ExampleScanner_Bsf() {
	sc, _ := debruijn.NewScanner(debruijn.Default64, 64)
	fmt.Println(sc.Bsf(0x100), sc.Bsf(0xf000000000000000))
	// Output: 8 60
}

func FuzzNth(f *testing.F) {
	f.Add(uint64(4061955), uint8(3))
	f.Fuzz(func(t *testing.T, n uint64, wi uint8) {
		w := 8 << (wi % 4)
		m, ok := debruijn.Nth(n, w)
		if ok != (n >= 1 && n <= debruijn.Count(w)) {
			t.Fatalf("Nth(%d, %d) ok = %v", n, w, ok)
		}
		if ok && (!debruijn.IsMagic(m, w) || m>>uint(w-bits.Len(uint(w))+1) != 0) {
			t.Fatalf("Nth(%d, %d) = %#x is not a magic with top bits zero", n, w, m)
		}
	})
}

func ExampleIsMagic() {
	fmt.Println(debruijn.IsMagic(0x1d, 8), debruijn.IsMagic(0x1e, 8))
	// Output: true false
}

func ExampleCount() {
	fmt.Println(debruijn.Count(8), debruijn.Count(16), debruijn.Count(32), debruijn.Count(64))
	// Output: 2 16 2048 67108864
}

func ExampleEnumerate() {
	var ms []string
	debruijn.Enumerate(context.Background(), 8, func(m uint64) bool {
		ms = append(ms, fmt.Sprintf("%#x", m))
		return true
	})
	fmt.Println(ms)
	// Output: [0x17 0x1d]
}
