package endgame

// Replicated constants: one 3-bit group per piece, for up to MaxPieces
// pieces. rep1 has bit 0 of every group set (0o1111111111); rep2 = rep1<<1
// and rep4 = rep1<<2 are bits 1 and 2 of every group.
const rep1 = 0o1111111111

// A Layout holds the masks of the flips of n-piece packed indices in one
// numbering, computed once by NewLayout, so that every flip is a handful
// of word operations with no loop or table lookup per piece.
//
// In the natural numbering the upper 3n bits of an index hold the ranks
// and the lower 3n bits the files, so flip_horizontal (rank r to 7-r)
// XORs the upper half with ones, flip_vertical (file f to 7-f) XORs the
// lower half, and flip_diag swaps the halves.
//
// In the symmetric numbering no flip changes the upper half (a square's
// high octal digit is its orbit). On the low digit lo of each piece,
// flip_horizontal is lo^4, flip_vertical is lo^2, and flip_diag swaps
// bits 1 and 2 of lo and complements bit 0 unless the high digit is 6 or
// 7 (the orbits of the diagonal squares):
// lo' = swap(lo, 1, 2) ^ 1 ^ (hi>>1 & hi>>2 & 1).
//
// Layout has four fields so that the compiler keeps an inlined layout in
// registers.
type Layout struct {
	s  uint   // natural: 3n, the width of each half; symmetric: 3n+1, the shift of symDiag
	mv uint64 // XOR mask of flip_vertical; natural: the low half, symmetric: bit 1 of every low group
	mh uint64 // XOR mask of flip_horizontal; natural: the high half, symmetric: bit 2 of every low group
	r1 uint64 // natural: 0; symmetric: bit 0 of every low group (never 0)
}

// NewLayout returns the layout of n-piece indices in numbering m. The
// error names the bad argument: n outside 1..MaxPieces or an unknown
// numbering.
func NewLayout(n int, m Numbering) (Layout, error) {
	if n < 1 || n > MaxPieces {
		return Layout{}, errorf("n = %d is not in 1..%d", n, MaxPieces)
	}
	s := uint(3 * n)
	lo := uint64(1)<<s - 1
	switch m {
	case Natural:
		return Layout{s: s, mv: lo, mh: lo << s}, nil
	case Symmetric:
		r1 := rep1 & lo
		return Layout{s: s + 1, mv: r1 << 1, mh: r1 << 2, r1: r1}, nil
	}
	return Layout{}, errorf("numbering = %v is not natural or symmetric", m)
}

// N returns the number of pieces.
func (l Layout) N() int { return int(l.s / 3) }

// Numbering returns the layout's numbering.
func (l Layout) Numbering() Numbering {
	if l.r1 != 0 {
		return Symmetric
	}
	return Natural
}

// FlipHorizontal flips every piece of index about the horizontal axis
// (rank r to 7-r, a1 to a8). index must be below 2^(6n) (see Check).
func (l Layout) FlipHorizontal(index uint64) uint64 { return index ^ l.mh }

// FlipVertical flips every piece of index about the vertical axis (file f
// to 7-f, a1 to h1). index must be below 2^(6n).
func (l Layout) FlipVertical(index uint64) uint64 { return index ^ l.mv }

// Rotate180 turns every piece of index half a turn (a1 to h8).
// index must be below 2^(6n).
func (l Layout) Rotate180(index uint64) uint64 { return index ^ l.mv ^ l.mh }

// FlipDiag flips every piece of index about the a1-h8 diagonal (file and
// rank swap, b1 to a2). index must be below 2^(6n).
func (l Layout) FlipDiag(index uint64) uint64 {
	if l.r1 != 0 {
		return symDiag(index, l.s, l.mv, l.r1)
	}
	return natDiag(index, l.s, l.mv)
}

// natDiag swaps the halves: ranks become files and files ranks.
func natDiag(x uint64, s uint, lo uint64) uint64 {
	return x>>(s&63) | (x&lo)<<(s&63)
}

// symDiag swaps bits 1 and 2 of every low group with a delta swap (mv
// has bit 1 of every low group), then XORs bit 0 of every low group (r1)
// with NOT(bit 1 AND bit 2) of its piece's high group; the high half is
// unchanged. With u = x>>1, x&u has hi bit 1 AND hi bit 2 at bit 1 of each
// high group, which a shift right by s1 = 3n+1 brings to bit 0 of the low
// group.
func symDiag(x uint64, s1 uint, mv, r1 uint64) uint64 {
	u := x >> 1
	t := (x ^ u) & mv // bit 1 of the groups whose bits 1 and 2 differ
	return x ^ t ^ t<<1 ^ ^(x&u)>>(s1&63)&r1
}

// The 8 symmetries of the square, in the order Symmetries returns them.
const (
	Identity       = iota // (f, r) to (f, r)
	FlipVertical          // (f, r) to (7-f, r), a1 to h1
	FlipHorizontal        // (f, r) to (f, 7-r), a1 to a8
	Rotate180             // (f, r) to (7-f, 7-r), a1 to h8
	FlipDiag              // about the a1-h8 diagonal: (f, r) to (r, f)
	FlipAnti              // about the a8-h1 diagonal: (f, r) to (7-r, 7-f)
	RotateCW              // 90 degrees clockwise seen from White: (f, r) to (r, 7-f), a1 to a8
	RotateACW             // 90 degrees anticlockwise: (f, r) to (7-r, f), a1 to h1
	NumSymmetries         // how many: 8
)

// symmetryNames names the symmetries in Symmetries' order.
var symmetryNames = [NumSymmetries]string{
	"identity", "flip_vertical", "flip_horizontal", "rotate_180",
	"flip_diag", "flip_anti", "rotate_cw", "rotate_acw",
}

// SymmetryName returns the name of symmetry k (0..NumSymmetries-1) as the
// builtins call it, e.g. "flip_diag".
func SymmetryName(k int) string { return symmetryNames[k] }

// Symmetries returns the 8 images of index under the symmetries of the
// square, in the order identity, flip_vertical, flip_horizontal, rotate
// 180, flip_diag, flip_anti, rotate 90 clockwise, rotate 90 anticlockwise.
// Every image is index or FlipDiag(index) XORed with a constant:
// flip_anti = rotate 180 after flip_diag, rotate 90 clockwise =
// flip_horizontal after flip_diag, anticlockwise = flip_vertical after
// flip_diag. index must be below 2^(6n).
func (l Layout) Symmetries(index uint64) [NumSymmetries]uint64 {
	d := l.FlipDiag(index)
	v, h := l.mv, l.mh
	return [NumSymmetries]uint64{index, index ^ v, index ^ h, index ^ v ^ h, d, d ^ v ^ h, d ^ h, d ^ v}
}

// Canonical returns the least of the 8 images of index under the
// symmetries of the square. index must be below 2^(6n).
func (l Layout) Canonical(index uint64) uint64 {
	d := l.FlipDiag(index)
	v, h := l.mv, l.mh
	return min(index, index^v, index^h, index^v^h, d, d^v^h, d^h, d^v)
}
