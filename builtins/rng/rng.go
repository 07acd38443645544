// Package rng is the pseudo-random generator of bitsh's random module:
// xoshiro256** (Blackman and Vigna, 2018) with its state filled by
// splitmix64 from a 64-bit seed, as the xoshiro authors recommend. It is
// fully specified, so a seed gives the same numbers on every machine and
// in every release.
package rng

import "math/bits"

// A Source is a xoshiro256** generator. The zero Source is not valid;
// use New. A Source is not safe for concurrent use.
type Source struct {
	s [4]uint64
}

// New returns a generator seeded with seed.
func New(seed uint64) *Source {
	var g Source
	g.Seed(seed)
	return &g
}

// SplitMix64 advances *state by the golden-ratio increment and returns the
// mixed value (Steele, Lea and Flood's splitmix64).
func SplitMix64(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Seed resets the generator: its four state words are the first four
// outputs of splitmix64 started at seed (never all zero).
func (g *Source) Seed(seed uint64) {
	st := seed
	for i := range g.s {
		g.s[i] = SplitMix64(&st)
	}
}

// Uint64 returns the next 64-bit output of xoshiro256**.
func (g *Source) Uint64() uint64 {
	s := &g.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// Uint64n returns a uniform value in [0, n), or a full 64-bit output when
// n == 0 (meaning 2^64). It uses Lemire's multiply-and-reject method: the
// high word of Uint64()*n, drawing again while the low word falls in the
// biased zone, so it consumes one output almost always.
func (g *Source) Uint64n(n uint64) uint64 {
	if n == 0 {
		return g.Uint64()
	}
	hi, lo := bits.Mul64(g.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.Uint64(), n)
		}
	}
	return hi
}

// Sparse returns the AND of k outputs (k >= 1): each bit is set with
// probability 2^-k, the sparse random words magic-number searches try.
func (g *Source) Sparse(k int) uint64 {
	x := ^uint64(0)
	for range k {
		x &= g.Uint64()
	}
	return x
}

// Shuffle permutes n items with Fisher-Yates, from the last position
// down, calling swap(i, j) with j = Uint64n(i+1).
func (g *Source) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, int(g.Uint64n(uint64(i+1))))
	}
}

// Fill sets every word of dst to the next Sparse(k) value, with the state
// kept in registers (random_words fills whole arrays with it).
func (g *Source) Fill(dst []uint64, k int) {
	s0, s1, s2, s3 := g.s[0], g.s[1], g.s[2], g.s[3]
	for i := range dst {
		x := ^uint64(0)
		for range k {
			x &= bits.RotateLeft64(s1*5, 7) * 9
			t := s1 << 17
			s2 ^= s0
			s3 ^= s1
			s1 ^= s2
			s0 ^= s3
			s2 ^= t
			s3 = bits.RotateLeft64(s3, 45)
		}
		dst[i] = x
	}
	g.s = [4]uint64{s0, s1, s2, s3}
}
