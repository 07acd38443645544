package endgame

// MaxPieces is the largest number of pieces a packed index holds: 10
// pieces of 6 bits fill 60 bits of a word.
const MaxPieces = 10

// Pack returns the packed index of the pieces on squares (piece i on
// squares[i]): hi<<3n | lo, where lo holds bits 0..2 of squares[i] at bits
// 3i..3i+2 and hi holds bits 3..5 of squares[i] at bits 3i..3i+2, n =
// len(squares). Document 003's example: Pack([]int{0o52, 0o46}) = 0o4562.
// The error names the bad argument: n outside 1..MaxPieces, or a square
// outside 0..63.
func Pack(squares []int) (uint64, error) {
	n := len(squares)
	if n < 1 || n > MaxPieces {
		return 0, errorf("len(squares) = %d is not in 1..%d", n, MaxPieces)
	}
	s := uint(3 * n)
	var x uint64
	for i, sq := range squares {
		if sq < 0 || sq > 63 {
			return 0, errorf("squares[%d] = %d is not a square 0..63", i, sq)
		}
		x |= uint64(sq&7)<<(3*uint(i)) | uint64(sq>>3)<<(s+3*uint(i))
	}
	return x, nil
}

// Unpack returns the n squares packed in index, the inverse of Pack; n is
// 1..MaxPieces (the result is nil otherwise) and bits of index at or above
// bit 6n are ignored.
func Unpack(index uint64, n int) []int {
	if n < 1 || n > MaxPieces {
		return nil
	}
	s := uint(3 * n)
	out := make([]int, n)
	for i := range out {
		sh := 3 * uint(i)
		out[i] = int(index>>sh&7 | (index>>(s+sh)&7)<<3)
	}
	return out
}

// Check reports whether n is 1..MaxPieces and index has no bit at or above
// bit 6n, with an error naming the bad argument.
func Check(index uint64, n int) error {
	if n < 1 || n > MaxPieces {
		return errorf("n = %d is not in 1..%d", n, MaxPieces)
	}
	if index>>(6*uint(n)) != 0 {
		return errorf("index = %O has bits at or above bit 6n = %d", index, 6*n)
	}
	return nil
}
