package setcard

import (
	"context"
	"math/bits"
	"sync"
)

// The slice method counts the SET-less sets fixed by a symmetry g that
// leaves x1 alone: g(x1, y) = (x1, h(y)) for an affine map h of the 27
// points y = (x2, x3, x4) of the affine space AG(3,3) (the identity is such
// a g; sliceOf brings others to this form).
//
// Cut the 81 cards into three slices by x1; slice v holds the cards
// 27v + y. A SET lies inside one slice, or takes (0, a0), (1, a1), (2, a2)
// with a0 + a1 + a2 = 0, that is a2 = third3(a0, a1) (third3(a, a) = a).
// So a SET-less set is three caps A0, A1, A2 of AG(3,3) with A2 avoiding
// F(A0, A1) = {third3(a0, a1)}, and it is g-invariant when each Ai is
// h-invariant. Three kinds of symmetry shrink the sum:
//
//   - permuting the slices (x1 -> s(x1), any of the 6 permutations of F_3,
//     all affine) commutes with g, so the number of fixed sets with slice
//     sizes (s0, s1, s2) depends only on the multiset of sizes: only
//     s0 >= s1 >= s2 are counted, times the number of distinct orders;
//   - the affine maps c of AG(3,3) that commute with h (the centraliser C,
//     taken in the whole affine group AGL(3,3) of 27*11232 = 303264 maps)
//     act on all three slices at once: A0 runs over orbit representatives
//     under C, weighted by the orbit's size;
//   - the maps (x1, y) -> (x1, y + x1*u), for u with h(y+u) = h(y)+u, also
//     preserve slices, SETs and g-invariance: A1 runs over orbit
//     representatives under them and A0's stabiliser in C.
//
// The orbits are found on classes of caps under those translations u (a
// nonempty cap has one translate per u: a translation fixing a set makes
// it a union of lines), with one element of C per coset of the
// translations, so the identity's orbits need 27 times fewer images.
//
// The remaining cap of slice 2 is counted by a small search over the cycles
// of h inside the allowed points. For the identity the whole table (k up
// to 20) comes from 17 representatives A0, 11767 pairs (A0, A1) and
// 667770 search nodes.

// all27 is the set of the 27 points of AG(3,3) as a bit mask.
const all27 = 1<<27 - 1

// third3 and add3 are the SET completion and the vector sum on the 27
// points (the cards with x1 = 1): third3 is Third restricted to them, that
// is third3(a, b) = -(a+b), so a + b = third3(third3(a, b), 0).
// Both are buildSlice3's of thirdTable, kept in tables.go.
func buildSlice3(third *[NumCards][NumCards]Card) (t, a [27][27]uint8) {
	for x := 0; x < 27; x++ {
		for y := 0; y < 27; y++ {
			t[x][y] = uint8(third[x][y])
		}
	}
	for x := 0; x < 27; x++ {
		for y := 0; y < 27; y++ {
			a[x][y] = t[t[x][y]][0]
		}
	}
	return t, a
}

// perm27 is a permutation of the 27 points.
type perm27 [27]uint8

// apply returns the image of the point set m under p.
func (p *perm27) apply(m uint32) uint32 {
	var r uint32
	for ; m != 0; m &= m - 1 {
		r |= 1 << p[bits.TrailingZeros32(m)]
	}
	return r
}

// translate returns m + u.
func translate(m uint32, u uint8) uint32 {
	var r uint32
	for ; m != 0; m &= m - 1 {
		r |= 1 << add3[bits.TrailingZeros32(m)][u]
	}
	return r
}

var (
	aglOnce sync.Once
	aglTab  []perm27
)

// agl3 returns the 303264 maps y -> My + t of AG(3,3) (M in GL(3,3), of
// order 26*24*18 = 11232), each as a permutation of the points.
func agl3() []perm27 {
	aglOnce.Do(func() {
		out := make([]perm27, 0, 303264)
		// A linear map is given by the images e[0], e[1], e[2] of the unit
		// vectors 1, 3, 9 (x4, x3, x2); it is in GL(3,3) when bijective.
		for m := 0; m < 27*27*27; m++ {
			e := [3]uint8{uint8(m % 27), uint8(m / 27 % 27), uint8(m / 729)}
			var p perm27
			var seen uint32
			for y := 0; y < 27; y++ {
				v, d := uint8(0), y
				for i := 0; i < 3; i++ {
					for r := d % 3; r > 0; r-- {
						v = add3[v][e[i]]
					}
					d /= 3
				}
				p[y] = v
				seen |= 1 << v
			}
			if seen != all27 {
				continue
			}
			for t := uint8(0); t < 27; t++ {
				var q perm27
				for y := range q {
					q[y] = add3[p[y]][t]
				}
				out = append(out, q)
			}
		}
		aglTab = out
	})
	return aglTab
}

// capIndex maps the caps of a list to their positions (open addressing).
type capIndex struct {
	keys  []uint32 // key+1, 0 = empty slot
	vals  []int32
	shift uint
}

func newCapIndex(caps []uint32) *capIndex {
	n := 1
	for n < 2*len(caps) {
		n *= 2
	}
	x := &capIndex{keys: make([]uint32, n), vals: make([]int32, n), shift: uint(32 - bits.TrailingZeros(uint(n)))}
	for i, c := range caps {
		j := x.slot(c)
		x.keys[j], x.vals[j] = c+1, int32(i)
	}
	return x
}

func (x *capIndex) slot(c uint32) uint32 {
	mask := uint32(len(x.keys) - 1)
	j := (c * 0x9E3779B1) >> x.shift
	if x.shift == 32 {
		j = 0
	}
	for x.keys[j] != 0 && x.keys[j] != c+1 {
		j = (j + 1) & mask
	}
	return j
}

// get returns the position of cap c, or -1.
func (x *capIndex) get(c uint32) int32 {
	j := x.slot(c)
	if x.keys[j] == 0 {
		return -1
	}
	return x.vals[j]
}

// a0Rep is an orbit representative for the cap of slice 0.
type a0Rep struct {
	cap   uint32
	orbit uint64  // size of its orbit under the centraliser
	stab  []int32 // the elements of cosets (indices into agl3) that map it to a translate
}

// sliceKernel holds what the slice method needs for one h.
type sliceKernel struct {
	kmax int
	// allOrders counts every order of slice sizes instead of s0 >= s1 >=
	// s2 only (slower; a check of the slice-permutation argument).
	allOrders bool
	ncyc      int
	cyc       [27]uint32     // the cycles of h, as point sets
	inner     [27]uint32     // inner[j]: third3 of two distinct points of cycle j
	tm        [27][27]uint32 // tm[a][j]: third3 of a with each point of cycle j
	good      uint32         // cycles that are caps themselves
	caps      []uint32       // the h-invariant caps of AG(3,3), by size
	start     [11]int        // caps of size s are caps[start[s]:start[s+1]]
	index     *capIndex
	fix       []uint8 // the u with h(y+u) = h(y)+u
	class     []int32 // class[i]: the number of caps[i]'s class of translates by fix
	classRep  []int32 // the first cap of each class, in the order of caps
	reps      []a0Rep // orbit representatives of caps (size <= kmax) under the centraliser
}

// classSize returns the number of caps in class id.
func (k *sliceKernel) classSize(id int32) uint64 {
	if k.caps[k.classRep[id]] == 0 {
		return 1
	}
	return uint64(len(k.fix))
}

// walker is one goroutine's search state: it polls ctx every countPoll
// nodes.
type walker struct {
	ctx   context.Context
	nodes int
	err   error
}

// tick counts a node and reports whether to stop.
func (w *walker) tick() bool {
	if w.err != nil {
		return true
	}
	w.nodes++
	if w.nodes&(countPoll-1) == 0 {
		w.err = w.ctx.Err()
	}
	return w.err != nil
}

// newSliceKernel prepares the slice method for h, an affine symmetry of
// AG(3,3), for sizes up to kmax.
func newSliceKernel(w *walker, h *perm27, kmax int, allOrders bool) *sliceKernel {
	k := &sliceKernel{kmax: kmax, allOrders: allOrders}
	var seen uint32
	for y := 0; y < 27; y++ {
		if seen>>y&1 != 0 {
			continue
		}
		var c uint32
		for z := uint8(y); c>>z&1 == 0; z = h[z] {
			c |= 1 << z
		}
		seen |= c
		k.cyc[k.ncyc] = c
		k.ncyc++
	}
	for j := 0; j < k.ncyc; j++ {
		for m := k.cyc[j]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros32(m)
			for n := m & (m - 1); n != 0; n &= n - 1 {
				k.inner[j] |= 1 << third3[b][bits.TrailingZeros32(n)]
			}
			for a := 0; a < 27; a++ {
				k.tm[a][j] |= 1 << third3[a][b]
			}
		}
		if k.inner[j]&k.cyc[j] == 0 {
			k.good |= 1 << j
		}
	}
	// The invariant caps, sorted by size (a stable order: search order
	// within each size).
	var bySize [10][]uint32
	var list func(s, forb uint32, n int, cand uint32)
	list = func(s, forb uint32, n int, cand uint32) {
		if w.tick() {
			return
		}
		bySize[n] = append(bySize[n], s)
		for ; cand != 0; cand &= cand - 1 {
			j := bits.TrailingZeros32(cand)
			c := k.cyc[j]
			if c&forb != 0 || k.inner[j]&s != 0 {
				continue
			}
			nf := forb | k.inner[j]
			for t := s; t != 0; t &= t - 1 {
				nf |= k.tm[bits.TrailingZeros32(t)][j]
			}
			list(s|c, nf, n+bits.OnesCount32(c), cand&(cand-1))
		}
	}
	list(0, 0, 0, k.good)
	if w.err != nil {
		return nil
	}
	for s := range bySize {
		k.start[s] = len(k.caps)
		k.caps = append(k.caps, bySize[s]...)
	}
	k.start[10] = len(k.caps)
	k.index = newCapIndex(k.caps)

	// The centraliser of h in AGL(3,3): two affine maps agree when they
	// agree on the affine basis 0, 1, 3, 9.
	agl := agl3()
	var cent []int32
	for i := range agl {
		c := &agl[i]
		if c[h[0]] == h[c[0]] && c[h[1]] == h[c[1]] && c[h[3]] == h[c[3]] && c[h[9]] == h[c[9]] {
			cent = append(cent, int32(i))
		}
	}
	for u := uint8(0); u < 27; u++ {
		if add3[h[0]][u] == h[u] && add3[h[1]][u] == h[add3[1][u]] &&
			add3[h[3]][u] == h[add3[3][u]] && add3[h[9]][u] == h[add3[9][u]] {
			k.fix = append(k.fix, u)
		}
	}

	// The classes of translates.
	k.class = make([]int32, len(k.caps))
	for i := range k.class {
		k.class[i] = -1
	}
	for i, c := range k.caps {
		if k.class[i] >= 0 {
			continue
		}
		id := int32(len(k.classRep))
		k.classRep = append(k.classRep, int32(i))
		for _, u := range k.fix {
			k.class[k.index.get(translate(c, u))] = id
		}
	}
	// One element of the centraliser per coset of the translations: the
	// one whose translation part t is the least of t + fix.
	var cosets []int32
	for _, ci := range cent {
		t := agl[ci][0]
		least := true
		for _, u := range k.fix {
			least = least && add3[t][u] >= t
		}
		if least {
			cosets = append(cosets, ci)
		}
	}

	// Orbits of the caps of size <= kmax under the centraliser.
	end := int32(k.start[min(kmax, 9)+1])
	done := make([]bool, len(k.classRep))
	for id := int32(0); id < int32(len(k.classRep)) && k.classRep[id] < end; id++ {
		if done[id] {
			continue
		}
		r := a0Rep{cap: k.caps[k.classRep[id]]}
		for _, ci := range cosets {
			if w.tick() {
				return nil
			}
			cid := k.class[k.index.get(agl[ci].apply(r.cap))]
			if !done[cid] {
				done[cid] = true
				r.orbit += k.classSize(cid)
			}
			if cid == id {
				r.stab = append(r.stab, ci)
			}
		}
		k.reps = append(k.reps, r)
	}
	return k
}

// profile accumulates n[s0][s1][s2], the number of fixed SET-less sets
// with s_i cards in slice i, for s0 >= s1 >= s2.
type profile [10][10][10]uint64

// addRep adds the fixed sets whose slice-0 cap is in the orbit of r.
func (k *sliceKernel) addRep(w *walker, r *a0Rep, n *profile) {
	s0 := bits.OnesCount32(r.cap)
	s1max := min(s0, k.kmax-s0)
	if k.allOrders {
		s1max = min(9, k.kmax-s0)
	} else if s0 == 0 {
		n[0][0][0] += r.orbit // only the empty set has no slice of size >= 1
		return
	}
	if s1max < 0 {
		return
	}
	// t[a1]: the points of slice 2 that make a SET with a1 and a card of A0.
	var t [27]uint32
	for a1 := 0; a1 < 27; a1++ {
		for m := r.cap; m != 0; m &= m - 1 {
			t[a1] |= 1 << third3[bits.TrailingZeros32(m)][a1]
		}
	}
	agl := agl3()
	end := int32(k.start[s1max+1])
	done := make([]bool, len(k.classRep))
	var cnt [28]uint64
	for id := int32(0); id < int32(len(k.classRep)) && k.classRep[id] < end; id++ {
		if done[id] {
			continue
		}
		// The orbit of A1 under A0's stabiliser and the translations:
		// the classes of its images under the stabiliser's cosets.
		a1 := k.caps[k.classRep[id]]
		var orbit uint64
		for _, ci := range r.stab {
			if w.tick() {
				return
			}
			cid := k.class[k.index.get(agl[ci].apply(a1))]
			if !done[cid] {
				done[cid] = true
				orbit += k.classSize(cid)
			}
		}
		var f uint32
		for m := a1; m != 0; m &= m - 1 {
			f |= t[bits.TrailingZeros32(m)]
		}
		s1 := bits.OnesCount32(a1)
		s2max := min(s1, k.kmax-s0-s1)
		if k.allOrders {
			s2max = min(9, k.kmax-s0-s1)
		}
		cnt = [28]uint64{}
		cand := k.good
		for c := cand; c != 0; c &= c - 1 {
			if j := bits.TrailingZeros32(c); k.cyc[j]&f != 0 {
				cand &^= 1 << j
			}
		}
		k.count(w, 0, f, 0, s2max, cand, &cnt)
		if w.err != nil {
			return
		}
		wgt := r.orbit * orbit
		for s2 := 0; s2 <= s2max; s2++ {
			n[s0][s1][s2] += wgt * cnt[s2]
		}
	}
}

// count adds to cnt[size] the h-invariant caps that extend s (a cap with
// n points whose SET-completions, with the forbidden points, are forb) by
// cycles from cand, with at most maxn points in all.
func (k *sliceKernel) count(w *walker, s, forb uint32, n, maxn int, cand uint32, cnt *[28]uint64) {
	if w.tick() {
		return
	}
	cnt[n]++
	for ; cand != 0; cand &= cand - 1 {
		j := bits.TrailingZeros32(cand)
		c := k.cyc[j]
		m := n + bits.OnesCount32(c)
		if c&forb != 0 || k.inner[j]&s != 0 || m > maxn {
			continue
		}
		nf := forb | k.inner[j]
		for t := s; t != 0; t &= t - 1 {
			nf |= k.tm[bits.TrailingZeros32(t)][j]
		}
		k.count(w, s|c, nf, m, maxn, cand&(cand-1), cnt)
	}
}

// total folds a profile into counts by size: n[s0][s1][s2] with s0 >= s1
// >= s2 stands for each distinct order of the three sizes (unless
// allOrders, when every order was counted).
func (n *profile) total(kmax int, allOrders bool) []uint64 {
	out := make([]uint64, kmax+1)
	if allOrders {
		for s0 := range n {
			for s1 := range n[s0] {
				for s2 := range n[s0][s1] {
					if k := s0 + s1 + s2; k <= kmax {
						out[k] += n[s0][s1][s2]
					}
				}
			}
		}
		return out
	}
	for s0 := 0; s0 < 10; s0++ {
		for s1 := 0; s1 <= s0; s1++ {
			for s2 := 0; s2 <= s1; s2++ {
				k := s0 + s1 + s2
				if k > kmax || n[s0][s1][s2] == 0 {
					continue
				}
				orders := uint64(6)
				switch {
				case s0 == s1 && s1 == s2:
					orders = 1
				case s0 == s1 || s1 == s2:
					orders = 3
				}
				out[k] += orders * n[s0][s1][s2]
			}
		}
	}
	return out
}
