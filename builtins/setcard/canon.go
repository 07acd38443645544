package setcard

import "sync"

// Canon returns the canonical form of h, the least of its images under the
// 31104 symmetries in Knuth's order (see Hand.Less), and the number
// of symmetries that fix h; h's orbit has NumSymmetries/automorphisms
// members. The empty hand is its own canonical form with all 31104
// symmetries; every other canonical form contains card 0.
//
// Only the 384*len(h) symmetries that send a card of h to card 0 are tried:
// the least image contains 0, and each symmetry sending h to it sends
// exactly one card of h to 0, so the fixing symmetries are counted once.
// Those are the symmetries whose value permutation sends each coordinate of
// the card to 0 (2 choices per coordinate) with any of the 24 coordinate
// permutations. Canon uses the factored tables of canonTables, each value
// permutation's row built when first needed (a call on n cards needs at
// most 16n of the 1296), rather than the search's 5 MB table of every
// symmetry, which made the first call of a process wait 20 to 100 ms.
func Canon(h Hand) (canon Hand, automorphisms int) {
	h[1] &= highMask
	var buf [NumCards]Card
	cards := buf[:0]
	for w := 0; w < 2; w++ {
		for x := h[w]; x != 0; x &= x - 1 {
			cards = append(cards, Card(w*64+trailingZeros(x)))
		}
	}
	if len(cards) == 0 {
		return h, NumSymmetries
	}
	t := canonTabs()
	first := true
	for _, c := range cards {
		d := c.Digits()
		z0, z1, z2, z3 := &toZeroPerm[d[0]], &toZeroPerm[d[1]], &toZeroPerm[d[2]], &toZeroPerm[d[3]]
		for _, a := range z0 {
			for _, b := range z1 {
				for _, e := range z2 {
					for _, f := range z3 {
						vals := t.valueRow(((int(a)*6+int(b))*6+int(e))*6 + int(f))
						for p := range t.coords {
							coords := &t.coords[p]
							var img Hand
							for _, x := range cards {
								y := coords[vals[x]]
								img[y>>6] |= 1 << (y & 63)
							}
							switch {
							case first:
								canon, automorphisms, first = img, 1, false
							case img == canon:
								automorphisms++
							case img.Less(canon):
								canon, automorphisms = img, 1
							}
						}
					}
				}
			}
		}
	}
	return canon, automorphisms
}

// canonTables factors each symmetry of SymmetryParts into its value
// permutation (applied first) and its coordinate permutation: symmetry
// p*1296 + v sends card c to coords[p][values[v][c]].
type canonTables struct {
	values [6 * 6 * 6 * 6][NumCards]Card // v = ((v0*6+v1)*6+v2)*6+v3
	built  [6 * 6 * 6 * 6]sync.Once      // values[v] is filled by built[v]
	coords [24][NumCards]Card
}

// valueRow returns values[v], filling it on first use.
func (t *canonTables) valueRow(v int) *[NumCards]Card {
	t.built[v].Do(func() {
		p := [4]*[3]uint8{&perms3[v/216], &perms3[v/36%6], &perms3[v/6%6], &perms3[v%6]}
		for c := Card(0); c < NumCards; c++ {
			x := c.Digits()
			t.values[v][c] = FromDigits([4]uint8{p[0][x[0]], p[1][x[1]], p[2][x[2]], p[3][x[3]]})
		}
	})
	return &t.values[v]
}

var (
	canonOnce sync.Once
	canonTab  *canonTables
)

// toZeroPerm[d] (tables.go: buildToZeroPerm's) lists the two permutations
// of {0, 1, 2} (indices into perms3) that send d to 0.
func buildToZeroPerm() (z [3][2]uint8) {
	var n [3]int
	for q, p := range perms3 {
		for d := range 3 {
			if p[d] == 0 {
				z[d][n[d]] = uint8(q)
				n[d]++
			}
		}
	}
	return z
}

// canonTabs returns the factored tables, building the coordinate
// permutations on first use (the value permutations wait for valueRow).
func canonTabs() *canonTables {
	canonOnce.Do(func() {
		t := new(canonTables)
		for p, coords := range perms4() {
			for c := Card(0); c < NumCards; c++ {
				x := c.Digits()
				t.coords[p][c] = FromDigits([4]uint8{x[coords[0]], x[coords[1]], x[coords[2]], x[coords[3]]})
			}
		}
		canonTab = t
	})
	return canonTab
}
