package words_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/builtins/words"
)

var allOps = []words.Op{words.Add, words.Sub, words.Mul, words.And, words.Or, words.Xor, words.Shl, words.Shr, words.Div, words.Mod}

// naive is the per-element reference, written out apart from the kernel.
func naive(op words.Op, a, b uint64) (uint64, bool) {
	switch op {
	case words.Add:
		return a + b, true
	case words.Sub:
		return a - b, true
	case words.Mul:
		return a * b, true
	case words.And:
		return a & b, true
	case words.Or:
		return a | b, true
	case words.Xor:
		return a ^ b, true
	case words.Shl:
		if b >= 64 {
			return 0, true
		}
		return a << b, true
	case words.Shr:
		if b >= 64 {
			return 0, true
		}
		return a >> b, true
	case words.Div, words.Mod:
		if b == 0 {
			return 0, false
		}
		q, r := new(big.Int).QuoRem(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b), new(big.Int))
		if op == words.Div {
			return q.Uint64(), true
		}
		return r.Uint64(), true
	}
	panic("unknown op")
}

// interesting draws words that exercise edges: small, near 2^63 and 2^64,
// powers of two, shift counts around 64, and uniform words.
func interesting(r *rand.Rand) uint64 {
	switch r.IntN(8) {
	case 0:
		return uint64(r.IntN(5))
	case 1:
		return math.MaxUint64 - uint64(r.IntN(3))
	case 2:
		return 1 << r.IntN(64)
	case 3:
		return uint64(60 + r.IntN(8))
	case 4:
		return 1<<63 + uint64(r.IntN(3)) - 1
	case 5:
		return uint64(r.IntN(1000))
	}
	return r.Uint64()
}

func randomWords(r *rand.Rand, n int) []uint64 {
	a := make([]uint64, n)
	for i := range a {
		a[i] = interesting(r)
	}
	return a
}

func TestApply(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, op := range allOps {
		for _, n := range []int{0, 1, 2, 7, 64, 1000} {
			for round := 0; round < 20; round++ {
				a, b := randomWords(r, n), randomWords(r, n)
				// Array-array.
				dst := make([]uint64, n)
				bad := words.Apply(op, dst, a, b)
				want := -1
				for i := range a {
					z, ok := naive(op, a[i], b[i])
					if !ok {
						want = i
						break
					}
					if dst[i] != z {
						t.Fatalf("Apply(%v)[%d]: %#x %v %#x = %#x; want %#x", op, i, a[i], op, b[i], dst[i], z)
					}
				}
				if bad != want {
					t.Fatalf("Apply(%v) reported zero divisor at %d; want %d", op, bad, want)
				}
				// Array-word, both sides.
				x := interesting(r)
				ok := words.ApplyRight(op, dst, a, x)
				for i := range a {
					z, zok := naive(op, a[i], x)
					if zok != ok {
						t.Fatalf("ApplyRight(%v, %#x) ok = %v; want %v", op, x, ok, zok)
					}
					if ok && dst[i] != z {
						t.Fatalf("ApplyRight(%v)[%d]: %#x %v %#x = %#x; want %#x", op, i, a[i], op, x, dst[i], z)
					}
				}
				bad = words.ApplyLeft(op, dst, x, b)
				want = -1
				for i := range b {
					z, ok := naive(op, x, b[i])
					if !ok {
						want = i
						break
					}
					if dst[i] != z {
						t.Fatalf("ApplyLeft(%v)[%d]: %#x %v %#x = %#x; want %#x", op, i, x, op, b[i], dst[i], z)
					}
				}
				if bad != want {
					t.Fatalf("ApplyLeft(%v) reported zero divisor at %d; want %d", op, bad, want)
				}
			}
		}
	}
}

// TestDivideByWord checks the reciprocal division against the hardware's
// for divisors and dividends at the edges.
func TestDivideByWord(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	divisors := []uint64{1, 2, 3, 5, 6, 7, 10, 641, 1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64}
	for range 2000 {
		divisors = append(divisors, interesting(r)|1, r.Uint64()>>r.IntN(64)|1, r.Uint64())
	}
	for _, d := range divisors {
		if d == 0 {
			continue
		}
		a := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, d * 3, r.Uint64(), r.Uint64()}
		q := make([]uint64, len(a))
		m := make([]uint64, len(a))
		words.ApplyRight(words.Div, q, a, d)
		words.ApplyRight(words.Mod, m, a, d)
		for i, x := range a {
			if q[i] != x/d || m[i] != x%d {
				t.Fatalf("%#x // %#x = %#x, %% = %#x; want %#x, %#x", x, d, q[i], m[i], x/d, x%d)
			}
		}
	}
}

func TestCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ref := map[words.Cmp]func(a, b uint64) bool{
		words.Eq: func(a, b uint64) bool { return a == b },
		words.Ne: func(a, b uint64) bool { return a != b },
		words.Lt: func(a, b uint64) bool { return a < b },
		words.Le: func(a, b uint64) bool { return a <= b },
		words.Gt: func(a, b uint64) bool { return a > b },
		words.Ge: func(a, b uint64) bool { return a >= b },
	}
	for c, f := range ref {
		for _, n := range []int{0, 1, 33, 500} {
			a, b := randomWords(r, n), randomWords(r, n)
			copy(b[:n/2], a) // equal elements too
			dst := make([]uint64, n)
			words.Compare(c, dst, a, b)
			for i := range a {
				if want := b2u(f(a[i], b[i])); dst[i] != want {
					t.Fatalf("Compare(%d)[%d] of %#x, %#x = %d; want %d", c, i, a[i], b[i], dst[i], want)
				}
			}
			x := []uint64{7}
			if n > 0 {
				x = a[0:1]
			}
			words.CompareWord(c, dst, a, x[0])
			for i := range a {
				if want := b2u(f(a[i], x[0])); dst[i] != want {
					t.Fatalf("CompareWord(%d)[%d] of %#x, %#x = %d; want %d", c, i, a[i], x[0], dst[i], want)
				}
			}
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func TestUnary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 100} {
		a := randomWords(r, n)
		not, neg := make([]uint64, n), make([]uint64, n)
		words.Not(not, a)
		words.Neg(neg, a)
		for i, x := range a {
			if not[i] != math.MaxUint64-x || neg[i] != 0-x {
				t.Fatalf("~%#x = %#x, -%#x = %#x", x, not[i], x, neg[i])
			}
		}
	}
}

func TestReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 2, 100, 5000} {
		for round := 0; round < 10; round++ {
			a := randomWords(r, n)
			if round%3 == 0 {
				for i := range a {
					a[i] = math.MaxUint64 // carries on every step
				}
			}
			want := new(big.Int)
			count := 0
			for _, x := range a {
				want.Add(want, new(big.Int).SetUint64(x))
				if x != 0 {
					count++
				}
			}
			hi, lo := words.Sum(a)
			got := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
			got.Or(got, new(big.Int).SetUint64(lo))
			if got.Cmp(want) != 0 {
				t.Fatalf("Sum of %d words = %s; want %s", n, got, want)
			}
			if c := words.Count(a); c != count {
				t.Fatalf("Count = %d; want %d", c, count)
			}
			if words.Any(a) != (count > 0) || words.All(a) != (count == n) {
				t.Fatalf("Any = %v, All = %v with %d of %d non-zero", words.Any(a), words.All(a), count, n)
			}
			mn, okMin := words.Min(a)
			mx, okMax := words.Max(a)
			if okMin != (n > 0) || okMax != (n > 0) {
				t.Fatalf("Min/Max ok on %d words", n)
			}
			if n > 0 && (mn != slices.Min(a) || mx != slices.Max(a)) {
				t.Fatalf("Min, Max = %#x, %#x; want %#x, %#x", mn, mx, slices.Min(a), slices.Max(a))
			}
			if n > 0 {
				x := a[r.IntN(n)]
				if i := words.Index(a, x); i != slices.Index(a, x) {
					t.Fatalf("Index(%#x) = %d; want %d", x, i, slices.Index(a, x))
				}
			}
			if i := words.Index(a, 0xdeadbeefcafe1234); i != slices.Index(a, 0xdeadbeefcafe1234) {
				t.Fatalf("Index of an absent word = %d", i)
			}
			mask := randomWords(r, n)
			for i := range mask {
				mask[i] &= 1
			}
			var wantF []uint64
			for i, x := range a {
				if mask[i] != 0 {
					wantF = append(wantF, x)
				}
			}
			if got := words.Filter(nil, a, mask); !slices.Equal(got, wantF) {
				t.Fatalf("Filter = %v; want %v", got, wantF)
			}
		}
	}
}

func TestSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 3, 24, 25, 100, 1000, 100000} {
		for _, kind := range []string{"random", "few", "sorted", "reversed", "equal"} {
			a := randomWords(r, n)
			switch kind {
			case "few":
				for i := range a {
					a[i] %= 5
				}
			case "sorted":
				slices.Sort(a)
			case "reversed":
				slices.Sort(a)
				slices.Reverse(a)
			case "equal":
				for i := range a {
					a[i] = 42
				}
			}
			want := slices.Clone(a)
			slices.Sort(want)
			if err := words.Sort(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, want) {
				t.Fatalf("Sort(%d %s words) is not sorted", n, kind)
			}
			u := words.Dedup(slices.Clone(a))
			if !slices.Equal(u, slices.Compact(slices.Clone(want))) {
				t.Fatalf("Dedup(%d %s words) = %d words; want %d", n, kind, len(u), len(slices.Compact(want)))
			}
			hist := map[uint64]int{}
			for _, x := range a {
				hist[x]++
			}
			var prev uint64
			runs := 0
			words.Runs(a, func(v uint64, c int) bool {
				if runs > 0 && v <= prev {
					t.Fatalf("Runs not ascending: %#x after %#x", v, prev)
				}
				if hist[v] != c {
					t.Fatalf("Runs: %#x counted %d; want %d", v, c, hist[v])
				}
				prev = v
				runs++
				return true
			})
			if runs != len(hist) {
				t.Fatalf("Runs gave %d values; want %d", runs, len(hist))
			}
		}
	}
}

func TestSortCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := randomWords(rand.New(rand.NewPCG(1, 1)), 1<<20)
	if err := words.Sort(ctx, a); err == nil {
		t.Fatal("Sort with a cancelled context returned no error")
	}
}

// TestRand checks the generator against the published reference code:
// splitmix64.c and xoshiro256starstar.c of prng.di.unimi.it, compiled
// with gcc (bench/words.c holds the same code), seeded as NewRand says.
func TestRand(t *testing.T) {
	want := []uint64{11091344671253066420, 13793997310169335082, 1900383378846508768}
	r := words.NewRand(0)
	for i, w := range want {
		if got := r.Next(); got != w {
			t.Fatalf("NewRand(0) draw %d = %d; want %d", i, got, w)
		}
	}
	// splitmix64 from 0: its first output is the well-known 0xe220a8397b1dcdaf.
	var s uint64
	if x := words.SplitMix64(&s); x != 0xe220a8397b1dcdaf {
		t.Fatalf("SplitMix64 from 0 = %#x", x)
	}
	// Fill and Sparse give the same stream as Next, ANDed k at a time.
	for _, k := range []int{1, 2, 3, 7} {
		for _, seed := range []uint64{0, 1, math.MaxUint64} {
			ref := words.NewRand(seed)
			sp := words.NewRand(seed)
			fill := words.NewRand(seed)
			got := make([]uint64, 50)
			fill.Fill(got[:17], k)
			fill.Fill(got[17:], k)
			for i := range got {
				w := ^uint64(0)
				for range k {
					w &= ref.Next()
				}
				if s := sp.Sparse(k); s != w || got[i] != w {
					t.Fatalf("seed %d sparse %d word %d: Sparse %#x, Fill %#x; want %#x", seed, k, i, s, got[i], w)
				}
			}
		}
	}
}

// naiveSubsets lists the subsets of d (with k bits unless k < 0) by
// testing every x in 0..d.
func naiveSubsets(d uint64, k int) []uint64 {
	var out []uint64
	for x := uint64(0); x <= d; x++ {
		if x&^d == 0 && (k < 0 || bits.OnesCount64(x) == k) {
			out = append(out, x)
		}
	}
	return out
}

func TestSubsetFiller(t *testing.T) {
	for _, d := range []uint64{0, 1, 0b1011, 0xf0, 0x155, 0x3ff, 0xa5a} {
		for k := -1; k <= bits.OnesCount64(d)+1; k++ {
			want := naiveSubsets(d, k)
			for _, size := range []int{1, 3, 64, 5000} {
				f := words.NewSubsetFiller(d, k)
				var got []uint64
				buf := make([]uint64, size)
				for !f.Done() {
					n := f.Fill(buf)
					got = append(got, buf[:n]...)
					if n < size && !f.Done() {
						t.Fatalf("Fill wrote %d of %d but is not done", n, size)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("subsets(%#x, %d) in chunks of %d = %v; want %v", d, k, size, got, want)
				}
				if f.Fill(buf) != 0 {
					t.Fatal("Fill after Done wrote words")
				}
			}
		}
	}
	// High bits: the last subset is d, then done.
	f := words.NewSubsetFiller(0b11<<62, -1)
	buf := make([]uint64, 8)
	if n := f.Fill(buf); n != 4 || !slices.Equal(buf[:4], []uint64{0, 1 << 62, 1 << 63, 3 << 62}) {
		t.Fatalf("subsets of the top bits = %v", buf[:n])
	}
}

// naiveHashOK checks every pair of keys.
func naiveHashOK(keys, values []uint64, magic uint64, b uint) bool {
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[i]*magic>>(64-b) != keys[j]*magic>>(64-b) {
				continue
			}
			if values == nil && keys[i] != keys[j] {
				return false
			}
			if values != nil && values[i] != values[j] {
				return false
			}
		}
	}
	return true
}

func TestChecker(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	oks := 0
	for round := 0; round < 3000; round++ {
		n := r.IntN(40)
		b := uint(1 + r.IntN(64))
		if round%3 == 0 {
			b = uint(1 + r.IntN(8)) // small tables: collisions and successes both
		}
		keys := randomWords(r, n)
		if n > 2 && round%5 == 0 {
			keys[1] = keys[0] // a repeated key is not a collision
		}
		var values []uint64
		if round%2 == 0 {
			values = make([]uint64, n)
			for i := range values {
				values[i] = uint64(r.IntN(3))
			}
		}
		c := words.NewChecker(keys, values, b)
		for range 5 {
			m := r.Uint64() & r.Uint64()
			want := naiveHashOK(keys, values, m, b)
			if got := c.OK(m); got != want {
				t.Fatalf("Checker(%d keys, values %v, bits %d).OK(%#x) = %v; want %v", n, values != nil, b, m, got, want)
			}
			if got := words.HashOK(keys, values, m, b); got != want {
				t.Fatalf("HashOK = %v; want %v", got, want)
			}
			if want {
				oks++
			}
		}
	}
	if oks < 1000 {
		t.Fatalf("only %d good magics drawn: the test misses the success path", oks)
	}
	// Open addressing (many keys, wide hashes) against the direct table.
	keys := randomWords(r, 1500)
	keys[700] = keys[5]
	for _, b := range []uint{21, 30, 64} {
		c := words.NewChecker(keys, nil, b)
		for range 5 {
			m := r.Uint64()
			if got, want := c.OK(m), naiveHashOK(keys, nil, m, b); got != want {
				t.Fatalf("bits %d magic %#x: %v; want %v", b, m, got, want)
			}
		}
	}
}

func TestFindMagic(t *testing.T) {
	keys := make([]uint64, 10)
	for i := range keys {
		keys[i] = 1 << (5 * i)
	}
	for _, sparse := range []int{1, 3} {
		c := words.NewChecker(keys, nil, 4)
		m, idx, ok, err := words.FindMagic(context.Background(), c, 7, sparse, 1e7, nil)
		if err != nil || !ok {
			t.Fatalf("FindMagic: ok %v, err %v", ok, err)
		}
		// It is the first good word of the stream.
		r := words.NewRand(7)
		for i := uint64(0); i <= idx; i++ {
			w := r.Sparse(sparse)
			good := naiveHashOK(keys, nil, w, 4)
			if i < idx && good {
				t.Fatalf("candidate %d = %#x is good but FindMagic returned candidate %d", i, w, idx)
			}
			if i == idx && (w != m || !good) {
				t.Fatalf("FindMagic returned %#x at %d; the stream has %#x there (good: %v)", m, idx, w, good)
			}
		}
	}
	// No magic exists for 3 keys in 1 bit: tries runs out.
	c := words.NewChecker([]uint64{1, 2, 3}, nil, 1)
	if _, n, ok, err := words.FindMagic(context.Background(), c, 0, 1, 1000, nil); ok || err != nil || n != 1000 {
		t.Fatalf("impossible search: ok %v, n %d, err %v", ok, n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, ok, err := words.FindMagic(ctx, c, 0, 1, math.MaxUint64, nil); ok || err == nil {
		t.Fatal("cancelled search did not stop with an error")
	}
}

func ExampleApply() {
	a := []uint64{1, 2, 3}
	b := []uint64{10, 0, 30}
	dst := make([]uint64, 3)
	words.Apply(words.Add, dst, a, b)
	fmt.Println(dst)
	fmt.Println(words.Apply(words.Div, dst, a, b)) // b[1] == 0
	// Output:
	// [11 2 33]
	// 1
}

func ExampleFindMagic() {
	// The De Bruijn bitscan: the 64 one-bit words hashed to 6 bits.
	keys := make([]uint64, 64)
	for i := range keys {
		keys[i] = 1 << i
	}
	c := words.NewChecker(keys, nil, 6)
	fmt.Println(c.OK(0x03f79d71b4cb0a89), c.OK(0x03f79d71b4cb0a88))
	// Output: true false
}
