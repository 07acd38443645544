package words_test

import (
	"context"
	"github.com/bitsh/bitsh/builtins/rng"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/words"
)

// The benchmarks count one op per word of 2^20-word arrays (8 MiB each),
// the size docs/words.md's targets name, so ns/op reads as ns per word; bench/
// words.c runs the same loops in C for bench/compare.sh.
const benchN = 1 << 20

var (
	benchA, benchB = benchInputs()
	benchDst       = make([]uint64, benchN)
	sinkWord       uint64
	sinkInt        int
)

func benchInputs() ([]uint64, []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]uint64, benchN), make([]uint64, benchN)
	for i := range a {
		a[i] = r.Uint64()
		b[i] = r.Uint64()>>(r.IntN(64)) | 1 // non-zero divisors of every size
	}
	return a, b
}

// passes runs f once per 2^20 words of b.N.
func passes(b *testing.B, f func()) {
	b.SetBytes(8)
	for i := 0; i < b.N; i += benchN {
		f()
	}
}

func benchOp(b *testing.B, op words.Op) {
	passes(b, func() { words.Apply(op, benchDst, benchA, benchB) })
}

func benchOpWord(b *testing.B, op words.Op, x uint64) {
	passes(b, func() { words.ApplyRight(op, benchDst, benchA, x) })
}

func BenchmarkAdd(b *testing.B) { benchOp(b, words.Add) }
func BenchmarkSub(b *testing.B) { benchOp(b, words.Sub) }
func BenchmarkMul(b *testing.B) { benchOp(b, words.Mul) }
func BenchmarkAnd(b *testing.B) { benchOp(b, words.And) }
func BenchmarkOr(b *testing.B)  { benchOp(b, words.Or) }
func BenchmarkXor(b *testing.B) { benchOp(b, words.Xor) }
func BenchmarkShl(b *testing.B) { benchOp(b, words.Shl) }
func BenchmarkShr(b *testing.B) { benchOp(b, words.Shr) }
func BenchmarkDiv(b *testing.B) { benchOp(b, words.Div) }
func BenchmarkMod(b *testing.B) { benchOp(b, words.Mod) }

func BenchmarkAddWord(b *testing.B) { benchOpWord(b, words.Add, 12345) }
func BenchmarkMulWord(b *testing.B) { benchOpWord(b, words.Mul, 0x9e3779b97f4a7c15) }
func BenchmarkAndWord(b *testing.B) { benchOpWord(b, words.And, 0xff00ff00ff00ff00) }
func BenchmarkShlWord(b *testing.B) { benchOpWord(b, words.Shl, 7) }
func BenchmarkShrWord(b *testing.B) { benchOpWord(b, words.Shr, 7) }
func BenchmarkDivWord(b *testing.B) { benchOpWord(b, words.Div, 1000003) }
func BenchmarkModWord(b *testing.B) { benchOpWord(b, words.Mod, 1000003) }

func BenchmarkNot(b *testing.B) { passes(b, func() { words.Not(benchDst, benchA) }) }
func BenchmarkNeg(b *testing.B) { passes(b, func() { words.Neg(benchDst, benchA) }) }

func BenchmarkEq(b *testing.B) {
	passes(b, func() { words.Compare(words.Eq, benchDst, benchA, benchB) })
}
func BenchmarkLt(b *testing.B) {
	passes(b, func() { words.Compare(words.Lt, benchDst, benchA, benchB) })
}
func BenchmarkEqWord(b *testing.B) {
	passes(b, func() { words.CompareWord(words.Eq, benchDst, benchA, 3) })
}

func BenchmarkSum(b *testing.B) {
	passes(b, func() { hi, lo := words.Sum(benchA); sinkWord += hi ^ lo })
}
func BenchmarkMin(b *testing.B) { passes(b, func() { m, _ := words.Min(benchA); sinkWord += m }) }
func BenchmarkMax(b *testing.B) { passes(b, func() { m, _ := words.Max(benchA); sinkWord += m }) }
func BenchmarkCount(b *testing.B) {
	passes(b, func() { sinkInt += words.Count(benchDst) })
}
func BenchmarkAll(b *testing.B) { // every word non-zero: a full scan
	passes(b, func() {
		if words.All(benchB) {
			sinkInt++
		}
	})
}
func BenchmarkIndex(b *testing.B) { // absent: a full scan
	passes(b, func() { sinkInt += words.Index(benchA, 0) })
}
func BenchmarkFilter(b *testing.B) {
	mask := make([]uint64, benchN)
	words.CompareWord(words.Lt, mask, benchA, 1<<63)
	dst := make([]uint64, 0, benchN)
	passes(b, func() { sinkInt += len(words.Filter(dst, benchA, mask)) })
}

// BenchmarkSort counts one op per word of a 2^20-word sort.
func BenchmarkSort(b *testing.B) {
	passes(b, func() {
		copy(benchDst, benchA)
		_ = words.Sort(context.Background(), benchDst)
	})
}

func BenchmarkRandFill(b *testing.B) {
	r := rng.New(1)
	passes(b, func() { r.Fill(benchDst, 1) })
}

func BenchmarkRandFillSparse3(b *testing.B) {
	r := rng.New(1)
	passes(b, func() { r.Fill(benchDst, 3) })
}

func BenchmarkFillSubsets(b *testing.B) {
	passes(b, func() {
		f := words.NewSubsetFiller(0xfffff<<20, -1)
		f.Fill(benchDst)
	})
}

func BenchmarkFillSubsetsK(b *testing.B) {
	passes(b, func() {
		f := words.NewSubsetFiller(0x3fffffff, 6)
		f.Fill(benchDst)
	})
}

// rookKeys are the 4096 occupancies of the rook's relevant mask on a1,
// the classic magic-bitboard search.
func rookKeys() []uint64 {
	const mask = 0x000101010101017e
	var keys []uint64
	for n := uint64(0); ; {
		keys = append(keys, n)
		if n = (n - mask) & mask; n == 0 {
			return keys
		}
	}
}

// BenchmarkFindMagicCandidate is the cost of one candidate of a magic
// search: draw a sparse word (3 draws ANDed) and hash the rook keys into
// 12 bits until the first collision. ns/op is per candidate.
func BenchmarkFindMagicCandidate(b *testing.B) {
	c := words.NewChecker(rookKeys(), nil, 12)
	r := rng.New(0)
	for range b.N {
		if c.OK(r.Sparse(3)) {
			sinkInt++
		}
	}
}

// BenchmarkFindMagic is the same through FindMagic, 2^16 candidates a
// call; ns/op is per candidate.
func BenchmarkFindMagic(b *testing.B) {
	c := words.NewChecker(rookKeys(), nil, 12)
	var seed uint64
	for i := 0; i < b.N; i += 1 << 16 {
		_, _, ok, _ := words.FindMagic(context.Background(), c, seed, 3, 1<<16, nil)
		if ok {
			sinkInt++
		}
		seed++
	}
}
