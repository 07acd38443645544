package words

import (
	"context"
	"math/bits"
)

// Sum returns the exact sum of a as a 128-bit number hi*2^64 + lo.
func Sum(a []uint64) (hi, lo uint64) {
	var c uint64
	for _, x := range a {
		lo, c = bits.Add64(lo, x, 0)
		hi += c
	}
	return hi, lo
}

// Min returns the least word of a; ok is false when a is empty.
func Min(a []uint64) (m uint64, ok bool) {
	if len(a) == 0 {
		return 0, false
	}
	m = a[0]
	for _, x := range a {
		m = min(m, x)
	}
	return m, true
}

// Max returns the greatest word of a; ok is false when a is empty.
func Max(a []uint64) (m uint64, ok bool) {
	if len(a) == 0 {
		return 0, false
	}
	m = a[0]
	for _, x := range a {
		m = max(m, x)
	}
	return m, true
}

// Count returns the number of non-zero words of a.
func Count(a []uint64) int {
	n := 0
	for _, x := range a {
		n += int(b2u(x != 0))
	}
	return n
}

// Any reports whether a has a non-zero word (false when empty).
func Any(a []uint64) bool {
	for _, x := range a {
		if x != 0 {
			return true
		}
	}
	return false
}

// All reports whether every word of a is non-zero (true when empty).
func All(a []uint64) bool {
	for _, x := range a {
		if x == 0 {
			return false
		}
	}
	return true
}

// Index returns the first position of x in a, or -1.
func Index(a []uint64, x uint64) int {
	for i, y := range a {
		if y == x {
			return i
		}
	}
	return -1
}

// Filter appends to dst the words a[i] with mask[i] != 0, in order, and
// returns it; a and mask have the same length. Count(mask) tells the
// caller how much room to make.
func Filter(dst, a, mask []uint64) []uint64 {
	mask = mask[:len(a)]
	for i, x := range a {
		if mask[i] != 0 {
			dst = append(dst, x)
		}
	}
	return dst
}

// pollEvery is how many words the long kernels process between two looks
// at their context: about a millisecond of work.
const pollEvery = 1 << 18

// Sort sorts a in place, ascending, polling ctx; it returns ctx's error
// (with a partly sorted a) when ctx is done. It is an introsort that
// needs no memory beyond a: quicksort with median-of-three pivots,
// insertion sort for short runs and heapsort past a depth limit.
func Sort(ctx context.Context, a []uint64) error {
	s := sorter{ctx: ctx, budget: pollEvery}
	s.quick(a, 2*bits.Len(uint(len(a))))
	return s.err
}

type sorter struct {
	ctx    context.Context
	budget int // words left before the next poll
	err    error
}

// spend accounts for n words of work and reports whether to go on.
func (s *sorter) spend(n int) bool {
	if s.err != nil {
		return false
	}
	if s.budget -= n; s.budget <= 0 {
		s.budget = pollEvery
		s.err = s.ctx.Err()
	}
	return s.err == nil
}

func (s *sorter) quick(a []uint64, depth int) {
	for len(a) > 24 {
		if !s.spend(len(a)) {
			return
		}
		if depth == 0 {
			s.heap(a)
			return
		}
		depth--
		p := s.partition(a)
		if p < 0 {
			return
		}
		// Recurse into the smaller side: the stack stays O(log n).
		if p < len(a)-p {
			s.quick(a[:p], depth)
			a = a[p+1:]
		} else {
			s.quick(a[p+1:], depth)
			a = a[:p]
		}
	}
	insertion(a)
}

// partition puts a median-of-three pivot at its final place p, the words
// below p at most it and the words above at least it. A partition of 2^27
// words takes most of a second, so it polls too: it returns -1 when the
// context is done, with a still a permutation of its words.
func (s *sorter) partition(a []uint64) int {
	n := len(a)
	m := n / 2
	if a[m] < a[0] {
		a[m], a[0] = a[0], a[m]
	}
	if a[n-1] < a[0] {
		a[n-1], a[0] = a[0], a[n-1]
	}
	if a[n-1] < a[m] {
		a[n-1], a[m] = a[m], a[n-1]
	}
	// a[0] <= a[m] <= a[n-1]: move the pivot to n-2 and scan between sentinels.
	a[m], a[n-2] = a[n-2], a[m]
	pivot := a[n-2]
	i, j := 0, n-2
	for swaps := 1; ; swaps++ {
		if swaps&(1<<16-1) == 0 && !s.spend(pollEvery) {
			return -1
		}
		for i++; a[i] < pivot; i++ {
		}
		for j--; a[j] > pivot; j-- {
		}
		if i >= j {
			break
		}
		a[i], a[j] = a[j], a[i]
	}
	a[i], a[n-2] = a[n-2], a[i]
	return i
}

func insertion(a []uint64) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && a[j-1] > x; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}

func (s *sorter) heap(a []uint64) {
	n := len(a)
	for i := n/2 - 1; i >= 0; i-- {
		siftDown(a, i, n)
	}
	for end := n - 1; end > 0; end-- {
		if end&(pollEvery-1) == 0 && !s.spend(pollEvery) {
			return
		}
		a[0], a[end] = a[end], a[0]
		siftDown(a, 0, end)
	}
}

func siftDown(a []uint64, i, n int) {
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && a[c+1] > a[c] {
			c++
		}
		if a[i] >= a[c] {
			return
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
}

// Dedup removes repeats from the sorted a in place and returns the
// distinct prefix.
func Dedup(a []uint64) []uint64 {
	if len(a) == 0 {
		return a
	}
	k := 1
	for _, x := range a[1:] {
		if x != a[k-1] {
			a[k] = x
			k++
		}
	}
	return a[:k]
}

// Runs calls fn with each distinct value of the sorted a and the number
// of times it occurs, ascending, until fn returns false.
func Runs(a []uint64, fn func(value uint64, count int) bool) {
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j] == a[i] {
			j++
		}
		if !fn(a[i], j-i) {
			return
		}
		i = j
	}
}

func onesCount(x uint64) int { return bits.OnesCount64(x) }
