package endgame_test

// Benchmarks at n = 5 pieces. Each iteration flips a different index
// (i & mask5) and XORs the result into a local accumulator stored in a
// package sink at the end, so nothing folds to a constant. The Table*
// benchmarks are the per-piece table-lookup flip (tableFlip, in
// ref_test.go) for comparison; bench/endgame_*.c are the C references.

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/endgame"
)

var sink uint64

const mask5 = 1<<30 - 1 // every 5-piece index

func BenchmarkNatFlipHorizontal5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := range b.N {
		s ^= l.FlipHorizontal(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkNatFlipVertical5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := range b.N {
		s ^= l.FlipVertical(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkNatFlipDiag5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := range b.N {
		s ^= l.FlipDiag(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkSymFlipHorizontal5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		s ^= l.FlipHorizontal(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkSymFlipVertical5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		s ^= l.FlipVertical(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkSymFlipDiag5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		s ^= l.FlipDiag(uint64(i) & mask5)
	}
	sink = s
}

func BenchmarkSymSymmetries5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		imgs := l.Symmetries(uint64(i) & mask5)
		s ^= imgs[i&7]
	}
	sink = s
}

func BenchmarkSymCanonical5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		s ^= l.Canonical(uint64(i) & mask5)
	}
	sink = s
}

func benchTable(b *testing.B, m endgame.Numbering, k int) {
	tab := &refTables[m][k]
	var s uint64
	for i := range b.N {
		s ^= tableFlip(uint64(i)&mask5, 5, tab)
	}
	sink = s
}

func BenchmarkTableNatFlipHorizontal5(b *testing.B) {
	benchTable(b, endgame.Natural, endgame.FlipHorizontal)
}
func BenchmarkTableNatFlipVertical5(b *testing.B) {
	benchTable(b, endgame.Natural, endgame.FlipVertical)
}
func BenchmarkTableNatFlipDiag5(b *testing.B) { benchTable(b, endgame.Natural, endgame.FlipDiag) }
func BenchmarkTableSymFlipHorizontal5(b *testing.B) {
	benchTable(b, endgame.Symmetric, endgame.FlipHorizontal)
}
func BenchmarkTableSymFlipVertical5(b *testing.B) {
	benchTable(b, endgame.Symmetric, endgame.FlipVertical)
}
func BenchmarkTableSymFlipDiag5(b *testing.B) { benchTable(b, endgame.Symmetric, endgame.FlipDiag) }
