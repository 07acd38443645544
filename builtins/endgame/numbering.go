// Package endgame holds the kernels of the packed-index flip puzzle: packed n-piece
// endgame indices in two square numberings, their flips about the
// horizontal, vertical and a1-h8 diagonal axes done on every piece at once
// with a fixed number of word operations, the 8 symmetries of the square,
// canonical forms, and bitboard diagrams.
//
// A square is 0..63 in a numbering. Natural: square = 8*rank + file (rank
// and file 0..7, a1 = 0, h1 = 7, a8 = 56). Symmetric: the second table of
// the packed-index flip puzzle (a1 = 0o60, e4 = 0o73, h8 = 0o66), in which the three high
// bits of a square name its orbit under the symmetries of the board and
// the three low bits say where in the orbit it is.
package endgame

import (
	"fmt"
	"strconv"
	"strings"
)

// A Numbering maps board squares (file, rank) to square numbers 0..63.
type Numbering uint8

const (
	// Natural numbers a square 8*rank + file: the high octal digit is the
	// rank, the low one the file.
	Natural Numbering = iota
	// Symmetric is the puzzle's second numbering.
	Symmetric
)

// Numberings returns the numberings in order.
func Numberings() []Numbering { return []Numbering{Natural, Symmetric} }

// String returns the numbering's name, "natural" or "symmetric".
func (m Numbering) String() string {
	switch m {
	case Natural:
		return "natural"
	case Symmetric:
		return "symmetric"
	}
	return "Numbering(" + strconv.Itoa(int(m)) + ")"
}

// ParseNumbering returns the numbering called name ("natural" or
// "symmetric"); ok is false for any other name.
func ParseNumbering(name string) (m Numbering, ok bool) {
	switch name {
	case "natural":
		return Natural, true
	case "symmetric":
		return Symmetric, true
	}
	return 0, false
}

// symmetricTable is the puzzle's second numbering exactly as the
// document prints it: one line per rank, rank 8 first, files a..h, square
// numbers in octal. It is the only statement of the numbering in the code;
// symSquare and symFileRank are parsed from it.
const symmetricTable = `
8| 64 04 14 24 26 16 06 66
7| 05 65 34 44 46 36 67 07
6| 15 35 74 54 56 76 37 17
5| 25 45 55 75 77 57 47 27
4| 21 41 51 71 73 53 43 23
3| 11 31 70 50 52 72 33 13
2| 01 61 30 40 42 32 63 03
1| 60 00 10 20 22 12 02 62
`

var (
	// symSquare[8*rank+file] is the symmetric number of (file, rank).
	symSquare [64]uint8
	// symFileRank[sq] is 8*rank+file of the symmetric square sq.
	symFileRank [64]uint8
)

func init() {
	seen := uint64(0)
	lines := strings.Split(strings.TrimSpace(symmetricTable), "\n")
	if len(lines) != 8 {
		panic("endgame: symmetricTable needs 8 ranks")
	}
	for i, line := range lines {
		rank := 7 - i
		label, cells, ok := strings.Cut(line, "|")
		f := strings.Fields(cells)
		if !ok || label != strconv.Itoa(rank+1) || len(f) != 8 {
			panic("endgame: bad symmetricTable line " + line)
		}
		for file, cell := range f {
			v, err := strconv.ParseUint(cell, 8, 8)
			if err != nil || v > 63 || seen>>v&1 == 1 {
				panic("endgame: bad symmetricTable cell " + cell)
			}
			seen |= 1 << v
			symSquare[8*rank+file] = uint8(v)
			symFileRank[v] = uint8(8*rank + file)
		}
	}
}

// SquareAt returns the number of the square (file, rank) in numbering m;
// file and rank are 0..7 (file 0 is a, rank 0 is rank 1).
func SquareAt(file, rank int, m Numbering) int {
	nat := 8*(rank&7) + file&7
	if m == Symmetric {
		return int(symSquare[nat])
	}
	return nat
}

// FileRank returns the file and rank (0..7 each) of square sq (0..63) in
// numbering m.
func FileRank(sq int, m Numbering) (file, rank int) {
	nat := sq & 63
	if m == Symmetric {
		nat = int(symFileRank[nat])
	}
	return nat & 7, nat >> 3
}

// Square returns the number in numbering m of the square called name, a
// file letter a..h and a rank digit 1..8 ("e4"); ok is false for any other
// name.
func Square(name string, m Numbering) (sq int, ok bool) {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8' {
		return 0, false
	}
	return SquareAt(int(name[0]-'a'), int(name[1]-'1'), m), true
}

// SquareName returns the name ("e4") of square sq (0..63) in numbering m.
func SquareName(sq int, m Numbering) string {
	f, r := FileRank(sq, m)
	return string([]byte{byte('a' + f), byte('1' + r)})
}

// Board draws the bitboard bb in the natural numbering: 8 lines, rank 8
// first, 'x' for a one bit and '.' for a zero, files separated by single
// spaces, lines separated by '\n' and no newline after the last.
func Board(bb uint64) string {
	return Diagram(func(sq int) string {
		if bb>>uint(sq)&1 == 1 {
			return "x"
		}
		return "."
	})
}

// Diagram draws a board with cell(sq) on each square sq (natural
// numbering) in Board's layout: rank 8 first, cells separated by single
// spaces, no newline after the last line.
func Diagram(cell func(sq int) string) string {
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		for file := 0; file < 8; file++ {
			if file > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(cell(8*rank + file))
		}
		if rank > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// errorf builds the kernel's argument errors; bindings prefix the
// builtin's name.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
