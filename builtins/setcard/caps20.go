package setcard

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// The 20-card SET-less sets, the maximal caps of the affine space F_3^4,
// without walking the canonical search tree (hours of CPU at k = 20).
//
// The symmetries of Knuth's SETSET form the subgroup G = translations x
// signed coordinate permutations (each value permutation of a coordinate is
// x -> +-x + b) of the affine group AGL(4,3), and every affine map sends a
// SET-less set to a SET-less set. Take one 20-cap C0 (the first found by a
// plain depth-first search) and its stabiliser H in AGL(4,3). The G-classes
// of the affine images of C0 correspond to the double cosets G \ AGL / H:
// since G holds the translations, the coset G(M, t) depends only on the
// linear part M up to left multiplication by a signed permutation matrix,
// that is on the set of rows of M up to sign, and H acts on these 63180
// cosets by right multiplication. One canonical form per H-orbit gives
// every class, and an orbit of o cosets holds 31104/2880*o caps, so its
// canonical form has 2880/o automorphisms when |H| = 2880 (checked).
//
// That the images of C0 are all the 20-caps (all maximal caps are affinely
// equivalent) is checked by the tests: the caps counted here,
// sum 31104/automorphisms, equal total[20] as counted by the Burnside
// kernel, which counts every SET-less 20-set.

// A Class is a canonical SET-less set with the number of the 31104
// symmetries that fix it.
type Class struct {
	Cards         Hand
	Automorphisms int
}

// vec is a vector of F_3^4 as a card number: coordinate i is digit i.
type vec = Card

// vecAdd[a][b] = a + b and vecScale[k][a] = k a in F_3^4 (tables.go) are
// buildVecTables's, from the digits.
func buildVecTables() (add [NumCards][NumCards]vec, scale [3][NumCards]vec) {
	d := digitsOf() // and mod3, not a division per entry
	for a := range Card(NumCards) {
		x := &d[a]
		for b := range Card(NumCards) {
			y := &d[b]
			add[a][b] = Card(27*mod3[x[0]+y[0]] + 9*mod3[x[1]+y[1]] + 3*mod3[x[2]+y[2]] + mod3[x[3]+y[3]])
		}
		for k := uint8(0); k < 3; k++ {
			var z [4]uint8
			for i := range z {
				z[i] = x[i] * k % 3
			}
			scale[k][a] = FromDigits(z)
		}
	}
	return add, scale
}

func vadd(a, b vec) vec { return vecAdd[a][b] }

func vscale(k uint8, a vec) vec { return vecScale[k][a] }

func vneg(a vec) vec { return vscale(2, a) }

func vdot(a, b vec) uint8 {
	x, y := a.Digits(), b.Digits()
	return (x[0]*y[0] + x[1]*y[1] + x[2]*y[2] + x[3]*y[3]) % 3
}

// independent reports whether the four vectors span F_3^4.
func independent(r [4]vec) bool {
	var seen Hand
	for c := Card(0); c < NumCards; c++ {
		d := c.Digits()
		v := vec(0)
		for i := range r {
			v = vadd(v, vscale(d[i], r[i]))
		}
		seen = seen.Add(v)
	}
	return seen.Len() == NumCards
}

// firstCap20 returns the lexicographically least SET-less 20-set, found by
// a plain depth-first search (a few thousand nodes).
func firstCap20() Hand {
	var cur []Card
	var dfs func(avail, thirds Hand) bool
	dfs = func(avail, thirds Hand) bool {
		if len(cur) == MaxSetFree {
			return true
		}
		for _, c := range avail.Cards() {
			if avail.Len() < MaxSetFree-len(cur) {
				return false
			}
			avail[c>>6] &^= 1 << (c & 63)
			nt := thirds
			for _, x := range cur {
				nt = nt.Add(Third(x, c))
			}
			cur = append(cur, c)
			if dfs(Hand{avail[0] &^ nt[0], avail[1] &^ nt[1]}, nt) {
				return true
			}
			cur = cur[:len(cur)-1]
		}
		return false
	}
	dfs(allCards, Hand{})
	return HandOf(cur...)
}

// capStabiliser returns the affine maps of F_3^4 that map c0 onto itself,
// each as the permutation of the 81 points. An affine map is fixed by the
// images of p0 and of p0 + b_i for a basis b_i; both are taken in c0.
func capStabiliser(ctx context.Context, c0 Hand) ([]Symmetry, error) {
	pts := c0.Cards()
	p0 := pts[0]
	// Pick p1..p4 in c0 with p_i - p0 independent.
	var basis [4]vec
	var pidx []Card
	for _, p := range pts[1:] {
		if len(pidx) == 4 {
			break
		}
		basis[len(pidx)] = vadd(p, vneg(p0))
		if spanSize(basis[:len(pidx)+1]) == pow3(len(pidx)+1) {
			pidx = append(pidx, p)
		}
	}
	// lam[x]: coordinates of x - p0 in the basis.
	var lam [NumCards][4]uint8
	for c := Card(0); c < NumCards; c++ {
		d := c.Digits()
		v := p0
		for i := range basis {
			v = vadd(v, vscale(d[i], basis[i]))
		}
		lam[v] = d
	}
	var out []Symmetry
	var q [5]Card
	var err error
	polls := 0
	var rec func(i int, used Hand)
	rec = func(i int, used Hand) {
		if err != nil {
			return
		}
		if i == 5 {
			if polls++; polls%4096 == 0 {
				err = ctx.Err()
			}
			var b [4]vec
			for j := range b {
				b[j] = vadd(q[j+1], vneg(q[0]))
			}
			image := func(x Card) vec {
				v := q[0]
				for j := range b {
					v = vadd(v, vscale(lam[x][j], b[j]))
				}
				return v
			}
			for _, p := range pts {
				if !c0.Has(image(p)) {
					return
				}
			}
			if !independent(b) {
				return
			}
			var f Symmetry
			for x := Card(0); x < NumCards; x++ {
				f[x] = image(x)
			}
			out = append(out, f)
			return
		}
		for _, p := range pts {
			if !used.Has(p) {
				q[i] = p
				rec(i+1, used.Add(p))
			}
		}
	}
	rec(0, Hand{})
	return out, err
}

func pow3(n int) int {
	p := 1
	for ; n > 0; n-- {
		p *= 3
	}
	return p
}

func spanSize(vs []vec) int {
	span := HandOf(0)
	for _, v := range vs {
		for _, x := range span.Cards() {
			span = span.Add(vadd(x, v)).Add(vadd(x, vneg(v)))
		}
	}
	return span.Len()
}

var (
	caps20Mu sync.Mutex
	caps20   []Class // computed once, read-only afterwards
)

// Caps20 returns the canonical SET-less 20-sets in ascending order (document
// 004's order) with their automorphism counts, computed as described above
// in about a second the first time and remembered. ctx can cancel the
// first computation (the error is then returned, and the next call starts
// again).
func Caps20(ctx context.Context) ([]Class, error) {
	caps20Mu.Lock()
	defer caps20Mu.Unlock()
	if caps20 == nil {
		cl, err := computeCaps20(ctx)
		if err != nil {
			return nil, err
		}
		caps20 = cl
	}
	return slices.Clone(caps20), nil
}

// projective[v] numbers the 40 points of PG(3,3): v and -v share a number;
// projRep lists the representatives (first nonzero coordinate 1). Both
// are buildProjective's, kept in tables.go.
func buildProjective(scale *[3][NumCards]vec) (num [NumCards]int8, rep []vec) {
	for v := Card(1); v < NumCards; v++ {
		d := v.Digits()
		i := 0
		for d[i] == 0 {
			i++
		}
		if d[i] == 1 {
			num[v] = int8(len(rep))
			num[scale[2][v]] = int8(len(rep))
			rep = append(rep, v)
		}
	}
	num[0] = -1
	return num, rep
}

func computeCaps20(ctx context.Context) ([]Class, error) {
	c0 := firstCap20()
	stab, err := capStabiliser(ctx, c0)
	if err != nil {
		return nil, fmt.Errorf("setcard: Caps20: %w", err)
	}
	gens := generators(stab)
	// Linear parts as row maps: rowMap[k][r] = r A_k, where A_k x = f(x) - f(0).
	rowMaps := make([][NumCards]vec, len(gens))
	for k, f := range gens {
		var cols [4]vec // cols[j] = A e_j
		for j := 0; j < 4; j++ {
			var e [4]uint8
			e[j] = 1
			cols[j] = vadd(f[FromDigits(e)], vneg(f[0]))
		}
		for r := Card(0); r < NumCards; r++ {
			var y [4]uint8
			for j := range y {
				y[j] = vdot(r, cols[j])
			}
			rowMaps[k][r] = FromDigits(y)
		}
	}
	// Cosets: sets of 4 independent projective points (rows up to sign).
	type key [4]int8
	label := func(rows [4]vec) key {
		var k key
		for i, r := range rows {
			k[i] = projective[r]
		}
		slices.Sort(k[:])
		return k
	}
	ids := map[key]int32{}
	var reps [][4]vec
	n := len(projRep)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				for d := c + 1; d < n; d++ {
					rows := [4]vec{projRep[a], projRep[b], projRep[c], projRep[d]}
					if independent(rows) {
						ids[label(rows)] = int32(len(reps))
						reps = append(reps, rows)
					}
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("setcard: Caps20: %w", err)
		}
	}
	// Orbits of H on the cosets.
	orbit := make([]int32, len(reps))
	for i := range orbit {
		orbit[i] = -1
	}
	var classes []Class
	var queue []int32
	for start := range reps {
		if orbit[start] >= 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("setcard: Caps20: %w", err)
		}
		id := int32(len(classes))
		orbit[start] = id
		queue = append(queue[:0], int32(start))
		size := 0
		for len(queue) > 0 {
			u := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			size++
			for k := range rowMaps {
				var rows [4]vec
				for i, r := range reps[u] {
					rows[i] = rowMaps[k][r]
				}
				v := ids[label(rows)]
				if orbit[v] < 0 {
					orbit[v] = id
					queue = append(queue, v)
				}
			}
		}
		// The cap M c0 for the representative M (rows reps[start]).
		var img Hand
		for _, x := range c0.Cards() {
			var y [4]uint8
			for i, r := range reps[start] {
				y[i] = vdot(r, x)
			}
			img = img.Add(FromDigits(y))
		}
		canon, auts := Canon(img)
		if len(stab)%size != 0 || auts != len(stab)/size || !img.SetFree() {
			return nil, fmt.Errorf("setcard: Caps20: internal error: orbit of %d cosets, %d automorphisms, stabiliser %d", size, auts, len(stab))
		}
		classes = append(classes, Class{canon, auts})
	}
	slices.SortFunc(classes, func(a, b Class) int {
		switch {
		case a.Cards.Less(b.Cards):
			return -1
		case b.Cards.Less(a.Cards):
			return 1
		}
		return 0
	})
	for i := 1; i < len(classes); i++ {
		if classes[i].Cards == classes[i-1].Cards {
			return nil, fmt.Errorf("setcard: Caps20: internal error: two orbits share a canonical form")
		}
	}
	return classes, nil
}

// generators returns a few elements of the permutation group grp that
// generate it, chosen greedily.
func generators(grp []Symmetry) []Symmetry {
	var gens []Symmetry
	var id Symmetry
	for c := range id {
		id[c] = Card(c)
	}
	closure := map[Symmetry]bool{id: true}
	for _, h := range grp {
		if closure[h] {
			continue
		}
		gens = append(gens, h)
		queue := make([]Symmetry, 0, len(grp))
		for e := range closure {
			queue = append(queue, e)
		}
		for len(queue) > 0 {
			e := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for _, g := range gens {
				var p Symmetry
				for c := range p {
					p[c] = g[e[c]]
				}
				if !closure[p] {
					closure[p] = true
					queue = append(queue, p)
				}
			}
		}
		if len(closure) == len(grp) {
			break
		}
	}
	return gens
}
