package setcard

import "sync"

// NumSymmetries is the number of symmetries of the SET deck that document
// 004 uses: 4! permutations of the coordinates times 3! permutations of the
// values in each of the four coordinates, 24 * 6^4 = 31104.
const NumSymmetries = 24 * 6 * 6 * 6 * 6

// A Symmetry is one of the 31104 symmetries as a permutation of the 81
// cards: card c goes to s[c].
type Symmetry [NumCards]Card

// Apply returns the image of h under s (bits above card 80 are ignored).
func (s *Symmetry) Apply(h Hand) Hand {
	var out Hand
	h[1] &= highMask
	for w := 0; w < 2; w++ {
		for x := h[w]; x != 0; x &= x - 1 {
			out = out.Add(s[Card(w*64+trailingZeros(x))])
		}
	}
	return out
}

// Inverse returns the permutation that undoes s.
func (s *Symmetry) Inverse() Symmetry {
	var inv Symmetry
	for c := Card(0); c < NumCards; c++ {
		inv[s[c]] = c
	}
	return inv
}

// perms3 lists the permutations of {0, 1, 2} in lexicographic order, so
// perms3[0] is the identity.
var perms3 = [6][3]uint8{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// perms4 returns the 24 permutations of {0, 1, 2, 3} in lexicographic
// order, the identity first.
func perms4() (out [24][4]uint8) {
	n := 0
	for a := uint8(0); a < 4; a++ {
		for b := uint8(0); b < 4; b++ {
			for c := uint8(0); c < 4; c++ {
				d := 6 - a - b - c
				if a != b && a != c && b != c && d < 4 && d != a && d != b && d != c {
					out[n] = [4]uint8{a, b, c, d}
					n++
				}
			}
		}
	}
	return out
}

// SymmetryParts returns the definition of symmetry number i (0 <= i <
// NumSymmetries): the card with coordinates x (values 0..2) goes to the
// card whose coordinate j is values[coords[j]][x[coords[j]]]. That is, each
// coordinate's values are permuted first, then the coordinates. The
// numbering is i = (((p*6+v0)*6+v1)*6+v2)*6+v3, where p indexes the 24
// coordinate permutations and v0..v3 the 6 value permutations, all in
// lexicographic order, so symmetry 0 is the identity.
func SymmetryParts(i int) (coords [4]uint8, values [4][3]uint8) {
	p4 := perms4()
	for j := 3; j >= 0; j-- {
		values[j] = perms3[i%6]
		i /= 6
	}
	return p4[i%24], values
}

// groupTables holds the symmetries and their inverses, numbered as in
// SymmetryParts. Built once on first use, read-only afterwards.
type groupTables struct {
	aut [NumSymmetries]Symmetry // aut[i][c]: image of c under symmetry i
	inv [NumSymmetries]Symmetry // inv[i] = aut[i].Inverse()
}

var (
	groupOnce sync.Once
	groupTab  *groupTables
)

// group returns the symmetry tables, building them on first use.
func group() *groupTables {
	groupOnce.Do(func() {
		g := new(groupTables)
		for i := 0; i < NumSymmetries; i++ {
			coords, values := SymmetryParts(i)
			// part[j][v]: what digit v of coordinate coords[j] adds to the
			// image, values[coords[j]][v] * 3^(3-j).
			var part [4][3]Card
			for j := range part {
				for v := range part[j] {
					part[j][v] = Card(values[coords[j]][v]) * [4]Card{27, 9, 3, 1}[j]
				}
			}
			for c := Card(0); c < NumCards; c++ {
				x := c.Digits()
				d := part[0][x[coords[0]]] + part[1][x[coords[1]]] + part[2][x[coords[2]]] + part[3][x[coords[3]]]
				g.aut[i][c] = d
				g.inv[i][d] = c
			}
		}
		groupTab = g
	})
	return groupTab
}

// SymmetryAt returns symmetry number i, 0 <= i < NumSymmetries, numbered as
// in SymmetryParts (0 is the identity). It panics if i is out of range.
func SymmetryAt(i int) Symmetry { return group().aut[i] }

// Symmetries returns a new slice of all NumSymmetries symmetries, numbered
// as in SymmetryParts. The tables behind it are built once; the slice is the
// caller's to keep.
func Symmetries() []Symmetry {
	g := group()
	out := make([]Symmetry, NumSymmetries)
	copy(out, g.aut[:])
	return out
}
