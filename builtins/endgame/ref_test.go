package endgame_test

// The references of these tests work one piece at a time on (file, rank)
// coordinates and never call the kernel's flips.

import "github.com/bitsh/bitsh/builtins/endgame"

// fr is a square as (file, rank), each 0..7.
type fr struct{ f, r int }

// symMaps are the 8 symmetries of the square on (file, rank), in the order of docs/builtins.md's symmetries.
var symMaps = [endgame.NumSymmetries]func(fr) fr{
	func(p fr) fr { return p },                    // identity
	func(p fr) fr { return fr{7 - p.f, p.r} },     // flip_vertical: file f to 7-f
	func(p fr) fr { return fr{p.f, 7 - p.r} },     // flip_horizontal: rank r to 7-r
	func(p fr) fr { return fr{7 - p.f, 7 - p.r} }, // rotate 180
	func(p fr) fr { return fr{p.r, p.f} },         // flip_diag: a1-h8
	func(p fr) fr { return fr{7 - p.r, 7 - p.f} }, // flip_anti: a8-h1
	func(p fr) fr { return fr{p.r, 7 - p.f} },     // rotate 90 clockwise: a1 to a8
	func(p fr) fr { return fr{7 - p.r, p.f} },     // rotate 90 anticlockwise: a1 to h1
}

// refSym[sq] is (file, rank) of symmetric square sq, and refSymOf the
// inverse, both built from first principles (not from the puzzle's
// table, which the kernel holds; TestSymmetricTable compares the two).
//
// The high octal digit of a symmetric square is its orbit under the
// symmetries; the low digit lo = 4h + 2v + d locates it in the orbit. For
// the six orbits 0..5 of 8 squares, whose lo = 0 squares are b1, c1, d1,
// c2, d2, d3, the square is H^h V^v D^d (base): flip_diag first, then
// flip_vertical, then flip_horizontal. Orbits 6 and 7 each hold two orbits
// of 4 diagonal squares: d chooses the base (a1 or b2; c3 or d4) and h, v
// flip it.
var (
	refSym   [64]fr
	refSymOf = map[fr]int{}
)

func init() {
	bases := [8][2]fr{
		{{1, 0}, {1, 0}}, {{2, 0}, {2, 0}}, {{3, 0}, {3, 0}},
		{{2, 1}, {2, 1}}, {{3, 1}, {3, 1}}, {{3, 2}, {3, 2}},
		{{0, 0}, {1, 1}}, {{2, 2}, {3, 3}},
	}
	for sq := 0; sq < 64; sq++ {
		hi, lo := sq>>3, sq&7
		h, v, d := lo>>2&1, lo>>1&1, lo&1
		p := bases[hi][0]
		if hi >= 6 {
			p = bases[hi][d]
		} else if d == 1 {
			p = symMaps[endgame.FlipDiag](p)
		}
		if v == 1 {
			p = symMaps[endgame.FlipVertical](p)
		}
		if h == 1 {
			p = symMaps[endgame.FlipHorizontal](p)
		}
		refSym[sq] = p
		refSymOf[p] = sq
	}
}

// refFR returns (file, rank) of square sq in numbering m.
func refFR(sq int, m endgame.Numbering) fr {
	if m == endgame.Symmetric {
		return refSym[sq]
	}
	return fr{sq % 8, sq / 8}
}

// refSq returns the number of (file, rank) in numbering m.
func refSq(p fr, m endgame.Numbering) int {
	if m == endgame.Symmetric {
		return refSymOf[p]
	}
	return 8*p.r + p.f
}

// refTables[m][k][sq] is the image of square sq under symmetry k in
// numbering m: the per-piece lookup tables of the naive flip.
var refTables [2][endgame.NumSymmetries][64]uint8

func init() {
	for _, m := range endgame.Numberings() {
		for k, f := range symMaps {
			for sq := 0; sq < 64; sq++ {
				refTables[m][k][sq] = uint8(refSq(f(refFR(sq, m)), m))
			}
		}
	}
}

// tableFlip is the per-piece table-lookup flip: for each piece, extract
// its square from the two halves, look up its image, store it back.
func tableFlip(x uint64, n uint, tab *[64]uint8) uint64 {
	s := 3 * n
	var out uint64
	for sh := uint(0); sh < s; sh += 3 {
		sq := x>>sh&7 | (x>>(s+sh)&7)<<3
		t := uint64(tab[sq&63])
		out |= (t&7)<<sh | (t>>3)<<(s+sh)
	}
	return out
}

// refImage applies symmetry k to every piece of index, one at a time,
// unpacking and repacking with shifts written here.
func refImage(index uint64, n int, m endgame.Numbering, k int) uint64 {
	return tableFlip(index, uint(n), &refTables[m][k])
}
