package words_test

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/builtins/words"
)

// A chain is a Lazy built alongside its naive reference: ref holds the
// elements computed one at a time with words.Scalar.
type chain struct {
	l   *words.Lazy
	ref []uint64
}

var deferrable = []words.Op{words.Add, words.Sub, words.Mul, words.And, words.Or, words.Xor, words.Shl, words.Shr}

func cmpRef(c words.Cmp, a, b uint64) uint64 {
	ok := [...]bool{a == b, a != b, a < b, a <= b, a > b, a >= b}[c]
	if ok {
		return 1
	}
	return 0
}

// generated returns a Lazy whose base is generated from base's words,
// a slice of whatever length the evaluation asks at a time.
func generated(base []uint64) *words.Lazy {
	return words.NewGenerated(len(base), func() func(dst []uint64) {
		rest := base
		return func(dst []uint64) { rest = rest[copy(dst, rest):] }
	})
}

func randWords(r *rand.Rand, n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		switch r.IntN(4) {
		case 0:
			w[i] = uint64(r.IntN(70)) // shift counts, small values
		case 1:
			w[i] = -uint64(r.IntN(3))
		default:
			w[i] = r.Uint64()
		}
	}
	return w
}

// extend applies one random step to c, built by one of the kinds of step,
// and to its reference.
func extend(r *rand.Rand, c chain, depth int) chain {
	n := c.l.Len()
	out := make([]uint64, n)
	op := deferrable[r.IntN(len(deferrable))]
	left := r.IntN(2) == 0
	apply := func(b []uint64) {
		for i := range out {
			x, y := c.ref[i], b[i]
			if left {
				x, y = y, x
			}
			out[i], _ = words.Scalar(op, x, y)
		}
	}
	switch k := r.IntN(8); {
	case k == 0: // a word operand
		x := randWords(r, 1)[0]
		for i := range out {
			a, b := c.ref[i], x
			if left {
				a, b = b, a
			}
			out[i], _ = words.Scalar(op, a, b)
		}
		return chain{c.l.OpWord(op, x, left), out}
	case k == 1: // an array operand
		b := randWords(r, n)
		apply(b)
		return chain{c.l.OpArray(op, b, left), out}
	case k == 2 && depth < 3: // a lazy operand
		sub := randomChain(r, n, depth+1)
		apply(sub.ref)
		return chain{c.l.OpLazy(op, sub.l, left), out}
	case k == 3: // a comparison with a word
		cmp := words.Cmp(r.IntN(6))
		x := uint64(r.IntN(70))
		if n > 0 && r.IntN(2) == 0 {
			x = c.ref[r.IntN(n)] // a value that occurs
		}
		for i := range out {
			out[i] = cmpRef(cmp, c.ref[i], x)
		}
		return chain{c.l.CompareWord(cmp, x), out}
	case k == 4: // a comparison with an array, or with a lazy array
		cmp := words.Cmp(r.IntN(6))
		if depth < 3 && r.IntN(2) == 0 {
			sub := randomChain(r, n, depth+1)
			for i := range out {
				out[i] = cmpRef(cmp, c.ref[i], sub.ref[i])
			}
			return chain{c.l.CompareLazy(cmp, sub.l), out}
		}
		b := randWords(r, n)
		for i := range out {
			out[i] = cmpRef(cmp, c.ref[i], b[i])
		}
		return chain{c.l.CompareArray(cmp, b), out}
	case k == 5: // a block function
		for i := range out {
			out[i] = uint64(bits.OnesCount64(c.ref[i]))
		}
		return chain{c.l.Map(func(dst, src []uint64) {
			for i, v := range src[:len(dst)] {
				dst[i] = uint64(bits.OnesCount64(v))
			}
		}), out}
	case k == 6:
		for i := range out {
			out[i] = ^c.ref[i]
		}
		return chain{c.l.Map(words.Not), out}
	default:
		for i := range out {
			out[i] = -c.ref[i]
		}
		return chain{c.l.Map(words.Neg), out}
	}
}

func randomChain(r *rand.Rand, n, depth int) chain {
	base := randWords(r, n)
	c := chain{words.NewLazy(base), slices.Clone(base)}
	if r.IntN(2) == 0 {
		c.l = generated(base)
	}
	for range r.IntN(6) {
		c = extend(r, c, depth)
	}
	return c
}

func blocksOf(l *words.Lazy) []uint64 {
	var got []uint64
	l.Blocks(func(blk []uint64) bool {
		if len(blk) == 0 || len(blk) > words.Block {
			panic("bad block length")
		}
		got = append(got, blk...)
		return true
	})
	return got
}

func TestLazyAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 600 {
		n := []int{0, 1, 2, 255, 256, 257, 1000, r.IntN(3000)}[trial%8]
		c := randomChain(r, n, 0)
		if got := c.l.Materialize(); !slices.Equal(got, c.ref) {
			t.Fatalf("trial %d (n=%d): Materialize differs from the naive loop", trial, n)
		}
		if got := blocksOf(c.l); !slices.Equal(got, c.ref) && !(len(got) == 0 && len(c.ref) == 0) {
			t.Fatalf("trial %d (n=%d): Blocks differs from the naive loop", trial, n)
		}
		// A second evaluation starts the generators afresh.
		if got := c.l.Materialize(); !slices.Equal(got, c.ref) {
			t.Fatalf("trial %d (n=%d): a second Materialize differs", trial, n)
		}
	}
}

func TestLazyTable(t *testing.T) {
	base := []uint64{0, 1, 2, 3, 0xff, 1 << 63, ^uint64(0)}
	l := words.NewLazy(base)
	for _, tc := range []struct {
		name string
		l    *words.Lazy
		want []uint64
	}{
		{"base", l, base},
		{"x & 1", l.OpWord(words.And, 1, false), []uint64{0, 1, 0, 1, 1, 0, 1}},
		{"1 << x", l.OpWord(words.Shl, 1, true), []uint64{1, 2, 4, 8, 0, 0, 0}},
		{"x >> 64", l.OpWord(words.Shr, 64, false), []uint64{0, 0, 0, 0, 0, 0, 0}},
		{"x - x", l.OpLazy(words.Sub, l, false), []uint64{0, 0, 0, 0, 0, 0, 0}},
		{"(x + 1).eq(1)", l.OpWord(words.Add, 1, false).CompareWord(words.Eq, 1), []uint64{1, 0, 0, 0, 0, 0, 0}},
		{"~x", l.Map(words.Not), []uint64{^uint64(0), ^uint64(1), ^uint64(2), ^uint64(3), ^uint64(0xff), 1<<63 - 1, 0}},
		{"x.lt(x * 2)", l.CompareLazy(words.Lt, l.OpWord(words.Mul, 2, false)), []uint64{0, 1, 1, 1, 1, 0, 0}},
	} {
		if got := tc.l.Materialize(); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if base[1] != 1 {
		t.Error("evaluation wrote into the base")
	}
}

func TestLazyBlocksStops(t *testing.T) {
	l := words.NewLazy(make([]uint64, 10*words.Block))
	calls := 0
	l.Blocks(func([]uint64) bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Errorf("Blocks made %d calls after fn returned false at the third, want 3", calls)
	}
}

func TestLazyCost(t *testing.T) {
	l := words.NewLazy(make([]uint64, 5))
	a := l.OpWord(words.Xor, 1, false).OpWord(words.Shr, 1, false)
	if a.Cost() != 2 {
		t.Errorf("cost of two steps = %d", a.Cost())
	}
	if b := a.OpLazy(words.Xor, a, false); b.Cost() != 5 {
		t.Errorf("cost of a ^ a over two steps = %d, want 5", b.Cost())
	}
}

// FuzzLazy builds a chain from the fuzzer's seed and checks it against the
// naive loop.
func FuzzLazy(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint16(300))
	f.Add(uint64(7), uint64(0), uint16(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, n uint16) {
		r := rand.New(rand.NewPCG(s1, s2))
		c := randomChain(r, int(n%4096), 0)
		if got := c.l.Materialize(); !slices.Equal(got, c.ref) {
			t.Fatalf("Materialize differs from the naive loop (n=%d)", n%4096)
		}
	})
}

func TestSkipMatchesFill(t *testing.T) {
	for _, d := range []uint64{0, 1, 0b1011, 0xff, 0x8000_0000_0000_0001, 0xf0f0, 0x3ff} {
		for k := -1; k <= bits.OnesCount64(d)+1; k++ {
			all := make([]uint64, 5000)
			all = all[:words.NewSubsetFiller(d, k).Fill(all)]
			for _, n := range []int{0, 1, 2, 3, 7, 100, len(all) - 1, len(all), len(all) + 5} {
				if n < 0 {
					continue
				}
				f := words.NewSubsetFiller(d, k)
				f.Skip(uint64(n))
				rest := make([]uint64, 5000)
				rest = rest[:f.Fill(rest)]
				want := all[min(n, len(all)):]
				if !slices.Equal(rest, want) {
					t.Fatalf("d=%#x k=%d: after Skip(%d) Fill gave %d words, want %d (the rest of Fill)", d, k, n, len(rest), len(want))
				}
			}
		}
	}
	// The whole 64-bit set: a skip past 2^64 subsets ends the fill.
	f := words.NewSubsetFiller(^uint64(0), -1)
	f.Skip(1 << 63)
	f.Skip(1 << 63)
	if !f.Done() {
		t.Error("2^64 subsets of the full set skipped, but the filler is not done")
	}
}

var sinkCount int

// BenchmarkLazyCount is the chunked script's work on one 2^20-word chunk
// of subsets: popcount(w & m).eq(3).count(), deferred and generated.
func BenchmarkLazyCount(b *testing.B) {
	const n = 1 << 20
	popcounts := func(dst, src []uint64) {
		for i, v := range src[:len(dst)] {
			dst[i] = uint64(bits.OnesCount64(v))
		}
	}
	b.SetBytes(8 * n)
	for b.Loop() {
		l := words.NewGenerated(n, func() func([]uint64) {
			f := words.NewSubsetFiller(1<<22-1, -1)
			return func(dst []uint64) { f.Fill(dst) }
		}).OpWord(words.And, 0x2a5a5a, false).Map(popcounts).CompareWord(words.Eq, 3)
		l.Blocks(func(blk []uint64) bool { sinkCount += words.Count(blk); return true })
	}
}
