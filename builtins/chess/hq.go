package chess

import "math/bits"

// Line masks without the square itself (fileMasks, diagMasks, antiMasks:
// lineMasks), the attacks along the first rank for each file and each
// occupancy of the six inner squares (firstRank: firstRankTable), and
// lines (lineTable), all data in tables.go (TestTables).

// A line entry keeps what one call needs on one cache line: the three line
// masks and the byte-reversed square bit, doubled.
type line struct{ file, diag, anti, rev2 uint64 }

func lineTable(file, diag, anti [64]uint64) (t [64]line) {
	for sq := range t {
		t[sq] = line{file[sq], diag[sq], anti[sq], 2 * bits.ReverseBytes64(1<<sq)}
	}
	return
}

// hqr is hyperbola quintessence (chessprogramming.org): along a line with
// one square per rank, o - 2s sets the squares up to the first blocker
// above s, and the same in byte-reversed order (rev2 = 2 * bswap(s)) finds
// the blocker below.
func hqr(sq int, occ, mask, rev2 uint64) uint64 {
	o := occ & mask
	fwd := o - 2<<sq
	rev := bits.ReverseBytes64(bits.ReverseBytes64(o) - rev2)
	return (fwd ^ rev) & mask
}

func lineMasks() (file, diag, anti [64]uint64) {
	for sq := range 64 {
		f, r := SquareFile(sq), SquareRank(sq)
		file[sq] = Files[f] &^ (1 << sq)
		diag[sq] = diagonal(f-r) &^ (1 << sq)
		anti[sq] = antiDiagonal(f+r) &^ (1 << sq)
	}
	return
}

func firstRankTable() (t [8][64]uint8) {
	for f := range 8 {
		for inner := range 64 {
			t[f][inner] = uint8(slide(f, uint64(inner)<<1, rookDirs)) // uint8 keeps rank 1
		}
	}
	return
}

func rankAttacks(sq int, occ uint64) uint64 {
	base := sq &^ 7
	return uint64(firstRank[sq&7][occ>>(base+1)&63]) << base
}
