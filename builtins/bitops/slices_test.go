package bitops_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// Naive references for the new scalar kernels, from the definitions.

func naiveParity(x uint64) uint64 {
	var p uint64
	for i := 0; i < 64; i++ {
		p ^= x >> i & 1
	}
	return p
}

// naiveGrayInverse: bit i of the result is the XOR of the bits of g at i
// and above.
func naiveGrayInverse(g uint64) uint64 {
	var r uint64
	for i := 0; i < 64; i++ {
		var p uint64
		for j := i; j < 64; j++ {
			p ^= g >> j & 1
		}
		r |= p << i
	}
	return r
}

func TestGrayTable(t *testing.T) {
	for _, c := range []struct{ x, gray, parity uint64 }{
		{0, 0, 0}, {1, 1, 1}, {2, 3, 1}, {3, 2, 0}, {4, 6, 1}, {5, 7, 0},
		{^uint64(0), 1 << 63, 0}, {1 << 63, 3 << 62, 1},
	} {
		if got := bitops.Gray(c.x); got != c.gray {
			t.Errorf("Gray(%#x) = %#x; want %#x", c.x, got, c.gray)
		}
		if got := bitops.GrayInverse(c.gray); got != c.x {
			t.Errorf("GrayInverse(%#x) = %#x; want %#x", c.gray, got, c.x)
		}
		if got := bitops.Parity(c.x); got != c.parity {
			t.Errorf("Parity(%#x) = %d; want %d", c.x, got, c.parity)
		}
	}
	// Consecutive codes differ in one bit.
	for i := uint64(0); i < 1<<12; i++ {
		if d := bits.OnesCount64(bitops.Gray(i) ^ bitops.Gray(i+1)); d != 1 {
			t.Fatalf("Gray(%d) and Gray(%d) differ in %d bits", i, i+1, d)
		}
	}
}

func TestGrayAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		checkGray(t, r.Uint64()>>r.UintN(64))
	}
}

func checkGray(t *testing.T, x uint64) {
	t.Helper()
	if got, want := bitops.GrayInverse(x), naiveGrayInverse(x); got != want {
		t.Fatalf("GrayInverse(%#x) = %#x; want %#x", x, got, want)
	}
	if got := bitops.GrayInverse(bitops.Gray(x)); got != x {
		t.Fatalf("GrayInverse(Gray(%#x)) = %#x", x, got)
	}
	if got, want := bitops.Parity(x), naiveParity(x); got != want {
		t.Fatalf("Parity(%#x) = %d; want %d", x, got, want)
	}
}

func FuzzGray(f *testing.F) {
	f.Add(uint64(0))
	f.Add(^uint64(0))
	f.Fuzz(func(t *testing.T, x uint64) { checkGray(t, x) })
}

// randomWords returns n words of assorted densities, zeros included.
func randomWords(r *rand.Rand, n int) []uint64 {
	x := make([]uint64, n)
	for i := range x {
		switch r.IntN(4) {
		case 0:
			x[i] = r.Uint64() & r.Uint64() & r.Uint64()
		case 1:
			x[i] = uint64(r.IntN(3))
		default:
			x[i] = r.Uint64()
		}
	}
	return x
}

// TestSlicesAgainstScalar checks every elementwise kernel against its
// scalar kernel, element by element, for lengths 0, 1 and random ones.
func TestSlicesAgainstScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 1000} {
		x, m, k := randomWords(r, n), randomWords(r, n), randomWords(r, n)
		checkSlices(t, x, m, k)
	}
}

func checkSlices(t *testing.T, x, m, k []uint64) {
	t.Helper()
	n := len(x)
	dst := make([]uint64, n)
	unary := []struct {
		name  string
		array func(dst, x []uint64)
		f     func(uint64) uint64
	}{
		{"PopCounts", bitops.PopCounts, func(v uint64) uint64 { return uint64(bits.OnesCount64(v)) }},
		{"Parities", bitops.Parities, naiveParity},
		{"Lsbs", bitops.Lsbs, bitops.Lsb},
		{"Grays", bitops.Grays, bitops.Gray},
		{"GrayInverses", bitops.GrayInverses, naiveGrayInverse},
	}
	for _, c := range unary {
		c.array(dst, x)
		for i := range x {
			if want := c.f(x[i]); dst[i] != want {
				t.Fatalf("%s: element %d of %#x is %#x; want %#x", c.name, i, x[i], dst[i], want)
			}
		}
	}
	zero := false
	for _, v := range x {
		zero = zero || v == 0
	}
	for _, c := range []struct {
		name  string
		array func(dst, x []uint64) bool
		f     func(uint64) int
	}{{"Bsfs", bitops.Bsfs, bitops.Bsf}, {"Bsrs", bitops.Bsrs, bitops.Bsr}} {
		if ok := c.array(dst, x); ok == zero {
			t.Fatalf("%s: ok = %v with a zero element = %v", c.name, ok, zero)
		}
		for i := range x {
			if want := uint64(c.f(x[i])); x[i] != 0 && dst[i] != want {
				t.Fatalf("%s: element %d of %#x is %d; want %d", c.name, i, x[i], dst[i], want)
			}
		}
	}
	bitops.Pdeps(dst, x, m)
	for i := range x {
		if want := naivePdep(x[i], m[i]); dst[i] != want {
			t.Fatalf("Pdeps: element %d: Pdep(%#x, %#x) = %#x; want %#x", i, x[i], m[i], dst[i], want)
		}
	}
	bitops.Pexts(dst, x, m)
	for i := range x {
		if want := naivePext(x[i], m[i]); dst[i] != want {
			t.Fatalf("Pexts: element %d: Pext(%#x, %#x) = %#x; want %#x", i, x[i], m[i], dst[i], want)
		}
	}
	for _, w := range []uint{8, 16, 32, 64} {
		xw := make([]uint64, n)
		for i := range x {
			xw[i] = x[i] & bitops.Mask(w)
		}
		if !bitops.Fit(xw, w) || (n > 0 && w < 64 && bitops.Fit(append(xw[:n:n], 1<<w), w)) {
			t.Fatalf("Fit(width %d) wrong", w)
		}
		bitops.RotateLefts(dst, xw, k, w)
		for i := range x {
			// k[i] as a signed int: two's complement rotates the other way.
			if want := naiveRotl(xw[i], int(int64(k[i])%int64(w)), w); dst[i] != want {
				t.Fatalf("RotateLefts: element %d: rotl(%#x, %d, %d) = %#x; want %#x", i, xw[i], int64(k[i]), w, dst[i], want)
			}
		}
		bitops.RotateRights(dst, xw, k, w)
		for i := range x {
			if want := naiveRotl(xw[i], -int(int64(k[i])%int64(w)), w); dst[i] != want {
				t.Fatalf("RotateRights: element %d: rotr(%#x, %d, %d) = %#x; want %#x", i, xw[i], int64(k[i]), w, dst[i], want)
			}
		}
		bitops.Reverses(dst, xw, w)
		for i := range x {
			if want := naiveReverse(xw[i], w); dst[i] != want {
				t.Fatalf("Reverses: element %d = %#x; want %#x", i, dst[i], want)
			}
		}
		bitops.SwapBytesAll(dst, xw, w)
		for i := range x {
			if want := naiveSwapBytes(xw[i], w); dst[i] != want {
				t.Fatalf("SwapBytesAll: element %d = %#x; want %#x", i, dst[i], want)
			}
		}
	}
	// Delta swaps with valid (mask, delta) pairs built per element.
	mask, delta := make([]uint64, n), make([]uint64, n)
	for i := range x {
		d := uint(k[i]&63) | 1
		mk := m[i] & (^uint64(0) >> d)
		mk &^= mk << d
		mk &^= mk >> d
		mask[i], delta[i] = mk, uint64(d)
	}
	bitops.DeltaSwaps(dst, x, mask, delta)
	for i := range x {
		if want := naiveDeltaSwap(x[i], mask[i], uint(delta[i])); dst[i] != want {
			t.Fatalf("DeltaSwaps: element %d = %#x; want %#x", i, dst[i], want)
		}
	}
}

func FuzzSlices(f *testing.F) {
	f.Add([]byte{}, uint64(1))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint64(7))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 1))
		n := len(data)
		x := make([]uint64, n)
		for i, b := range data {
			x[i] = uint64(b) << (r.UintN(57)) // data decides the bytes, seed their place
		}
		checkSlices(t, x, randomWords(r, n), randomWords(r, n))
	})
}

// The array kernels on 2^20 words: the loops behind popcount(a) and the
// others (docs/words.md: well under 1 ns per word). ns/op is per array; divide
// by 1048576 for ns per word, or read the ns/word metric.
func benchSlice(b *testing.B, f func(dst, x, m []uint64)) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(7, 8))
	x, m := randomWords(r, n), randomWords(r, n)
	for i := range x {
		x[i] |= 1 // no zero for the scans
	}
	dst := make([]uint64, n)
	b.SetBytes(8 * n)
	for b.Loop() {
		f(dst, x, m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/word")
}

func BenchmarkSlices(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(dst, x, m []uint64)
	}{
		{"PopCounts", func(d, x, _ []uint64) { bitops.PopCounts(d, x) }},
		{"Parities", func(d, x, _ []uint64) { bitops.Parities(d, x) }},
		{"Bsfs", func(d, x, _ []uint64) { bitops.Bsfs(d, x) }},
		{"Bsrs", func(d, x, _ []uint64) { bitops.Bsrs(d, x) }},
		{"Lsbs", func(d, x, _ []uint64) { bitops.Lsbs(d, x) }},
		{"Grays", func(d, x, _ []uint64) { bitops.Grays(d, x) }},
		{"GrayInverses", func(d, x, _ []uint64) { bitops.GrayInverses(d, x) }},
		{"RotateLefts64", func(d, x, m []uint64) { bitops.RotateLefts(d, x, m, 64) }},
		{"Reverses64", func(d, x, _ []uint64) { bitops.Reverses(d, x, 64) }},
		{"SwapBytesAll64", func(d, x, _ []uint64) { bitops.SwapBytesAll(d, x, 64) }},
		{"DeltaSwaps", func(d, x, m []uint64) { bitops.DeltaSwaps(d, x, x, m) }},
		{"Pdeps", func(d, x, m []uint64) { bitops.Pdeps(d, x, m) }},
		{"Pexts", func(d, x, m []uint64) { bitops.Pexts(d, x, m) }},
	} {
		b.Run(c.name, func(b *testing.B) { benchSlice(b, c.f) })
	}
}

func BenchmarkGrayInverse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += bitops.GrayInverse(uint64(i))
	}
}

func ExampleGray() {
	for i := uint64(0); i < 4; i++ {
		fmt.Printf("%d %02b %d\n", i, bitops.Gray(i), bitops.GrayInverse(bitops.Gray(i)))
	}
	// Output:
	// 0 00 0
	// 1 01 1
	// 2 11 2
	// 3 10 3
}
