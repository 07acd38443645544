package rng_test

import (
	"math/bits"
	"testing"

	"github.com/bitsh/bitsh/builtins/rng"
)

// refXoshiro is a transcription of the reference C code of xoshiro256**
// (prng.di.unimi.it), written independently of the package's.
type refXoshiro [4]uint64

func (s *refXoshiro) next() uint64 {
	rotl := func(x uint64, k int) uint64 { return (x << k) | (x >> (64 - k)) }
	result := rotl(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = rotl(s[3], 45)
	return result
}

func refSeed(seed uint64) refXoshiro {
	var s refXoshiro
	x := seed
	for i := range s {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		s[i] = z ^ (z >> 31)
	}
	return s
}

// TestSplitMix64 checks the first outputs for seed 1234567 against the
// values printed by the reference splitmix64.c (Vigna), widely quoted.
func TestSplitMix64(t *testing.T) {
	st := uint64(1234567)
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821}
	for i, w := range want {
		if got := rng.SplitMix64(&st); got != w {
			t.Errorf("output %d = %d; want %d", i, got, w)
		}
	}
}

func TestAgainstReference(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1 << 63, ^uint64(0)} {
		g := rng.New(seed)
		ref := refSeed(seed)
		for i := range 1000 {
			if got, want := g.Uint64(), ref.next(); got != want {
				t.Fatalf("seed %d output %d = %#x; want %#x", seed, i, got, want)
			}
		}
	}
}

func TestUint64n(t *testing.T) {
	g := rng.New(7)
	for _, n := range []uint64{1, 2, 3, 7, 10, 1 << 32, 1<<63 + 1, ^uint64(0)} {
		for range 200 {
			if v := g.Uint64n(n); v >= n {
				t.Fatalf("Uint64n(%d) = %d", n, v)
			}
		}
	}
	// Uniformity, roughly: 6 buckets of 60000 draws each within 3%.
	var count [6]int
	for range 60000 {
		count[g.Uint64n(6)]++
	}
	for i, c := range count {
		if c < 9700 || c > 10300 {
			t.Errorf("bucket %d holds %d of 60000", i, c)
		}
	}
	// Lemire's method: the high word of the product when no rejection.
	a, b := rng.New(9), rng.New(9)
	for range 100 {
		hi, _ := bits.Mul64(b.Uint64(), 1000)
		if got := a.Uint64n(1000); got != hi {
			t.Fatalf("Uint64n(1000) = %d; want %d", got, hi)
		}
	}
}

func TestSparse(t *testing.T) {
	g := rng.New(3)
	total := 0
	for range 4000 {
		total += bits.OnesCount64(g.Sparse(3))
	}
	// Expected 8 ones a word.
	if avg := float64(total) / 4000; avg < 7.5 || avg > 8.5 {
		t.Errorf("Sparse(3) averages %.2f ones; want about 8", avg)
	}
}

func TestShufflePermutes(t *testing.T) {
	g := rng.New(11)
	xs := make([]int, 50)
	for i := range xs {
		xs[i] = i
	}
	g.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	seen := make([]bool, 50)
	moved := 0
	for i, x := range xs {
		seen[x] = true
		if x != i {
			moved++
		}
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("%d lost by Shuffle", i)
		}
	}
	if moved == 0 {
		t.Error("Shuffle left 50 items in place")
	}
}

func BenchmarkUint64(b *testing.B) {
	g := rng.New(1)
	var sink uint64
	for range b.N {
		sink ^= g.Uint64()
	}
	_ = sink
}

func BenchmarkUint64n(b *testing.B) {
	g := rng.New(1)
	var sink uint64
	for range b.N {
		sink ^= g.Uint64n(1000003)
	}
	_ = sink
}
