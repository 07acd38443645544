//go:generate sh -c "go run gen_magics.go > magics.go"

// Package chess holds the bitboard kernels of the chess module (docs/chess.md):
// squares, masks, shifts, flips and attack sets with python-chess's names
// and meanings. Squares are 0..63 with a1 = 0, h1 = 7, a8 = 56, h8 = 63,
// and bit i of a bitboard is square i.
package chess

import "math/bits"

// The bitboards of python-chess (chess.BB_*).
const (
	Empty uint64 = 0
	All   uint64 = 0xffff_ffff_ffff_ffff

	FileA uint64 = 0x0101_0101_0101_0101
	FileB        = FileA << 1
	FileC        = FileA << 2
	FileD        = FileA << 3
	FileE        = FileA << 4
	FileF        = FileA << 5
	FileG        = FileA << 6
	FileH        = FileA << 7

	Rank1 uint64 = 0xff
	Rank2        = Rank1 << 8
	Rank3        = Rank1 << 16
	Rank4        = Rank1 << 24
	Rank5        = Rank1 << 32
	Rank6        = Rank1 << 40
	Rank7        = Rank1 << 48
	Rank8        = Rank1 << 56

	// LightSquares and DarkSquares are python-chess's values: a1 is dark.
	LightSquares uint64 = 0x55aa_55aa_55aa_55aa
	DarkSquares  uint64 = 0xaa55_aa55_aa55_aa55
	Corners             = 1<<0 | 1<<7 | 1<<56 | 1<<63
	Center              = 1<<27 | 1<<28 | 1<<35 | 1<<36 // d4 e4 d5 e5
	Backranks           = Rank1 | Rank8
)

// Files and Ranks list the file masks a..h and the rank masks 1..8.
var (
	Files = [8]uint64{FileA, FileB, FileC, FileD, FileE, FileF, FileG, FileH}
	Ranks = [8]uint64{Rank1, Rank2, Rank3, Rank4, Rank5, Rank6, Rank7, Rank8}
)

// Square returns the square on file (0..7, a = 0) and rank (0..7, 1 = 0).
func Square(file, rank int) int { return rank*8 + file }

// SquareFile returns the file of sq, 0 for the a-file.
func SquareFile(sq int) int { return sq & 7 }

// SquareRank returns the rank of sq, 0 for the first rank.
func SquareRank(sq int) int { return sq >> 3 }

// SquareName returns the name of sq, such as "e4"; sq must be 0..63.
func SquareName(sq int) string {
	return string([]byte{byte('a' + sq&7), byte('1' + sq>>3)})
}

// ParseSquare returns the square called name ("a1".."h8", lower case as
// python-chess) and ok == false for any other string.
func ParseSquare(name string) (sq int, ok bool) {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8' {
		return 0, false
	}
	return Square(int(name[0]-'a'), int(name[1]-'1')), true
}

// SquareNames lists the 64 square names in square order, as SQUARE_NAMES.
func SquareNames() []string {
	out := make([]string, 64)
	for sq := range out {
		out[sq] = SquareName(sq)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SquareDistance returns the Chebyshev distance of a and b: the number of
// king steps from one to the other.
func SquareDistance(a, b int) int {
	return max(abs(SquareFile(a)-SquareFile(b)), abs(SquareRank(a)-SquareRank(b)))
}

// SquareManhattanDistance returns the taxicab distance of a and b: the
// number of orthogonal king steps.
func SquareManhattanDistance(a, b int) int {
	return abs(SquareFile(a)-SquareFile(b)) + abs(SquareRank(a)-SquareRank(b))
}

// SquareKnightDistance returns the number of knight moves from a to b on an
// empty board (python-chess's closed formula; 0 when a == b).
func SquareKnightDistance(a, b int) int {
	dx := abs(SquareFile(a) - SquareFile(b))
	dy := abs(SquareRank(a) - SquareRank(b))
	switch {
	case dx+dy == 1:
		return 3
	case dx == 2 && dy == 2:
		return 4
	case dx == 1 && dy == 1:
		if (uint64(1)<<a|uint64(1)<<b)&Corners != 0 {
			return 4
		}
	}
	// m = ceil(max(dx/2, dy/2, (dx+dy)/3)) in integers.
	m := max((dx+1)/2, (dy+1)/2, (dx+dy+2)/3)
	return m + (m+dx+dy)%2
}

// SquareMirror returns sq mirrored vertically (rank r to 7-r), as
// python-chess's square_mirror.
func SquareMirror(sq int) int { return sq ^ 0x38 }

// The shifts move every square one or two steps and drop the squares that
// would wrap around an edge, as python-chess's shift_* functions.

// ShiftDown moves every square one rank down.
func ShiftDown(b uint64) uint64 { return b >> 8 }

// Shift2Down moves every square two ranks down.
func Shift2Down(b uint64) uint64 { return b >> 16 }

// ShiftUp moves every square one rank up.
func ShiftUp(b uint64) uint64 { return b << 8 }

// Shift2Up moves every square two ranks up.
func Shift2Up(b uint64) uint64 { return b << 16 }

// ShiftRight moves every square one file towards h.
func ShiftRight(b uint64) uint64 { return b << 1 &^ FileA }

// Shift2Right moves every square two files towards h.
func Shift2Right(b uint64) uint64 { return b << 2 &^ (FileA | FileB) }

// ShiftLeft moves every square one file towards a.
func ShiftLeft(b uint64) uint64 { return b >> 1 &^ FileH }

// Shift2Left moves every square two files towards a.
func Shift2Left(b uint64) uint64 { return b >> 2 &^ (FileG | FileH) }

// ShiftUpLeft moves every square one step up and towards a.
func ShiftUpLeft(b uint64) uint64 { return b << 7 &^ FileH }

// ShiftUpRight moves every square one step up and towards h.
func ShiftUpRight(b uint64) uint64 { return b << 9 &^ FileA }

// ShiftDownLeft moves every square one step down and towards a.
func ShiftDownLeft(b uint64) uint64 { return b >> 9 &^ FileH }

// ShiftDownRight moves every square one step down and towards h.
func ShiftDownRight(b uint64) uint64 { return b >> 7 &^ FileA }

// FlipVertical swaps rank r with rank 7-r (a1 to a8), python-chess's
// flip_vertical. The packed-index flip_horizontal of docs/builtins.md moves squares
// the same way; the packed-index flip puzzle names flips by their axis.
func FlipVertical(b uint64) uint64 { return bits.ReverseBytes64(b) }

// FlipHorizontal swaps file f with file 7-f (a1 to h1), python-chess's
// flip_horizontal (the packed-index flip_vertical of docs/builtins.md).
func FlipHorizontal(b uint64) uint64 {
	// Reverse the bits within each byte (chessprogramming.org,
	// "Flipping Mirroring and Rotating", MirrorHorizontally).
	b = b>>1&0x5555_5555_5555_5555 | b&0x5555_5555_5555_5555<<1
	b = b>>2&0x3333_3333_3333_3333 | b&0x3333_3333_3333_3333<<2
	b = b>>4&0x0f0f_0f0f_0f0f_0f0f | b&0x0f0f_0f0f_0f0f_0f0f<<4
	return b
}

// FlipDiagonal flips about the a1-h8 diagonal (file and rank swap; b1 to
// a2), python-chess's flip_diagonal.
func FlipDiagonal(b uint64) uint64 {
	t := (b ^ b<<28) & 0x0f0f_0f0f_0000_0000
	b ^= t ^ t>>28
	t = (b ^ b<<14) & 0x3333_0000_3333_0000
	b ^= t ^ t>>14
	t = (b ^ b<<7) & 0x5500_5500_5500_5500
	b ^= t ^ t>>7
	return b
}

// FlipAntiDiagonal flips about the a8-h1 diagonal (a1 to h8), python-chess's
// flip_anti_diagonal.
func FlipAntiDiagonal(b uint64) uint64 {
	t := b ^ b<<36
	b ^= (t ^ b>>36) & 0xf0f0_f0f0_0f0f_0f0f
	t = (b ^ b<<18) & 0xcccc_0000_cccc_0000
	b ^= t ^ t>>18
	t = (b ^ b<<9) & 0xaa00_aa00_aa00_aa00
	b ^= t ^ t>>9
	return b
}
