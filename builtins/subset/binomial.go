package subset

import (
	"math/big"
	"math/bits"
)

// MaxBinomialBits bounds the size of the results BinomialBig computes.
const MaxBinomialBits = 1 << 23

// BinomialBig returns n choose k exactly, for any n >= 0; it is 0 when
// k < 0 or k > n. ok is false when n < 0 or when the result could exceed
// MaxBinomialBits bits (the bound used is min(k, n-k) * bitlen(n), at
// least the result's length), so that no call runs for long.
func BinomialBig(n, k int64) (c *big.Int, ok bool) {
	if n < 0 {
		return nil, false
	}
	if k < 0 || k > n {
		return new(big.Int), true
	}
	k = min(k, n-k)
	if k > 0 && uint64(k)*uint64(bits.Len64(uint64(n))) > MaxBinomialBits {
		return nil, false
	}
	if n <= 64 {
		return new(big.Int).SetUint64(Binomial(int(n), int(k))), true
	}
	return new(big.Int).Binomial(n, k), true
}
