package subset_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/builtins/subset"
)

// naiveSubsets lists every subset of d in ascending order by brute force:
// it builds each subset from the bit positions of d one index bit at a time
// and sorts the result (itertools-style, independent of the kernels).
func naiveSubsets(d uint64) []uint64 {
	var pos []uint
	for i := uint(0); i < 64; i++ {
		if d>>i&1 == 1 {
			pos = append(pos, i)
		}
	}
	out := make([]uint64, 0, 1<<len(pos))
	for i := 0; i < 1<<len(pos); i++ {
		var x uint64
		for j, p := range pos {
			if i>>j&1 == 1 {
				x |= 1 << p
			}
		}
		out = append(out, x)
	}
	slices.Sort(out)
	return out
}

func naiveK(d uint64, k int) []uint64 {
	var out []uint64
	for _, x := range naiveSubsets(d) {
		if bits.OnesCount64(x) == k {
			out = append(out, x)
		}
	}
	return out
}

// testSets are sets of at most 12 bits, including the extremes of the word.
func testSets() []uint64 {
	sets := []uint64{0, 1, 0xf, 0x8000000000000000, 0xc000000000000001, 0xf0f, 0x8421, 0xfff << 52, 0xa5a}
	r := rand.New(rand.NewPCG(1, 2))
	for len(sets) < 60 {
		var d uint64
		for n := r.IntN(13); n > 0; n-- {
			d |= 1 << r.IntN(64)
		}
		sets = append(sets, d)
	}
	return sets
}

func TestNext(t *testing.T) {
	for _, d := range testSets() {
		want := naiveSubsets(d)
		var got []uint64
		n := uint64(0)
		for {
			got = append(got, n)
			if n = subset.Next(n, d); n == 0 {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("carry-rippler over %#x: got %#x, want %#x", d, got, want)
		}
		for i, x := range want {
			if y := subset.Deposit(uint64(i), d); y != x {
				t.Errorf("Deposit(%d, %#x) = %#x; want %#x", i, d, y, x)
			}
			if j := subset.Extract(x, d); j != uint64(i) {
				t.Errorf("Extract(%#x, %#x) = %d; want %d", x, d, j, i)
			}
		}
	}
}

func TestSnoobTable(t *testing.T) {
	const U = ^uint64(0)
	for _, c := range []struct {
		x, set, want uint64
		ok           bool
	}{
		{1, U, 2, true},
		{0b0111, U, 0b1011, true},
		{0b1100, U, 0b10001, true},
		{0xf, 0xf, 0, false},
		{0x1, 0x5, 0x4, true},
		{0x4, 0x5, 0, false},
		{0x8000000000000000, U, 0, false},
		{0x0f, 0x0f0f, 0x107, true},
		{0, U, 0, false},
	} {
		got, ok := subset.Snoob(c.x, c.set)
		if got != c.want || ok != c.ok {
			t.Errorf("Snoob(%#x, %#x) = %#x, %v; want %#x, %v", c.x, c.set, got, ok, c.want, c.ok)
		}
	}
}

func TestSnoobAndRSnoob(t *testing.T) {
	for _, d := range testSets() {
		for k := 1; k <= bits.OnesCount64(d); k++ {
			want := naiveK(d, k)
			if first := subset.Lowest(d, k); first != want[0] {
				t.Errorf("Lowest(%#x, %d) = %#x; want %#x", d, k, first, want[0])
			}
			if last := subset.Highest(d, k); last != want[len(want)-1] {
				t.Errorf("Highest(%#x, %d) = %#x; want %#x", d, k, last, want[len(want)-1])
			}
			for i, x := range want {
				got, ok := subset.Snoob(x, d)
				if i+1 < len(want) {
					if !ok || got != want[i+1] {
						t.Errorf("Snoob(%#x, %#x) = %#x, %v; want %#x", x, d, got, ok, want[i+1])
					}
				} else if ok {
					t.Errorf("Snoob(%#x, %#x) = %#x; want none", x, d, got)
				}
				got, ok = subset.RSnoob(x, d)
				if i > 0 {
					if !ok || got != want[i-1] {
						t.Errorf("RSnoob(%#x, %#x) = %#x, %v; want %#x", x, d, got, ok, want[i-1])
					}
				} else if ok {
					t.Errorf("RSnoob(%#x, %#x) = %#x; want none", x, d, got)
				}
				if u := subset.UnrankK(d, k, uint64(i)); u != x {
					t.Errorf("UnrankK(%#x, %d, %d) = %#x; want %#x", d, k, i, u, x)
				}
				if r := subset.RankK(x, d); r != uint64(i) {
					t.Errorf("RankK(%#x, %#x) = %d; want %d", x, d, r, i)
				}
			}
			if n := subset.Binomial(bits.OnesCount64(d), k); n != uint64(len(want)) {
				t.Errorf("Binomial(%d, %d) = %d; want %d", bits.OnesCount64(d), k, n, len(want))
			}
		}
	}
}

// TestBinomial checks the table against the multiplicative formula, where
// it fits, and the known middle value.
func TestBinomial(t *testing.T) {
	for n := 0; n <= 64; n++ {
		c := uint64(1)
		for k := 0; k <= n; k++ {
			if got := subset.Binomial(n, k); got != c {
				t.Fatalf("Binomial(%d, %d) = %d; want %d", n, k, got, c)
			}
			// c * (n-k) / (k+1) without overflow: divide first by the gcd.
			hi, lo := bits.Mul64(c, uint64(n-k))
			c, _ = bits.Div64(hi, lo, uint64(k+1))
		}
	}
	if got := subset.Binomial(64, 32); got != 1832624140942590534 {
		t.Errorf("Binomial(64, 32) = %d", got)
	}
	if subset.Binomial(3, 4) != 0 || subset.Binomial(3, -1) != 0 {
		t.Error("Binomial outside 0..n is not 0")
	}
}

// TestUnrankWide checks unranking and ranking round trips on full 64-bit
// sets, where the oracle cannot enumerate: consecutive ranks are snoob steps.
func TestUnrankWide(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, d := range []uint64{^uint64(0), 0xffffffff00000000, 0x5555555555555555} {
		p := bits.OnesCount64(d)
		for k := 1; k <= p; k++ {
			n := subset.Binomial(p, k)
			for trial := 0; trial < 20; trial++ {
				i := r.Uint64N(n)
				x := subset.UnrankK(d, k, i)
				if bits.OnesCount64(x) != k || x&^d != 0 {
					t.Fatalf("UnrankK(%#x, %d, %d) = %#x is not a %d-subset", d, k, i, x, k)
				}
				if got := subset.RankK(x, d); got != i {
					t.Fatalf("RankK(UnrankK(%#x, %d, %d)) = %d", d, k, i, got)
				}
				if i+1 < n {
					next, ok := subset.Snoob(x, d)
					if want := subset.UnrankK(d, k, i+1); !ok || next != want {
						t.Fatalf("Snoob(%#x, %#x) = %#x; want %#x", x, d, next, want)
					}
				}
			}
			if subset.UnrankK(d, k, n-1) != subset.Highest(d, k) || subset.UnrankK(d, k, 0) != subset.Lowest(d, k) {
				t.Fatalf("UnrankK ends of %#x, k=%d", d, k)
			}
		}
	}
}

// naiveSnoob finds the next greater k-subset by scanning upwards.
func naiveSnoob(x, set uint64) (uint64, bool) {
	k := bits.OnesCount64(x)
	for y := x + 1; y != 0 && y <= set; y++ {
		if y&^set == 0 && bits.OnesCount64(y) == k {
			return y, true
		}
	}
	return 0, false
}

func FuzzSnoob(f *testing.F) {
	f.Add(uint64(0b0111), uint64(0xffff))
	f.Add(uint64(0x10), uint64(0x1f0))
	f.Fuzz(func(t *testing.T, x, set uint64) {
		set &= 0xfffff // keep the naive scan short
		x &= set
		if x == 0 {
			return
		}
		got, ok := subset.Snoob(x, set)
		want, wok := naiveSnoob(x, set)
		if got != want || ok != wok {
			t.Fatalf("Snoob(%#x, %#x) = %#x, %v; want %#x, %v", x, set, got, ok, want, wok)
		}
		if ok {
			if back, ok := subset.RSnoob(got, set); !ok || back != x {
				t.Fatalf("RSnoob(Snoob(%#x, %#x)) = %#x, %v", x, set, back, ok)
			}
		}
	})
}

// FuzzSnoobWide checks Snoob on arbitrary 64-bit sets against ranking.
func FuzzSnoobWide(f *testing.F) {
	f.Add(uint64(0x8000000000000001), ^uint64(0))
	f.Fuzz(func(t *testing.T, x, set uint64) {
		x &= set
		if x == 0 {
			return
		}
		got, ok := subset.Snoob(x, set)
		i := subset.RankK(x, set)
		n := subset.Binomial(bits.OnesCount64(set), bits.OnesCount64(x))
		if ok != (i+1 < n) {
			t.Fatalf("Snoob(%#x, %#x) ok = %v at rank %d of %d", x, set, ok, i, n)
		}
		if ok && subset.RankK(got, set) != i+1 {
			t.Fatalf("Snoob(%#x, %#x) = %#x is not the next rank", x, set, got)
		}
	})
}

var sink uint64

// BenchmarkCarryRippler28 steps the carry-rippler over a 28-bit set; one op
// is one subset (compare bench/subsets.c).
func BenchmarkCarryRippler28(b *testing.B) {
	const d = 0x0fffffff << 20
	n, acc := uint64(0), uint64(0)
	for i := 0; i < b.N; i++ {
		n = subset.Next(n, d)
		acc += n
	}
	sink = acc
}

// BenchmarkSnoob48x6 walks the 6-subsets of a 48-bit set, restarting at the
// end; one op is one subset.
func BenchmarkSnoob48x6(b *testing.B) {
	const set = 0x0000ffffffffffff << 8
	first := subset.Lowest(set, 6)
	x, acc := first, uint64(0)
	for i := 0; i < b.N; i++ {
		y, ok := subset.Snoob(x, set)
		if !ok {
			y = first
		}
		x = y
		acc += x
	}
	sink = acc
}

func BenchmarkUnrankK(b *testing.B) {
	acc := uint64(0)
	for i := 0; i < b.N; i++ {
		acc += subset.UnrankK(^uint64(0), 32, uint64(i)*0x9e3779b97f4a7c15%subset.Binomial(64, 32))
	}
	sink = acc
}

func ExampleNext() {
	d := uint64(0b1011)
	for n := uint64(0); ; {
		fmt.Printf("%04b ", n)
		if n = subset.Next(n, d); n == 0 {
			break
		}
	}
	fmt.Println()
	// Output: 0000 0001 0010 0011 1000 1001 1010 1011
}

func ExampleSnoob() {
	set := uint64(0b11011)
	for x, ok := subset.Lowest(set, 2), true; ok; x, ok = subset.Snoob(x, set) {
		fmt.Printf("%05b ", x)
	}
	fmt.Println()
	// Output: 00011 01001 01010 10001 10010 11000
}

func ExampleRSnoob() {
	x, ok := subset.RSnoob(0b11000, 0b11011)
	fmt.Printf("%05b %v\n", x, ok)
	_, ok = subset.RSnoob(0b00011, 0b11011)
	fmt.Println(ok)
	// Output:
	// 10010 true
	// false
}

func ExampleUnrankK() {
	// The 1000000th 32-subset of the full word, without stepping there.
	fmt.Printf("%#x\n", subset.UnrankK(^uint64(0), 32, 999999))
	// Output: 0x37d7efebff
}

func FuzzDeposit(f *testing.F) {
	f.Add(uint64(5), uint64(0xf0))
	f.Fuzz(func(t *testing.T, i, d uint64) {
		p := bits.OnesCount64(d)
		if p < 64 {
			i &= 1<<uint(p) - 1
		}
		x := subset.Deposit(i, d)
		if x&^d != 0 || bits.OnesCount64(x) != bits.OnesCount64(i) || subset.Extract(x, d) != i {
			t.Fatalf("Deposit(%#x, %#x) = %#x does not round-trip", i, d, x)
		}
	})
}

func FuzzUnrankK(f *testing.F) {
	f.Add(^uint64(0), uint8(32), uint64(12345))
	f.Fuzz(func(t *testing.T, d uint64, k uint8, i uint64) {
		p := bits.OnesCount64(d)
		kk := int(k) % (p + 1)
		n := subset.Binomial(p, kk)
		i %= n
		x := subset.UnrankK(d, kk, i)
		if x&^d != 0 || bits.OnesCount64(x) != kk || subset.RankK(x, d) != i {
			t.Fatalf("UnrankK(%#x, %d, %d) = %#x does not round-trip", d, kk, i, x)
		}
	})
}

func ExampleDeposit() {
	// The subsets of 0b1010 by index: 0, 0b10, 0b1000, 0b1010.
	for i := uint64(0); i < 4; i++ {
		fmt.Printf("%04b ", subset.Deposit(i, 0b1010))
	}
	fmt.Println()
	// Output: 0000 0010 1000 1010
}

func ExampleRankK() {
	fmt.Println(subset.RankK(0b11000, 0b11011), subset.Binomial(4, 2))
	// Output: 5 6
}

func ExampleLowest() {
	fmt.Printf("%#x %#x\n", subset.Lowest(0xf0f0, 3), subset.Highest(0xf0f0, 3))
	// Output: 0x70 0xe000
}
