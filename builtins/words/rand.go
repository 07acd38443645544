package words

import "math/bits"

// A Rand is xoshiro256** 1.0 (Blackman and Vigna, 2018), seeded by
// expanding the seed with splitmix64 (Steele, Lea and Flood, 2014) into the
// four state words, as the authors recommend. The stream depends on the
// seed only, so random_words gives the same words on every machine.
type Rand struct{ s [4]uint64 }

// SplitMix64 advances the splitmix64 state *x and returns its next output.
func SplitMix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// NewRand returns the generator for seed: its state is the first four
// outputs of splitmix64 started at seed.
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	for i := range r.s {
		r.s[i] = SplitMix64(&seed)
	}
	return r
}

// Next returns the next word of the stream.
func (r *Rand) Next() uint64 {
	s := &r.s
	out := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return out
}

// Sparse returns the AND of the next k words (k >= 1): each bit is set
// with probability 2^-k, the sparse candidates magic searches try.
func (r *Rand) Sparse(k int) uint64 {
	x := r.Next()
	for i := 1; i < k; i++ {
		x &= r.Next()
	}
	return x
}

// Fill sets every word of dst to the next Sparse(k) value.
func (r *Rand) Fill(dst []uint64, k int) {
	s0, s1, s2, s3 := r.s[0], r.s[1], r.s[2], r.s[3]
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
	r.s = [4]uint64{s0, s1, s2, s3}
}
