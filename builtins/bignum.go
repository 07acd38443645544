package builtins

import (
	"math"
	"math/big"
	"math/bits"
	"runtime"

	"go.starlark.net/starlark"
)

// Big-number work (pow of big ints, round to a power of ten) is done in
// steps of about bigStepOps word operations, and between two steps it
// yields the processor and polls the run's context. math/big's inner
// loops are assembly, where Go cannot preempt a goroutine, so on one
// processor (GOMAXPROCS=1, a container's share of a CPU) one long call
// starves every other goroutine, the timer of -timeout and the hard stop
// included; the yield lets them run.
const bigStepOps = 1 << 22

// pollBig yields the processor (runtime.Gosched) and returns the
// interruption error, naming fn, when the run of thread is cancelled.
func pollBig(thread *starlark.Thread, fn string) error {
	runtime.Gosched()
	if thread == nil {
		return nil
	}
	if ctx := Context(thread); ctx.Err() != nil {
		return interrupted(fn, ctx)
	}
	return nil
}

// mulOps estimates the word operations of a product of two numbers of
// n words (math/big multiplies long numbers by Karatsuba, n^1.585).
func mulOps(n int) float64 {
	f := float64(max(n, 1))
	if n < 40 {
		return f * f
	}
	return math.Pow(f, 1.585) * 4
}

// expWholeOps is the most word operations (estimated) for which expPolled
// calls big.Int.Exp once: a few tenths of a second, within the hard
// stop's second, and more than any modular power of a few thousand bits.
const expWholeOps = 1 << 28

// expPolled returns x**e mod m (m > 1, x in [0, m), e >= 0) as
// big.Int.Exp computes it. Past expWholeOps it works by windows of the
// exponent's bits small enough that each takes about bigStepOps word
// operations, polling between them: r = r**(2**k) * x**w mod m for the
// k-bit window w of e, from the top. That costs about twice one Exp (x**w
// repeats the squarings of r**(2**k)): the price of stopping on time.
func expPolled(thread *starlark.Thread, fn string, x, e, m *big.Int) (*big.Int, error) {
	words := (m.BitLen() + bits.UintSize - 1) / bits.UintSize
	// One modular product is a product and a division.
	prod := 2 * mulOps(words)
	if float64(e.BitLen())*prod <= expWholeOps {
		return new(big.Int).Exp(x, e, m), nil
	}
	// A step of k bits costs about 2k modular products (squarings, and
	// x**w by squarings).
	k := max(int(float64(bigStepOps)/(2*prod)), 1)
	r := big.NewInt(1)
	pow2k := new(big.Int)
	w := new(big.Int)
	for top := e.BitLen(); top > 0; top -= k {
		lo := max(top-k, 0)
		if err := pollBig(thread, fn); err != nil {
			return nil, err
		}
		r.Exp(r, pow2k.Lsh(big.NewInt(1), uint(top-lo)), m)
		if err := pollBig(thread, fn); err != nil {
			return nil, err
		}
		w.Rsh(e, uint(lo))
		w.And(w, new(big.Int).Sub(pow2k, big.NewInt(1)))
		if w.Sign() != 0 {
			r.Mul(r, new(big.Int).Exp(x, w, m))
			r.Mod(r, m)
		}
	}
	return r, nil
}

// powPolled returns x**e (e >= 0, the result within maxPowBits) by
// squaring and multiplying, polling between the products once they are
// long.
func powPolled(thread *starlark.Thread, fn string, x, e *big.Int) (*big.Int, error) {
	if float64(e.Int64())*float64(x.BitLen()) < 1<<16 {
		return new(big.Int).Exp(x, e, nil), nil
	}
	r := big.NewInt(1)
	for i := e.BitLen() - 1; i >= 0; i-- {
		if r.BitLen() > 1<<12 {
			if err := pollBig(thread, fn); err != nil {
				return nil, err
			}
		}
		r.Mul(r, r)
		if e.Bit(i) == 1 {
			r.Mul(r, x)
		}
	}
	return r, nil
}

// log2Ten is log2(10), rounded down.
const log2Ten = 3.321928094887362

// roundIntDigits returns x rounded to a multiple of 10**d (d > 0), halves
// to even, as Python's round(x, -d).
func roundIntDigits(thread *starlark.Thread, fn string, x *big.Int, d int64) (*big.Int, error) {
	// |x| < 2**BitLen <= 10**d / 2 rounds to 0: compared in bits, with
	// a margin for the float's rounding.
	if float64(x.BitLen())+1 < float64(d)*log2Ten-1 {
		return new(big.Int), nil
	}
	// Here 10**d has at most about as many bits as x.
	m, err := powPolled(thread, fn, big.NewInt(10), big.NewInt(d))
	if err != nil {
		return nil, err
	}
	if err := pollBig(thread, fn); err != nil {
		return nil, err
	}
	q, r := new(big.Int).DivMod(x, m, new(big.Int)) // floor, 0 <= r < m
	if c := new(big.Int).Lsh(r, 1).Cmp(m); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	return q.Mul(q, m), nil
}
