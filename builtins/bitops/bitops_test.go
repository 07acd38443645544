package bitops_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// Naive references: one bit at a time, straight from the definitions.

func naivePdep(x, mask uint64) uint64 {
	var r uint64
	k := 0
	for i := 0; i < 64; i++ {
		if mask>>i&1 == 1 {
			r |= (x >> k & 1) << i
			k++
		}
	}
	return r
}

func naivePext(x, mask uint64) uint64 {
	var r uint64
	k := 0
	for i := 0; i < 64; i++ {
		if mask>>i&1 == 1 {
			r |= (x >> i & 1) << k
			k++
		}
	}
	return r
}

func naiveRotl(x uint64, k int, w uint) uint64 {
	for ; k < 0; k += int(w) {
	}
	for i := 0; i < k%int(w); i++ {
		top := x >> (w - 1) & 1
		x = (x<<1 | top) & bitops.Mask(w)
	}
	return x
}

func naiveReverse(x uint64, w uint) uint64 {
	var r uint64
	for i := uint(0); i < w; i++ {
		r |= (x >> i & 1) << (w - 1 - i)
	}
	return r
}

func naiveSwapBytes(x uint64, w uint) uint64 {
	var r uint64
	n := w / 8
	for i := uint(0); i < n; i++ {
		r |= (x >> (8 * i) & 0xff) << (8 * (n - 1 - i))
	}
	return r
}

func naiveDeltaSwap(x, mask uint64, d uint) uint64 {
	r := x
	for i := uint(0); i+d < 64; i++ {
		if mask>>i&1 == 1 {
			a, b := x>>i&1, x>>(i+d)&1
			r = r&^(1<<i|1<<(i+d)) | b<<i | a<<(i+d)
		}
	}
	return r
}

func TestTable(t *testing.T) {
	tests := []struct {
		name      string
		got, want uint64
	}{
		{"Pdep(0b101, 0xf0)", bitops.Pdep(0b101, 0xf0), 0x50},
		{"Pext(0x50, 0xf0)", bitops.Pext(0x50, 0xf0), 0b101},
		{"Pdep(^0, 0)", bitops.Pdep(^uint64(0), 0), 0},
		{"Pext(^0, ^0)", bitops.Pext(^uint64(0), ^uint64(0)), ^uint64(0)},
		{"RotateLeft(0x81, 1, 8)", bitops.RotateLeft(0x81, 1, 8), 0x03},
		{"RotateLeft(0x81, -1, 8)", bitops.RotateLeft(0x81, -1, 8), 0xc0},
		{"RotateLeft(1, 65, 64)", bitops.RotateLeft(1, 65, 64), 2},
		{"Reverse(1, 8)", bitops.Reverse(1, 8), 0x80},
		{"Reverse(1, 64)", bitops.Reverse(1, 64), 1 << 63},
		{"SwapBytes(0x1234, 16)", bitops.SwapBytes(0x1234, 16), 0x3412},
		{"DeltaSwap(0x12, 0x0f, 4)", bitops.DeltaSwap(0x12, 0x0f, 4), 0x21},
		{"Lsb(0b101000)", bitops.Lsb(0b101000), 0b1000},
		{"Bsf(0b101000)", uint64(bitops.Bsf(0b101000)), 3},
		{"Bsf(0)", uint64(bitops.Bsf(0)), 64},
		{"Bsr(0b101000)", uint64(bitops.Bsr(0b101000)), 5},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %#x; want %#x", tt.name, tt.got, tt.want)
		}
	}
	if got := bitops.Bsr(0); got != -1 {
		t.Errorf("Bsr(0) = %d; want -1", got)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		x     uint64
		base  int
		width uint
		want  string
	}{
		{255, 16, 0, "0xff"},
		{255, 16, 16, "0x00ff"},
		{0, 16, 0, "0x0"},
		{5, 2, 8, "0b00000101"},
		{8, 8, 8, "0o010"},
		{1, 8, 64, "0o" + strings.Repeat("0", 21) + "1"},
		{^uint64(0), 16, 64, "0xffffffffffffffff"},
	}
	for _, tt := range tests {
		if got := bitops.Format(tt.x, tt.base, tt.width); got != tt.want {
			t.Errorf("Format(%#x, %d, %d) = %q; want %q", tt.x, tt.base, tt.width, got, tt.want)
		}
	}
}

func TestAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x, m := r.Uint64(), r.Uint64()
		if i%3 == 0 {
			m &= r.Uint64() // sparser masks
		}
		checkAll(t, x, m, r.IntN(300)-150)
	}
}

func checkAll(t *testing.T, x, m uint64, k int) {
	t.Helper()
	if got, want := bitops.Pdep(x, m), naivePdep(x, m); got != want {
		t.Fatalf("Pdep(%#x, %#x) = %#x; want %#x", x, m, got, want)
	}
	if got, want := bitops.Pext(x, m), naivePext(x, m); got != want {
		t.Fatalf("Pext(%#x, %#x) = %#x; want %#x", x, m, got, want)
	}
	for _, w := range []uint{8, 16, 32, 64} {
		xw := x & bitops.Mask(w)
		if got, want := bitops.RotateLeft(xw, k, w), naiveRotl(xw, k, w); got != want {
			t.Fatalf("RotateLeft(%#x, %d, %d) = %#x; want %#x", xw, k, w, got, want)
		}
		if got, want := bitops.Reverse(xw, w), naiveReverse(xw, w); got != want {
			t.Fatalf("Reverse(%#x, %d) = %#x; want %#x", xw, w, got, want)
		}
		if got, want := bitops.SwapBytes(xw, w), naiveSwapBytes(xw, w); got != want {
			t.Fatalf("SwapBytes(%#x, %d) = %#x; want %#x", xw, w, got, want)
		}
	}
	d := uint(k&63) | 1
	mask := m & (^uint64(0) >> d)
	// Keep only mask bits whose partner is outside the mask.
	mask &^= mask << d
	mask &^= mask >> d
	if got, want := bitops.DeltaSwap(x, mask, d), naiveDeltaSwap(x, mask, d); got != want {
		t.Fatalf("DeltaSwap(%#x, %#x, %d) = %#x; want %#x", x, mask, d, got, want)
	}
	idx := bitops.Indices(x)
	var back uint64
	for i, b := range idx {
		if i > 0 && idx[i-1] >= b {
			t.Fatalf("Indices(%#x) = %v not ascending", x, idx)
		}
		back |= 1 << b
	}
	if back != x {
		t.Fatalf("Indices(%#x) = %v does not rebuild x", x, idx)
	}
}

func FuzzKernels(f *testing.F) {
	f.Add(uint64(0), uint64(0), 0)
	f.Add(^uint64(0), uint64(0xf0f0), -3)
	f.Add(uint64(0x8000000000000001), ^uint64(0), 64)
	f.Fuzz(func(t *testing.T, x, m uint64, k int) {
		if k == -1<<63 {
			k = 0 // the naive rotation counts up from k
		}
		checkAll(t, x, m, k%1000)
	})
}

var sink uint64

func BenchmarkPdep(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += bitops.Pdep(uint64(i), 0x00ff00ff00ff00ff)
	}
}

func BenchmarkPext(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += bitops.Pext(uint64(i)*0x9e3779b97f4a7c15, 0x00ff00ff00ff00ff)
	}
}

func BenchmarkRotateLeft8(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += bitops.RotateLeft(uint64(i)&0xff, i, 8)
	}
}

func BenchmarkFormat(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += uint64(len(bitops.Format(uint64(i), 16, 64)))
	}
}

func ExamplePdep() {
	fmt.Printf("%#x\n", bitops.Pdep(0b101, 0xf0))
	// Output: 0x50
}

func ExamplePext() {
	fmt.Printf("%#b\n", bitops.Pext(0x50, 0xf0))
	// Output: 0b101
}

func ExampleRotateLeft() {
	fmt.Printf("%#x %#x\n", bitops.RotateLeft(0x81, 1, 8), bitops.RotateLeft(0x81, -1, 8))
	// Output: 0x3 0xc0
}

func ExampleDeltaSwap() {
	// Swap the two nibbles of a byte.
	fmt.Printf("%#x\n", bitops.DeltaSwap(0x12, 0x0f, 4))
	// Output: 0x21
}

func ExampleFormat() {
	fmt.Println(bitops.Format(255, 16, 16), bitops.Format(5, 2, 8), bitops.Format(8, 8, 8))
	// Output: 0x00ff 0b00000101 0o010
}
