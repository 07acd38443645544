package words

import "github.com/bitsh/bitsh/builtins/subset"

// A SubsetFiller writes the subsets of a set into arrays, in ascending
// order, a slice at a time: all of them (the carry-rippler), or those of k
// bits (snoob), the orders of subsets(d) and subsets(d, k).
type SubsetFiller struct {
	d    uint64
	k    int // < 0: every subset
	next uint64
	done bool
}

// NewSubsetFiller starts at the first subset of d, or of d's k-subsets
// when k >= 0 (none when k > popcount(d)).
func NewSubsetFiller(d uint64, k int) *SubsetFiller {
	f := &SubsetFiller{d: d, k: k}
	if k >= 0 {
		if k > onesCount(d) {
			f.done = true
		}
		f.next = subset.Lowest(d, k)
	}
	return f
}

// Done reports whether every subset has been written.
func (f *SubsetFiller) Done() bool { return f.done }

// Fill writes the next subsets into dst and returns how many it wrote:
// len(dst), or fewer at the end.
func (f *SubsetFiller) Fill(dst []uint64) int {
	if f.done {
		return 0
	}
	n, d := f.next, f.d
	if f.k < 0 {
		for i := range dst {
			dst[i] = n
			n = (n - d) & d
			if n == 0 {
				f.done = true
				return i + 1
			}
		}
		f.next = n
		return len(dst)
	}
	if f.k == 0 {
		if len(dst) == 0 {
			return 0
		}
		dst[0] = 0
		f.done = true
		return 1
	}
	for i := range dst {
		dst[i] = n
		var ok bool
		if n, ok = subset.Snoob(n, d); !ok {
			f.done = true
			return i + 1
		}
	}
	f.next = n
	return len(dst)
}

// Skip moves past the next n subsets as a Fill of n words would, without
// writing them: from the rank of the next subset, in O(64) steps.
func (f *SubsetFiller) Skip(n uint64) {
	if f.done || n == 0 {
		return
	}
	p := onesCount(f.d)
	if f.k < 0 {
		r := subset.Extract(f.next, f.d)
		r2 := r + n
		if r2 < r || (p < 64 && r2>>uint(p) != 0) {
			f.done = true
			return
		}
		f.next = subset.Deposit(r2, f.d)
		return
	}
	if f.k == 0 {
		f.done = true
		return
	}
	r := subset.RankK(f.next, f.d)
	r2 := r + n
	if r2 < r || r2 >= subset.Binomial(p, f.k) {
		f.done = true
		return
	}
	f.next = subset.UnrankK(f.d, f.k, r2)
}
