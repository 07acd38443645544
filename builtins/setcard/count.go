package setcard

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// The counting kernels give Knuth's two columns without visiting the
// half-billion canonical sets.
//
// total[k] is the number of SET-less k-sets, counted by the slice method
// (count_slice.go). classes[k] comes from Burnside's lemma: the number of
// orbits is the average over the 31104 symmetries g of fix_g(k), the number
// of SET-less k-sets that g maps to themselves. Conjugate symmetries fix
// equally many sets, so one representative per conjugacy class suffices
// (51 classes: the group is the wreath product S3 wr S4). A class whose
// members become (c, y) -> (c, h(y)) in some affine coordinates (see
// sliceOf; 37 classes, the identity's among them) is counted by the slice
// method too; the other 14 fix few sets (the most, about 4 million, for
// x -> -x), which a search over the cycles of g on the 81 cards counts
// directly.

// countPoll is how many search nodes a counting kernel visits between two
// looks at its context (a power of two).
const countPoll = 1 << 12

// Totals returns total[k], the number of SET-less k-sets of the 81 cards,
// for k = 0..kmax (total[0] = 1; total[k] = 0 for k > MaxSetFree). It uses
// up to workers goroutines (workers <= 0 means GOMAXPROCS); the result is
// exact and the same for any number of workers. progress, if not nil, is
// called with the tasks done so far and their total (which may grow once,
// when the tasks of the second phase are known), never concurrently. It
// returns ctx's error, wrapped, soon after ctx is cancelled, with no
// goroutine left running. kmax must be in 0..NumCards.
func Totals(ctx context.Context, kmax, workers int, progress func(done, total int64)) ([]uint64, error) {
	if kmax < 0 || kmax > NumCards {
		return nil, fmt.Errorf("setcard: Totals: kmax = %d is out of range 0..%d", kmax, NumCards)
	}
	fix, err := fixCounts(ctx, kmax, workers, progress, countOptions{identityOnly: true})
	if err != nil {
		return nil, err
	}
	return fix[0], nil
}

// Classes returns, for k = 0..kmax, total[k] as Totals does and classes[k],
// the number of SET-less k-sets up to the 31104 symmetries (the number of
// canonical k-sets of Knuth's SETSET), by Burnside's lemma. Arguments,
// progress and cancellation are as for Totals.
func Classes(ctx context.Context, kmax, workers int, progress func(done, total int64)) (totals, classes []uint64, err error) {
	if kmax < 0 || kmax > NumCards {
		return nil, nil, fmt.Errorf("setcard: Classes: kmax = %d is out of range 0..%d", kmax, NumCards)
	}
	fix, err := fixCounts(ctx, kmax, workers, progress, countOptions{})
	if err != nil {
		return nil, nil, err
	}
	cls := symClasses()
	classes = make([]uint64, kmax+1)
	for k := range classes {
		// The sum is 31104 * classes[k] <= 31104 * total[k] < 2^64.
		var sum uint64
		for i, c := range cls {
			sum += c.size * fix[i][k]
		}
		if sum%NumSymmetries != 0 {
			return nil, nil, fmt.Errorf("setcard: Classes: internal error: the Burnside sum for k = %d, %d, is not a multiple of %d", k, sum, NumSymmetries)
		}
		classes[k] = sum / NumSymmetries
	}
	return fix[0], classes, nil
}

// A symClass is a conjugacy class of the 31104 symmetries.
type symClass struct {
	rep   int    // the representative's number (see SymmetryParts)
	size  uint64 // how many symmetries are in the class
	slice bool   // sliceOf(rep) succeeds
	h     perm27 // then the slice method counts for h
}

var (
	symClassOnce sync.Once
	symClassTab  []symClass
)

// classKey is the complete invariant of a conjugacy class of the wreath
// product S3 wr S4: key[L-1][t] counts the cycles of length L of the
// coordinate permutation whose cycle product (the value permutations
// composed around the cycle) is of type t (0 identity, 1 transposition,
// 2 three-cycle).
type classKey [4][3]uint8

func keyOf(coords [4]uint8, values [4][3]uint8) classKey {
	var key classKey
	var seen [4]bool
	for j := range coords {
		if seen[j] {
			continue
		}
		// Image coordinate j is values[coords[j]] of old coordinate
		// coords[j]; L steps compose values[j1] o values[j2] o ... with
		// j1 = coords[j], j2 = coords[j1], ...
		p := [3]uint8{0, 1, 2}
		n := 0
		for jj := coords[j]; ; jj = coords[jj] {
			seen[jj] = true
			v := values[jj]
			p = [3]uint8{p[v[0]], p[v[1]], p[v[2]]}
			n++
			if int(jj) == j {
				break
			}
		}
		fixed := 0
		for x, y := range p {
			if int(y) == x {
				fixed++
			}
		}
		t := map[int]int{3: 0, 1: 1, 0: 2}[fixed]
		key[n-1][t]++
	}
	return key
}

// symClasses returns the conjugacy classes, the identity's first, each with
// its first member (in SymmetryParts's numbering) as representative.
func symClasses() []symClass {
	symClassOnce.Do(func() {
		at := map[classKey]int{}
		var out []symClass
		for i := 0; i < NumSymmetries; i++ {
			key := keyOf(SymmetryParts(i))
			n, ok := at[key]
			if !ok {
				n = len(out)
				at[key] = n
				g := SymmetryAt(i)
				h, slice := sliceOf(&g)
				out = append(out, symClass{rep: i, slice: slice, h: h})
			}
			out[n].size++
		}
		symClassTab = out
	})
	return symClassTab
}

// cadd and cdot are the vector sum and the dot product of cards as vectors
// of F_3^4: Third(x, y) = -(x+y), so x + y = Third(Third(x, y), 0).
func cadd(x, y Card) Card { return Third(Third(x, y), 0) }

func cdot(x, y Card) uint8 {
	a, b := x.Digits(), y.Digits()
	return (a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]) % 3
}

// sliceOf looks for affine coordinates (c, y), c in F_3 and y a point of
// AG(3,3), in which g is (c, y) -> (c, h(y)). Write g(x) = Mx + t. It
// needs a direction e with Me = e and a linear form phi with phi(Mx) =
// phi(x), phi(e) = 1 and phi(t) = 0: then with a basis b1, b2, b3 of the
// kernel of phi and A(c, y) = ce + y1 b1 + y2 b2 + y3 b3 (an affine
// bijection, so it maps SETs to SETs), g(A(c, y)) = ce + M(y1 b1 + ...) +
// t = A(c, h(y)). So g fixes as many SET-less sets as the map (c, y) ->
// (c, h(y)) does. The condition is invariant under conjugation; it fails
// for 14 of the 51 classes (x -> -x among them, which has no e).
func sliceOf(g *Symmetry) (h perm27, ok bool) {
	t := g[0]
	negT := Third(t, 0)
	lin := func(x Card) Card { return cadd(g[x], negT) } // Mx
	units := [4]Card{27, 9, 3, 1}
	for e := Card(1); e < NumCards; e++ {
		if lin(e) != e {
			continue
		}
		for phi := Card(1); phi < NumCards; phi++ {
			if cdot(phi, e) != 1 || cdot(phi, t) != 0 {
				continue
			}
			inv := true
			for _, u := range units {
				inv = inv && cdot(phi, lin(u)) == cdot(phi, u)
			}
			if !inv {
				continue
			}
			// A basis of ker phi, greedily; span holds its span so far.
			var basis []Card
			span := HandOf(0)
			for x := Card(1); x < NumCards && len(basis) < 3; x++ {
				if cdot(phi, x) != 0 || span.Has(x) {
					continue
				}
				basis = append(basis, x)
				for _, y := range span.Cards() {
					span = span.Add(cadd(y, x)).Add(cadd(y, cadd(x, x)))
				}
			}
			// a[27c+y] = A(c, y), y's digits (x2, x3, x4) on b1, b2, b3.
			var a, ainv [NumCards]Card
			for c := 0; c < 3; c++ {
				for y := 0; y < 27; y++ {
					v := Card(0)
					for r := 0; r < c; r++ {
						v = cadd(v, e)
					}
					d := Card(y).Digits()
					for i, b := range basis {
						for r := uint8(0); r < d[i+1]; r++ {
							v = cadd(v, b)
						}
					}
					a[27*c+y], ainv[v] = v, Card(27*c+y)
				}
			}
			for y := range h {
				if z := ainv[g[a[y]]]; z < 27 {
					h[y] = uint8(z)
				} else {
					return h, false // cannot happen (see above); the cycle search is always right
				}
			}
			return h, true
		}
	}
	return h, false
}

// countOptions select what fixCounts counts and how.
type countOptions struct {
	identityOnly bool // only the identity's class: the totals
	allOrders    bool // slice method without the slice-permutation shortcut
	cyclesOnly   bool // every class by the search over its cycles (slow)
	skipIdentity bool // leave the identity's count (the totals) at zero
}

// fixCounts returns fix[i][k], the number of SET-less k-sets fixed by the
// representative of symClasses()[i], for k = 0..kmax.
func fixCounts(ctx context.Context, kmax, workers int, progress func(done, total int64), opt countOptions) ([][]uint64, error) {
	cls := symClasses()
	if opt.identityOnly {
		cls = cls[:1]
	}
	// No 28-set is SET-less: some slice would have 10 > 9 cards.
	kin := min(kmax, 27)
	fix := make([][]uint64, len(cls))
	kern := make([]*sliceKernel, len(cls))
	g := group()

	p := newPool(ctx, workers, progress)
	// The cycle searches first, one task per first cycle (x -> -x is the
	// longest search), then the slice kernels.
	var first, slices []func(*walker)
	branches := make([][][]uint64, len(cls))
	for i, c := range cls {
		if i == 0 && opt.skipIdentity {
			continue
		}
		if c.slice && !opt.cyclesOnly {
			slices = append(slices, func(w *walker) { kern[i] = newSliceKernel(w, &c.h, kin, opt.allOrders) })
			continue
		}
		ck := newCycleKernel(&g.aut[c.rep])
		branches[i] = make([][]uint64, len(ck.cyc))
		for j := range ck.cyc {
			first = append(first, func(w *walker) { branches[i][j] = ck.branch(w, j, kin) })
		}
	}
	first = append(first, slices...)
	if err := p.run(first); err != nil {
		return nil, err
	}
	for i, bs := range branches {
		if bs == nil {
			continue
		}
		fix[i] = make([]uint64, kin+1)
		fix[i][0] = 1 // the empty set
		for _, b := range bs {
			for k, n := range b {
				fix[i][k] += n
			}
		}
	}

	var second []func(*walker)
	profs := make([][]profile, len(cls))
	for i, k := range kern {
		if k == nil {
			continue
		}
		profs[i] = make([]profile, len(k.reps))
		for r := range k.reps {
			second = append(second, func(w *walker) { k.addRep(w, &k.reps[r], &profs[i][r]) })
		}
	}
	if err := p.run(second); err != nil {
		return nil, err
	}
	for i := range kern {
		if kern[i] == nil {
			continue
		}
		var sum profile
		for r := range profs[i] {
			for a := range sum {
				for b := range sum[a] {
					for c := range sum[a][b] {
						sum[a][b][c] += profs[i][r][a][b][c]
					}
				}
			}
		}
		fix[i] = sum.total(kin, opt.allOrders)
	}
	for i := range fix {
		for len(fix[i]) <= kmax {
			fix[i] = append(fix[i], 0)
		}
	}
	return fix, nil
}

// A pool runs lists of tasks on a fixed number of goroutines, each with its
// own walker, and reports progress over all the lists it has run.
type pool struct {
	ctx      context.Context
	workers  int
	progress func(done, total int64)
	mu       sync.Mutex
	done     int64
	total    int64
}

func newPool(ctx context.Context, workers int, progress func(done, total int64)) *pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &pool{ctx: ctx, workers: workers, progress: progress}
}

// run runs the tasks and waits for all its goroutines; it returns the
// context's error, wrapped, if it was cancelled.
func (p *pool) run(tasks []func(*walker)) error {
	if err := p.ctx.Err(); err != nil {
		return fmt.Errorf("setcard: counting interrupted: %w", context.Cause(p.ctx))
	}
	p.mu.Lock()
	p.total += int64(len(tasks))
	p.mu.Unlock()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, min(p.workers, len(tasks)))
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &walker{ctx: p.ctx}
			for w.err == nil {
				i := int(next.Add(1) - 1)
				if i >= len(tasks) {
					return
				}
				tasks[i](w)
				if w.err == nil {
					w.err = p.ctx.Err()
				}
				if w.err != nil {
					break
				}
				p.mu.Lock()
				p.done++
				if p.progress != nil && p.ctx.Err() == nil {
					p.progress(p.done, p.total)
				}
				p.mu.Unlock()
			}
			errs[g] = w.err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("setcard: counting interrupted: %w", context.Cause(p.ctx))
		}
	}
	return nil
}

// cycleKernel counts the SET-less sets fixed by a symmetry g directly: they
// are the unions of cycles of g on the 81 cards without a SET inside.
type cycleKernel struct {
	cyc   []Hand // the cycles of g that are SET-less themselves
	size  []int
	inner []Hand // inner[j]: Third of two distinct cards of cycle j
	tm    []Hand // tm[a*len(cyc)+j]: Third of a with each card of cycle j
}

func newCycleKernel(g *Symmetry) *cycleKernel {
	k := &cycleKernel{}
	var seen Hand
	for c := Card(0); c < NumCards; c++ {
		if seen.Has(c) {
			continue
		}
		var cyc []Card
		for d := c; !seen.Has(d); d = g[d] {
			seen = seen.Add(d)
			cyc = append(cyc, d)
		}
		var in Hand
		for x := range cyc {
			for y := x + 1; y < len(cyc); y++ {
				in = in.Add(Third(cyc[x], cyc[y]))
			}
		}
		h := HandOf(cyc...)
		if in[0]&h[0] != 0 || in[1]&h[1] != 0 {
			continue // the cycle holds a SET
		}
		k.cyc = append(k.cyc, h)
		k.size = append(k.size, len(cyc))
		k.inner = append(k.inner, in)
	}
	n := len(k.cyc)
	k.tm = make([]Hand, NumCards*n)
	for a := Card(0); a < NumCards; a++ {
		for j, h := range k.cyc {
			var t Hand
			for _, c := range h.Cards() {
				t = t.Add(Third(a, c))
			}
			k.tm[int(a)*n+j] = t
		}
	}
	return k
}

// count returns the number of g-invariant SET-less k-sets, k = 0..kmax.
func (k *cycleKernel) count(w *walker, kmax int) []uint64 {
	cnt := make([]uint64, kmax+1)
	k.walk(w, Hand{}, Hand{}, 0, 0, kmax, cnt)
	return cnt
}

// branch returns the number of g-invariant SET-less k-sets, k = 0..kmax,
// whose first cycle (in the order of k.cyc) is cycle j.
func (k *cycleKernel) branch(w *walker, j, kmax int) []uint64 {
	cnt := make([]uint64, kmax+1)
	if k.size[j] <= kmax {
		k.walk(w, k.cyc[j], k.inner[j], k.size[j], j+1, kmax, cnt)
	}
	return cnt
}

func (k *cycleKernel) walk(w *walker, s, forb Hand, n, next, kmax int, cnt []uint64) {
	if w.tick() {
		return
	}
	cnt[n]++
	ncyc := len(k.cyc)
	for j := next; j < ncyc; j++ {
		c, in := k.cyc[j], k.inner[j]
		m := n + k.size[j]
		if m > kmax || c[0]&forb[0] != 0 || c[1]&forb[1] != 0 || in[0]&s[0] != 0 || in[1]&s[1] != 0 {
			continue
		}
		nf := Hand{forb[0] | in[0], forb[1] | in[1]}
		for wd := 0; wd < 2; wd++ {
			for x := s[wd]; x != 0; x &= x - 1 {
				t := k.tm[(wd*64+bits.TrailingZeros64(x))*ncyc+j]
				nf[0] |= t[0]
				nf[1] |= t[1]
			}
		}
		k.walk(w, Hand{s[0] | c[0], s[1] | c[1]}, nf, m, j+1, kmax, cnt)
	}
}
