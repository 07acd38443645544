package endgame

// Elementwise forms of the flips and of Canonical for word arrays (docs/words.md
//): dst[i] = f(x[i]) over equal-length slices, dst may be x. Every x[i]
// must be below 2^(6n) (see Fit).

// Fit reports whether every x[i] is below 2^(6n) for n = 1..MaxPieces.
func Fit(x []uint64, n int) bool {
	var or uint64
	for _, v := range x {
		or |= v
	}
	return or>>(6*uint(n)&63) == 0
}

// FlipAll sets dst[i] to the flip k (FlipHorizontal, FlipVertical or
// FlipDiag) of x[i].
func (l Layout) FlipAll(k int, dst, x []uint64) {
	x = x[:len(dst)]
	switch {
	case k == FlipHorizontal || k == FlipVertical:
		m := l.mh
		if k == FlipVertical {
			m = l.mv
		}
		for i, v := range x {
			dst[i] = v ^ m
		}
	case l.r1 != 0:
		for i, v := range x {
			dst[i] = symDiag(v, l.s, l.mv, l.r1)
		}
	default:
		for i, v := range x {
			dst[i] = natDiag(v, l.s, l.mv)
		}
	}
}

// Canonicals sets dst[i] to Canonical(x[i]).
func (l Layout) Canonicals(dst, x []uint64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = l.Canonical(v)
	}
}
