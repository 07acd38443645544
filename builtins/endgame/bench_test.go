package endgame_test

// Benchmarks at n = 5 pieces; ns/op is per flip. Each iteration flips four
// different indices (x, x+1, x+2, x+3 with x = i & mask5, i stepping by 4)
// and adds the results into a local accumulator stored in a package sink at
// the end, so nothing folds to a constant and the loop overhead is shared
// by four flips, as in the C references (bench/endgame.c), which run the
// same loop. The Table* benchmarks are the per-piece table-lookup flip
// (tableFlip, in ref_test.go) for comparison.

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/endgame"
)

var sink uint64

const mask5 = 1<<30 - 1 // every 5-piece index

// The flip benchmarks are spelled out one by one on purpose: calling the
// flips through a function value would stop them from inlining and
// measure the call instead of the flip.

func BenchmarkNatFlipHorizontal5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipHorizontal(x) + l.FlipHorizontal(x+1) + l.FlipHorizontal(x+2) + l.FlipHorizontal(x+3)
	}
	sink = s
}

func BenchmarkNatFlipVertical5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipVertical(x) + l.FlipVertical(x+1) + l.FlipVertical(x+2) + l.FlipVertical(x+3)
	}
	sink = s
}

func BenchmarkNatFlipDiag5(b *testing.B) {
	l := layout(b, 5, endgame.Natural)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipDiag(x) + l.FlipDiag(x+1) + l.FlipDiag(x+2) + l.FlipDiag(x+3)
	}
	sink = s
}

func BenchmarkSymFlipHorizontal5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipHorizontal(x) + l.FlipHorizontal(x+1) + l.FlipHorizontal(x+2) + l.FlipHorizontal(x+3)
	}
	sink = s
}

func BenchmarkSymFlipVertical5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipVertical(x) + l.FlipVertical(x+1) + l.FlipVertical(x+2) + l.FlipVertical(x+3)
	}
	sink = s
}

func BenchmarkSymFlipDiag5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += l.FlipDiag(x) + l.FlipDiag(x+1) + l.FlipDiag(x+2) + l.FlipDiag(x+3)
	}
	sink = s
}

func BenchmarkSymSymmetries5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		imgs := l.Symmetries(uint64(i) & mask5)
		s += imgs[i&7]
	}
	sink = s
}

func BenchmarkSymCanonical5(b *testing.B) {
	l := layout(b, 5, endgame.Symmetric)
	var s uint64
	for i := range b.N {
		s += l.Canonical(uint64(i) & mask5)
	}
	sink = s
}

func benchTable(b *testing.B, m endgame.Numbering, k int) {
	tab := &refTables[m][k]
	var s uint64
	for i := 0; i < b.N; i += 4 {
		x := uint64(i) & mask5
		s += tableFlip(x, 5, tab) + tableFlip(x+1, 5, tab) + tableFlip(x+2, 5, tab) + tableFlip(x+3, 5, tab)
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
