package debruijn

// BsfAll sets dst[i] to sc.Bsf(x[i]) over equal-length slices (the array
// form of debruijn_bsf); ok is false when some x[i] is 0 or does not fit
// in the scanner's width, and those dst[i] are unspecified.
func (sc *Scanner) BsfAll(dst, x []uint64) (ok bool) {
	x = x[:len(dst)]
	var or uint64
	zero := false
	for i, v := range x {
		or |= v
		zero = zero || v == 0
		dst[i] = uint64(sc.table[((v&-v)*sc.magic&sc.wmask)>>(sc.shift&63)])
	}
	return !zero && or&^sc.wmask == 0
}
