package setcard

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// MaxSetFree is the largest number of cards without a SET (Pellegrino 1971,
// cited in Knuth's SETSET): no 21 cards are SET-free. Search relies on it to
// stop at once for larger k; the counting kernels confirm total[21] = 0.
const MaxSetFree = 20

// The canonical search (Knuth's SETSET, sections 2 and 9-33).
//
// A set S = {s1 < ... < sl} is canonical when S <= aS for each of the 31104
// symmetries a, in Knuth's order. Every canonical k-set is a
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
	pollEvery = 1 << 15
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
	s.polls += len(s.autos[l]) + len(s.bucket[j])
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

// poll reports the context's error every pollEvery units of work: a
// tryAdd counts 16 units plus one per symmetry it visits (the
// automorphisms of the current set and those waiting for the new card;
// thousands near the root and in long waiting lists). Counting calls
// alone let a cancelled search run on for seconds (measured: 2-4 s under
// the race detector).
func (s *searcher) poll() error {
	s.polls += 16
	if s.polls >= pollEvery {
		s.polls = 0
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

// walkTop visits, in ascending order, the canonical SET-less d-sets that
// may grow to k cards (d <= k): subtrees with fewer candidates than the
// cards still missing are skipped.
func (s *searcher) walkTop(d, k int, visit func(*searcher) error) error {
	c := s.candidates()
	if s.l < k && c.Len() < k-s.l {
		return nil
	}
	if s.l == d {
		return visit(s)
	}
	for w := 0; w < 2; w++ {
		for x := c[w]; x != 0; x &= x - 1 {
			if err := s.poll(); err != nil {
				return err
			}
			if !s.tryAdd(Card(w*64 + bits.TrailingZeros64(x))) {
				continue
			}
			err := s.walkTop(d, k, visit)
			s.pop()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// maxJobDepth bounds the depth of the subtrees that become jobs: level 7
// holds 72792 canonical sets, which one goroutine enumerates in well under
// a second, while the largest of their subtrees is a small fraction of a
// percent of the search (for k = 10, 9805 of 13.3 million nodes; at level
// 5 the largest was 9%, which left all but one core idle for a long tail).
const maxJobDepth = 7

// jobDepth is the level whose canonical sets root Search's parallel jobs:
// two levels above k, so that even small k has hundreds of jobs, and at
// most maxJobDepth.
func jobDepth(k int) int { return max(0, min(k-2, maxJobDepth)) }

// ShardDepth returns the level of the subtrees that Part deals to shards
// for k-sets: k itself up to 6 (each class its own subtree, so the parts'
// sizes differ by at most one; the roots are the whole search, done by
// one goroutine, which costs at most 0.2 s), one level above k for k = 7
// (6547 roots, so the last level is searched on every worker), and
// maxJobDepth beyond.
func ShardDepth(k int) int {
	if k <= 6 {
		return max(0, k)
	}
	return min(k-1, maxJobDepth)
}

// A Part selects some subtrees of the canonical search for k-sets, for
// splitting a search between Count shards: the canonical SET-less
// ShardDepth(k)-sets that can grow to k cards, numbered 0, 1, ... in
// ascending order, are the roots, and the part holds those numbered i with
// i % Count == Index. The parts for Index = 0..Count-1 are disjoint and
// together hold every canonical k-set; each holds about 1/Count of them
// (many subtrees, dealt round-robin). The zero Part and Part{0, 1} are the
// whole search.
type Part struct {
	Index, Count int
}

func (p Part) whole() bool { return p.Count <= 1 }

// check validates the part.
func (p Part) check() error {
	if p.Count < 0 || p.Index < 0 || (p.Count > 0 && p.Index >= p.Count) || (p.Count == 0 && p.Index != 0) {
		return fmt.Errorf("setcard: part %d of %d is not 0 <= index < count", p.Index, p.Count)
	}
	return nil
}

// Search calls fn, from the calling goroutine, for each canonical SET-less
// k-set in ascending order (Knuth's order), with the number of
// symmetries that fix it. It is SearchPart for the whole search.
func Search(ctx context.Context, k, workers int, progress func(done, total int64), fn func(h Hand, automorphisms int) error) error {
	return SearchPart(ctx, k, Part{}, workers, progress, fn)
}

// SearchPart calls fn, from the calling goroutine, for each canonical
// SET-less k-set of the part in ascending order (Knuth's order),
// with the number of symmetries that fix it. The sets are found by a
// canonical search (Knuth's isomorph rejection) on up to workers
// goroutines (workers < 1 means 1) and streamed: one goroutine enumerates
// the roots of the subtrees (the canonical sets jobDepth(k) levels down, or
// ShardDepth(k) for a part of several), the workers search the subtrees
// ahead of the caller, and the caller gets the sets subtree by subtree in
// order, so the calls are the same, in the same order, for any number of
// workers, and the first comes as soon as it is found. progress, if not
// nil, is called with the subtrees searched so far and their total, both
// in ProgressUnit per subtree (a long subtree reports its first-level
// branches as they finish; the total grows until every root is known,
// within a second), from any goroutine but never concurrently. SearchPart stops and returns fn's error, or ctx's error
// (wrapped; within milliseconds of cancellation), with no goroutine left
// running. For k > MaxSetFree there are no sets. The whole tree grows fast
// with k: k <= 9 takes seconds, k = 20 an hour or more; see Caps20 for
// k = 20.
func SearchPart(ctx context.Context, k int, part Part, workers int, progress func(done, total int64), fn func(h Hand, automorphisms int) error) error {
	if k < 0 {
		return fmt.Errorf("setcard: Search: k = %d is negative", k)
	}
	if err := part.check(); err != nil {
		return err
	}
	if k > MaxSetFree {
		return ctx.Err()
	}
	d := jobDepth(k)
	if !part.whole() {
		d = ShardDepth(k)
	}
	return searchRoots(ctx, k, d, part, workers, progress, fn)
}

// searchRoots is SearchPart with the subtrees rooted at level d (d <= k).
func searchRoots(ctx context.Context, k, d int, part Part, workers int, progress func(done, total int64), fn func(h Hand, automorphisms int) error) error {
	workers = max(workers, 1)
	count := max(part.Count, 1)

	// One goroutine (the producer) lists the roots, a few thousand a
	// second to all of them in under a second, so the total is known early
	// even when the jobs are long. Each job (the subtree of one root)
	// streams its sets in batches on its own channel; the caller drains
	// the jobs' channels in the order of the roots. The feeder hands each
	// job to the caller (order) before the workers (queue), both bounded,
	// so at most about 2*window jobs run ahead of the caller and memory
	// stays bounded; a worker ahead of the caller blocks when its job's
	// channel is full. Workers take jobs in order, so the job the caller
	// waits for is always running or done.
	type result struct {
		h    Hand
		auts uint16
	}
	const batchSize = 256
	type job struct {
		prefix []Card
		out    chan []result
		err    error // set before out is closed
	}
	ctx, cancel := context.WithCancelCause(ctx)
	window := 16 * workers
	order := make(chan *job, window)
	queue := make(chan *job, window)
	var (
		mu       sync.Mutex // serialises progress
		done     int64      // in ProgressUnit per subtree
		rootsMu  sync.Mutex
		rootsCh  = sync.NewCond(&rootsMu)
		roots    []Card // the roots' cards, d per root
		nroots   int
		finished bool  // every root is known (or the producer failed)
		prodErr  error // set before finished
		wg       sync.WaitGroup
	)
	report := func(units int64) {
		if progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done += units
		rootsMu.Lock()
		total, fin := int64(nroots), finished
		rootsMu.Unlock()
		if !fin {
			total++ // more to come
		}
		progress(done, total*ProgressUnit)
	}
	wg.Add(2)
	go func() { // the producer
		defer wg.Done()
		s := newSearcher(ctx)
		i := 0
		err := s.walkTop(d, k, func(s *searcher) error {
			i++
			if (i-1)%count != part.Index {
				return nil
			}
			rootsMu.Lock()
			roots = append(roots, s.s[:d]...)
			nroots++
			rootsMu.Unlock()
			rootsCh.Broadcast()
			return nil
		})
		rootsMu.Lock()
		prodErr, finished = err, true
		rootsMu.Unlock()
		rootsCh.Broadcast()
		if err == nil {
			report(0)
		}
	}()
	go func() { // the feeder
		defer wg.Done()
		defer close(queue)
		defer close(order)
		for i := 0; ; i++ {
			rootsMu.Lock()
			for i >= nroots && !finished {
				rootsCh.Wait()
			}
			if i >= nroots {
				rootsMu.Unlock()
				return
			}
			j := &job{prefix: roots[i*d : (i+1)*d : (i+1)*d], out: make(chan []result, 2)}
			rootsMu.Unlock()
			for _, ch := range []chan *job{order, queue} {
				select {
				case ch <- j:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSearcher(ctx)
			for j := range queue {
				var batch []result
				send := func() error {
					select {
					case j.out <- batch:
						batch = nil
						return nil
					case <-ctx.Done():
						return fmt.Errorf("setcard: search interrupted: %w", context.Cause(ctx))
					}
				}
				var reported int64
				j.err = s.goTo(j.prefix)
				if j.err == nil {
					j.err = s.walkJob(k, func(s *searcher) error {
						if s.l == k {
							batch = append(batch, result{s.here, uint16(s.automorphisms())})
							if len(batch) == batchSize {
								return send()
							}
						}
						return nil
					}, func(units int64) {
						report(units - reported)
						reported = units
					})
				}
				if j.err == nil && len(batch) > 0 {
					j.err = send()
				}
				close(j.out)
				if j.err != nil {
					return
				}
				report(ProgressUnit - reported)
			}
		}()
	}
	defer func() {
		cancel(nil)
		wg.Wait()
	}()
	for j := range order {
		for {
			var batch []result
			var ok bool
			select {
			case batch, ok = <-j.out:
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
		if err := j.err; err != nil {
			cancel(err)
			return err
		}
	}
	// order is closed: the feeder has handed over every root, or stopped.
	rootsMu.Lock()
	defer rootsMu.Unlock()
	if !finished { // the feeder stopped for a cancellation
		return fmt.Errorf("setcard: search interrupted: %w", context.Cause(ctx))
	}
	return prodErr
}

// ProgressUnit is the share of one subtree in the counts that SearchPart
// and CountPart report: a subtree counts ProgressUnit when done, and a
// long one reports its part as its first-level branches finish.
const ProgressUnit = 1024

// progressEvery is how often a long subtree reports its branches done.
const progressEvery = 100 * time.Millisecond

// walkJob is walk(k, exact) for the root of a job, reporting through
// step, at most every progressEvery, the fraction of the root's
// first-level branches done, in ProgressUnit.
func (s *searcher) walkJob(k int, visit func(*searcher) error, step func(units int64)) error {
	if err := visit(s); err != nil {
		return err
	}
	if s.l >= k {
		return nil
	}
	c := s.candidates()
	n := c.Len()
	if n < k-s.l {
		return nil
	}
	i := 0
	last := time.Now()
	for w := 0; w < 2; w++ {
		for x := c[w]; x != 0; x &= x - 1 {
			if err := s.poll(); err != nil {
				return err
			}
			if s.tryAdd(Card(w*64 + bits.TrailingZeros64(x))) {
				err := s.walk(k, true, visit)
				s.pop()
				if err != nil {
					return err
				}
				if now := time.Now(); now.Sub(last) >= progressEvery {
					last = now
					step(int64(ProgressUnit * (i + 1) / n))
				}
			}
			i++
		}
	}
	return nil
}

// CountPart returns the number of canonical SET-less k-sets in the part,
// by searching its subtrees on up to workers goroutines (counting only;
// when ShardDepth(k) = k each subtree is one set and only the roots are
// enumerated). Errors and cancellation are as for SearchPart.
func CountPart(ctx context.Context, k int, part Part, workers int, progress func(done, total int64)) (uint64, error) {
	var n uint64
	err := SearchPart(ctx, k, part, workers, progress, func(Hand, int) error {
		n++
		return nil
	})
	return n, err
}

// countSplitDepth is the level whose canonical sets become SearchCounts's
// parallel jobs.
const countSplitDepth = 5

// SearchCounts walks the canonical search tree up to kmax cards and returns
// classes[k], the number of canonical SET-less k-sets, and totals[k], the
// number of all SET-less k-sets (the sum of 31104/automorphisms), for k =
// 0..kmax. It is the direct count of Knuth's SETSET (feasible for small kmax
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
	d := min(countSplitDepth, lim)
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
