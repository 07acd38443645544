package chess_test

// ns/op is per attack set. The occupancies are 4096 random words with
// about a quarter of the bits set, cycled, and the square changes every
// call, so the branch predictor and caches see a realistic mix; results
// accumulate in a local stored to a package sink so nothing folds away.

import (
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/chess"
)

var sink uint64

func occupancies() []uint64 {
	r := rand.New(rand.NewPCG(5, 6))
	occ := make([]uint64, 4096)
	for i := range occ {
		occ[i] = r.Uint64() & r.Uint64()
	}
	return occ
}

func BenchmarkRookAttacks(b *testing.B) {
	occ := occupancies()
	chess.Build()
	var s uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += chess.RookAttacks(i&63, occ[i&4095])
	}
	sink = s
}

func BenchmarkBishopAttacks(b *testing.B) {
	occ := occupancies()
	chess.Build()
	var s uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += chess.BishopAttacks(i&63, occ[i&4095])
	}
	sink = s
}

func BenchmarkQueenAttacks(b *testing.B) {
	occ := occupancies()
	chess.Build()
	var s uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += chess.QueenAttacks(i&63, occ[i&4095])
	}
	sink = s
}

// BenchmarkRookAttacksSlice reports ns per element over a 4096-word array.
func BenchmarkRookAttacksSlice(b *testing.B) {
	occ := occupancies()
	out := make([]uint64, len(occ))
	chess.Build()
	b.ResetTimer()
	for i := 0; i < b.N; i += len(occ) {
		chess.RookAttacksSlice(i&63, occ, out)
	}
	sink = out[0]
}

// BenchmarkBuild is the one-time cost of the sliding-attack tables,
// measured on a fresh build each time.
func BenchmarkBuild(b *testing.B) {
	for i := 0; i < b.N; i++ {
		chess.BuildFresh()
	}
}
