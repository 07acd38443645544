package setcard

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
)

// MaxSetFree is the largest number of cards without a SET (Pellegrino 1971,
// cited in document 004): no 21 cards are SET-free. Search relies on it to
// stop at once for larger k; the counting kernels confirm total[21] = 0.
const MaxSetFree = 20

// The canonical search (document 004, sections 2 and 9-33).
//
// A set S = {s1 < ... < sl} is canonical when S <= aS for each of the 31104
// symmetries a, in document 004's order. Every canonical k-set is a
// canonical (k-1)-set plus one card above its maximum, so a depth-first
// walk that appends cards in ascending order and keeps only canonical sets
// meets each canonical set once, in ascending order.
//
// For each symmetry a the searcher keeps the threshold theta(a): the least
// card of S xor aS, which lies in S because S is canonical, or "auto" when
// aS == S. Appending a card j > max S gives S' = S + j, aS' = aS + a(j):
//   - if a is an automorphism of S: S' is not canonical when a(j) < j; a
//     stays an automorphism when a(j) == j, otherwise theta becomes j;
//   - otherwise, when a(j) < theta, aS' < S' and S' is not canonical; when
//     a(j) > theta nothing changes; when a(j) == theta (j is the card a is
//     "waiting for", a^-1(theta)) the comparison of S' and aS' resumes at
//     theta+1 and finds the new threshold, a rejection, or a new
//     automorphism.
//
// So a symmetry needs work only when the card it waits for is appended
// (Knuth's lists top[j]; here bucket[j]); every card c with a(c) < theta(a)
// can never be appended and is marked forbidden in a bitmask, as are the
// third cards of the pairs of S. The remaining cards above max S are the
// candidates. A symmetry waiting for a card below max S that is not in S
// is dormant for the whole subtree.
type searcher struct {
	g     *groupTables
	ctx   context.Context
	polls int
	l     int            // number of cards in the current set
	s     [maxLevel]Card // the cards, ascending
	here  Hand           // the current set
	theta [NumSymmetries]uint8
	forb  [maxLevel + 1]Hand     // per level: cards that would break canonicity
	third [maxLevel + 1]Hand     // per level: cards that would complete a SET
	autos [maxLevel + 1][]uint16 // per level: the non-identity automorphisms
	// bucket[c] lists the symmetries waiting for card c.
	bucket       [NumCards][]uint16
	tlog         []thetaUndo // old thresholds, for backtracking
	plog         []Card      // buckets pushed to, for backtracking
	tmark, pmark [maxLevel + 1]int
}

const (
	maxLevel  = MaxSetFree + 1
	autoTheta = 0xff // theta of an automorphism of the current set
	pollEvery = 4096
)

type thetaUndo struct {
	a   uint16
	old uint8
}

var allCards = Hand{^uint64(0), 1<<(NumCards-64) - 1}

func newSearcher(ctx context.Context) *searcher {
	s := &searcher{g: group(), ctx: ctx}
	for i := range s.theta {
		s.theta[i] = autoTheta
	}
	s.autos[0] = make([]uint16, NumSymmetries-1)
	for i := range s.autos[0] {
		s.autos[0][i] = uint16(i + 1)
	}
	for l := 1; l <= maxLevel; l++ {
		s.autos[l] = make([]uint16, 0, 64)
	}
	return s
}

// max returns the largest card of the current set, or -1.
func (s *searcher) max() int {
	if s.l == 0 {
		return -1
	}
	return int(s.s[s.l-1])
}

// candidates returns the cards above the maximum that are neither
// forbidden nor thirds of pairs.
func (s *searcher) candidates() Hand {
	l := s.l
	h := Hand{^(s.forb[l][0] | s.third[l][0]), ^(s.forb[l][1] | s.third[l][1])}
	h[0] &= allCards[0]
	h[1] &= allCards[1]
	if m := s.max(); m >= 0 {
		if m < 63 {
			h[0] &= ^uint64(0) << (m + 1)
		} else {
			h[0] = 0
			h[1] &= ^uint64(0) << (m + 1 - 64)
		}
	}
	return h
}

func (s *searcher) push(w Card, a uint16) {
	s.bucket[w] = append(s.bucket[w], a)
	s.plog = append(s.plog, w)
}

func (s *searcher) undoTo(tmark, pmark int) {
	for i := len(s.tlog) - 1; i >= tmark; i-- {
		s.theta[s.tlog[i].a] = s.tlog[i].old
	}
	s.tlog = s.tlog[:tmark]
	for i := len(s.plog) - 1; i >= pmark; i-- {
		w := s.plog[i]
		s.bucket[w] = s.bucket[w][:len(s.bucket[w])-1]
	}
	s.plog = s.plog[:pmark]
}

// tryAdd appends card j (above the maximum, not forbidden, no SET) when the
// result is canonical, and reports whether it did; otherwise the state is
// unchanged.
func (s *searcher) tryAdd(j Card) bool {
	l := s.l
	g := s.g
	for _, a := range s.autos[l] {
		if g.aut[a][j] < j {
			return false
		}
	}
	m := s.max()
	here := s.here.Add(j)
	f := s.forb[l]
	tmark, pmark := len(s.tlog), len(s.plog)
	na := s.autos[l+1][:0]
	for _, a := range s.autos[l] {
		inv := &g.inv[a]
		for x := m + 1; x < int(j); x++ {
			c := inv[x]
			f[c>>6] |= 1 << (c & 63)
		}
		if g.aut[a][j] == j {
			na = append(na, a)
			continue
		}
		s.tlog = append(s.tlog, thetaUndo{a, autoTheta})
		s.theta[a] = uint8(j)
		if w := inv[j]; w > j {
			s.push(w, a)
		}
	}
	for _, a := range s.bucket[j] {
		inv := &g.inv[a]
		th := int(s.theta[a])
		nt := autoTheta
		for x := th + 1; x <= int(j); x++ {
			c := inv[x]
			inImg := here[c>>6]>>(c&63)&1 != 0
			if here[x>>6]>>(x&63)&1 != 0 {
				if inImg {
					continue
				}
				nt = x
				break
			}
			if inImg { // aS' has x, S' has not: aS' < S'
				s.undoTo(tmark, pmark)
				return false
			}
			f[c>>6] |= 1 << (c & 63)
		}
		s.tlog = append(s.tlog, thetaUndo{a, uint8(th)})
		s.theta[a] = uint8(nt)
		if nt == autoTheta {
			na = append(na, a)
		} else if w := inv[nt]; w > j {
			s.push(w, a)
		}
	}
	t := s.third[l]
	for _, x := range s.s[:l] {
		c := thirdTable[x][j]
		t[c>>6] |= 1 << (c & 63)
	}
	s.s[l] = j
	s.here = here
	s.autos[l+1] = na
	s.forb[l+1] = f
	s.third[l+1] = t
	s.tmark[l+1], s.pmark[l+1] = tmark, pmark
	s.l = l + 1
	return true
}

// pop removes the last card.
func (s *searcher) pop() {
	l := s.l
	s.undoTo(s.tmark[l], s.pmark[l])
	s.l = l - 1
	j := s.s[l-1]
	s.here[j>>6] &^= 1 << (j & 63)
}

// automorphisms returns how many symmetries fix the current set.
func (s *searcher) automorphisms() int { return len(s.autos[s.l]) + 1 }

// poll reports the context's error every pollEvery calls.
func (s *searcher) poll() error {
	s.polls++
	if s.polls%pollEvery == 0 {
		if err := s.ctx.Err(); err != nil {
			return fmt.Errorf("setcard: search interrupted: %w", context.Cause(s.ctx))
		}
	}
	return nil
}

// walk visits the current (canonical) set and its canonical extensions up
// to k cards, calling visit on each. When exact, it skips subtrees that
// cannot reach k cards.
func (s *searcher) walk(k int, exact bool, visit func(*searcher) error) error {
	if err := visit(s); err != nil {
		return err
	}
	if s.l >= k {
		return nil
	}
	c := s.candidates()
	if exact && c.Len() < k-s.l {
		return nil
	}
	for w := 0; w < 2; w++ {
		for x := c[w]; x != 0; x &= x - 1 {
			if err := s.poll(); err != nil {
				return err
			}
			if !s.tryAdd(Card(w*64 + bits.TrailingZeros64(x))) {
				continue
			}
			err := s.walk(k, exact, visit)
			s.pop()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// goTo moves the searcher from its current set to the canonical set
// prefix (ascending cards), backtracking to their common part first.
func (s *searcher) goTo(prefix []Card) error {
	common := 0
	for common < s.l && common < len(prefix) && s.s[common] == prefix[common] {
		common++
	}
	for s.l > common {
		s.pop()
	}
	for _, c := range prefix[common:] {
		if !s.tryAdd(c) {
			return fmt.Errorf("setcard: internal error: prefix %v is not canonical", prefix)
		}
	}
	return nil
}

// splitDepth is the level whose canonical sets become the parallel jobs.
// With 5 there are a few hundred jobs (classes[5]), each replayed from
// the previous job's position in well under a millisecond.
const splitDepth = 5

// prefixes returns the canonical SET-less d-sets (d <= splitDepth) that can
// grow to k cards, ascending.
func prefixes(ctx context.Context, d, k int) ([][]Card, error) {
	s := newSearcher(ctx)
	var out [][]Card
	err := s.walk(d, true, func(s *searcher) error {
		if s.l == d && s.candidates().Len() >= k-d {
			out = append(out, append([]Card(nil), s.s[:d]...))
		}
		return nil
	})
	return out, err
}

// Search calls fn, from the calling goroutine, for each canonical SET-less
// k-set in ascending order (document 004's order), with the number of
// symmetries that fix it. The sets are found by a canonical search
// (document 004's isomorph rejection) on up to workers goroutines
// (workers < 1 means 1) and streamed: the calls are the same, in the same
// order, for any number of workers, and the first comes as soon as it is
// found. progress, if not nil, is called from the calling goroutine with
// the number of subtrees done and their total. Search stops and returns
// fn's error, or ctx's error (within milliseconds of cancellation), with no
// goroutine left running. For k > MaxSetFree there are no sets. The whole
// tree grows fast with k: k <= 9 takes seconds, k = 20 an hour or more;
// see Caps20 for k = 20.
func Search(ctx context.Context, k, workers int, progress func(done, total int64), fn func(h Hand, automorphisms int) error) error {
	if k < 0 {
		return fmt.Errorf("setcard: Search: k = %d is negative", k)
	}
	if k > MaxSetFree {
		return ctx.Err()
	}
	workers = max(workers, 1)
	if k <= splitDepth {
		s := newSearcher(ctx)
		return s.walk(k, true, func(s *searcher) error {
			if s.l == k {
				return fn(s.here, s.automorphisms())
			}
			return nil
		})
	}
	pre, err := prefixes(ctx, splitDepth, k)
	if err != nil {
		return err
	}
	// Each job (the subtree of one prefix) streams its sets in batches on
	// its own channel; the caller drains the jobs' channels in order. A
	// worker ahead of the caller blocks when its channel is full, so memory
	// stays bounded, and window bounds how many jobs run ahead.
	type result struct {
		h    Hand
		auts uint16
	}
	const batchSize = 512
	ctx, cancel := context.WithCancelCause(ctx)
	type job struct {
		out chan []result
		err error // set before out is closed
	}
	jobs := make([]job, len(pre))
	for i := range jobs {
		jobs[i].out = make(chan []result, 4)
	}
	window := make(chan struct{}, 16*workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSearcher(ctx)
			for {
				select {
				case window <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(pre) {
					return
				}
				j := &jobs[i]
				var batch []result
				send := func() error {
					select {
					case j.out <- batch:
						batch = nil
						return nil
					case <-ctx.Done():
						return context.Cause(ctx)
					}
				}
				j.err = s.goTo(pre[i])
				if j.err == nil {
					j.err = s.walk(k, true, func(s *searcher) error {
						if s.l == k {
							batch = append(batch, result{s.here, uint16(s.automorphisms())})
							if len(batch) == batchSize {
								return send()
							}
						}
						return nil
					})
				}
				if j.err == nil && len(batch) > 0 {
					j.err = send()
				}
				close(j.out)
				if j.err != nil {
					return
				}
			}
		}()
	}
	defer func() {
		cancel(nil)
		wg.Wait()
	}()
	for i := range jobs {
		for {
			var batch []result
			var ok bool
			select {
			case batch, ok = <-jobs[i].out:
			case <-ctx.Done():
				return fmt.Errorf("setcard: search interrupted: %w", context.Cause(ctx))
			}
			if !ok {
				break
			}
			for _, r := range batch {
				if err := fn(r.h, int(r.auts)); err != nil {
					cancel(err)
					return err
				}
			}
		}
		if err := jobs[i].err; err != nil {
			cancel(err)
			return err
		}
		<-window
		if progress != nil {
			progress(int64(i+1), int64(len(jobs)))
		}
	}
	return nil
}

// SearchCounts walks the canonical search tree up to kmax cards and returns
// classes[k], the number of canonical SET-less k-sets, and totals[k], the
// number of all SET-less k-sets (the sum of 31104/automorphisms), for k =
// 0..kmax. It is the direct count of document 004 (feasible for small kmax
// only; kmax = 20 is hours of CPU). progress, if not nil, is called with
// the jobs done so far and their total, from any goroutine but never
// concurrently.
func SearchCounts(ctx context.Context, kmax, workers int, progress func(done, total int64)) (classes, totals []uint64, err error) {
	if kmax < 0 {
		return nil, nil, fmt.Errorf("setcard: SearchCounts: kmax = %d is negative", kmax)
	}
	classes = make([]uint64, kmax+1)
	totals = make([]uint64, kmax+1)
	count := func(cl, tot []uint64) func(*searcher) error {
		return func(s *searcher) error {
			if s.l < len(cl) {
				cl[s.l]++
				tot[s.l] += uint64(NumSymmetries / s.automorphisms())
			}
			return nil
		}
	}
	lim := min(kmax, MaxSetFree)
	d := min(splitDepth, lim)
	workers = max(workers, 1)
	// The top of the tree, levels 0..d, serially.
	s := newSearcher(ctx)
	var pre [][]Card
	err = s.walk(d, false, func(s *searcher) error {
		if err := count(classes, totals)(s); err != nil {
			return err
		}
		if s.l == d && d < lim {
			pre = append(pre, append([]Card(nil), s.s[:d]...))
		}
		return nil
	})
	if err != nil || len(pre) == 0 {
		if progress != nil && err == nil {
			progress(1, 1)
		}
		return classes, totals, err
	}
	var (
		mu    sync.Mutex
		next  atomic.Int64
		done  int64
		wg    sync.WaitGroup
		first error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSearcher(ctx)
			cl := make([]uint64, kmax+1)
			tot := make([]uint64, kmax+1)
			var err error
			for err == nil {
				i := int(next.Add(1) - 1)
				if i >= len(pre) {
					break
				}
				if err = s.goTo(pre[i]); err == nil {
					// The prefix itself was counted above.
					cl[d]--
					tot[d] -= uint64(NumSymmetries / s.automorphisms())
					err = s.walk(lim, false, count(cl, tot))
				}
				if err == nil && progress != nil {
					mu.Lock()
					done++
					progress(done, int64(len(pre)))
					mu.Unlock()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			for i := range cl {
				classes[i] += cl[i]
				totals[i] += tot[i]
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, nil, first
	}
	return classes, totals, nil
}
