package chess

import "sync"

// Step attacks are python-chess's BB_KNIGHT_ATTACKS, BB_KING_ATTACKS and
// BB_PAWN_ATTACKS, 64 entries each: knightTable, kingTable, whitePawnTable
// and blackPawnTable are stepTable of these steps, kept as data in
// tables.go (TestTables) so that no process builds them as it starts.
var (
	knightSteps    = [][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	kingSteps      = [][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}
	whitePawnSteps = [][2]int{{-1, 1}, {1, 1}}
	blackPawnSteps = [][2]int{{-1, -1}, {1, -1}}
)

// stepTable returns, per square, the squares one (file, rank) step away.
func stepTable(steps [][2]int) (t [64]uint64) {
	for sq := range t {
		f, r := SquareFile(sq), SquareRank(sq)
		for _, d := range steps {
			if g, s := f+d[0], r+d[1]; g >= 0 && g < 8 && s >= 0 && s < 8 {
				t[sq] |= 1 << Square(g, s)
			}
		}
	}
	return t
}

// KnightAttacks returns the squares a knight on sq attacks; sq must be 0..63.
func KnightAttacks(sq int) uint64 { return knightTable[sq&63] }

// KingAttacks returns the squares a king on sq attacks.
func KingAttacks(sq int) uint64 { return kingTable[sq&63] }

// PawnAttacks returns the squares a pawn of the given colour on sq attacks
// (white pawns attack up the board), as python-chess's BB_PAWN_ATTACKS.
func PawnAttacks(sq int, white bool) uint64 {
	if white {
		return whitePawnTable[sq&63]
	}
	return blackPawnTable[sq&63]
}

// slide returns the squares attacked from sq along the (df, dr) directions
// when the pieces on occ block: each ray stops at its first occupied square,
// which it includes. It is the definition the magic tables are built from.
func slide(sq int, occ uint64, dirs [4][2]int) uint64 {
	var a uint64
	for _, d := range dirs {
		f, r := SquareFile(sq)+d[0], SquareRank(sq)+d[1]
		for f >= 0 && f < 8 && r >= 0 && r < 8 {
			bit := uint64(1) << Square(f, r)
			a |= bit
			if occ&bit != 0 {
				break
			}
			f, r = f+d[0], r+d[1]
		}
	}
	return a
}

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// edges returns the board's edge squares that do not hold sq's own rank
// or file: a ray's last square never blocks anything, so it is left out of
// the relevant occupancy (python-chess's _edges).
func edges(sq int) uint64 {
	return (Backranks &^ Ranks[SquareRank(sq)]) | ((FileA | FileH) &^ Files[SquareFile(sq)])
}

// rookMasks and bishopMasks (tables.go) are maskTable of rookDirs and
// bishopDirs.
func maskTable(dirs [4][2]int) (t [64]uint64) {
	for sq := range t {
		t[sq] = slide(sq, 0, dirs) &^ edges(sq)
	}
	return t
}

// RookMask returns the relevant occupancy of a rook on sq for magic
// bitboards: its attack rays on an empty board without their last square
// (the union of python-chess's BB_RANK_MASKS and BB_FILE_MASKS).
func RookMask(sq int) uint64 { return rookMasks[sq&63] }

// BishopMask returns the relevant occupancy of a bishop on sq
// (python-chess's BB_DIAG_MASKS).
func BishopMask(sq int) uint64 { return bishopMasks[sq&63] }

// A magic entry: the attack set of a slider on one square with occupancy
// occ is attacks[(occ & mask) * magic >> shift].
type magic struct {
	mask, magic uint64
	shift       uint
	attacks     []uint64
}

// The magic tables (800 KiB for rooks, 41 KiB for bishops) serve the Slice
// forms, where one square's table stays in cache over the whole array;
// they are built on first use, so that starting an interpreter that never asks for
// them costs nothing. After the sync.Once they are read-only.
var (
	slideOnce    sync.Once
	rookMagics   [64]magic
	bishopMagics [64]magic
)

func buildSliders() { buildTables(&rookMagics, &bishopMagics) }

func buildTables(rook, bishop *[64]magic) {
	fill := func(ms *[64]magic, masks *[64]uint64, magics *[64]uint64, dirs [4][2]int) {
		total := 0
		for sq := range 64 {
			total += 1 << popcount(masks[sq])
		}
		table := make([]uint64, total)
		for sq := range 64 {
			n := popcount(masks[sq])
			m := &ms[sq]
			m.mask, m.magic, m.shift = masks[sq], magics[sq], uint(64-n)
			m.attacks, table = table[:1<<n:1<<n], table[1<<n:]
			// Carry-rippler over every subset of the mask.
			for occ := uint64(0); ; {
				i := occ * m.magic >> m.shift
				a := slide(sq, occ, dirs)
				if m.attacks[i] != 0 && m.attacks[i] != a {
					panic("chess: magic for square " + SquareName(sq) + " collides")
				}
				m.attacks[i] = a
				occ = (occ - m.mask) & m.mask
				if occ == 0 {
					break
				}
			}
		}
	}
	fill(rook, &rookMasks, &rookMagicNumbers, rookDirs)
	fill(bishop, &bishopMasks, &bishopMagicNumbers, bishopDirs)
}

// Build builds the sliding-attack tables now rather than on first use.
func Build() { slideOnce.Do(buildSliders) }

// RookAttacks returns the squares a rook on sq attacks when the pieces on
// occupied block it: every ray stops at its first occupied square and
// includes it. Whether sq itself is occupied does not matter. One call uses
// hyperbola quintessence and a 512-byte rank table (no large table to miss
// in cache); the Slice forms use the magic tables.
func RookAttacks(sq int, occupied uint64) uint64 {
	sq &= 63
	l := &lines[sq]
	return hqr(sq, occupied, l.file, l.rev2) | rankAttacks(sq, occupied)
}

// BishopAttacks returns the squares a bishop on sq attacks (see RookAttacks).
func BishopAttacks(sq int, occupied uint64) uint64 {
	sq &= 63
	l := &lines[sq]
	return hqr(sq, occupied, l.diag, l.rev2) | hqr(sq, occupied, l.anti, l.rev2)
}

// QueenAttacks returns the union of the rook and bishop attacks from sq.
func QueenAttacks(sq int, occupied uint64) uint64 {
	return RookAttacks(sq, occupied) | BishopAttacks(sq, occupied)
}

// RookAttacksSlice sets out[i] = RookAttacks(sq, occupied[i]); out must be
// at least as long as occupied.
func RookAttacksSlice(sq int, occupied, out []uint64) {
	slideOnce.Do(buildSliders)
	m := &rookMagics[sq&63]
	attacks, mask, mul, shift := m.attacks, m.mask, m.magic, m.shift
	out = out[:len(occupied)]
	for i, o := range occupied {
		out[i] = attacks[(o&mask)*mul>>shift]
	}
}

// BishopAttacksSlice sets out[i] = BishopAttacks(sq, occupied[i]).
func BishopAttacksSlice(sq int, occupied, out []uint64) {
	slideOnce.Do(buildSliders)
	m := &bishopMagics[sq&63]
	attacks, mask, mul, shift := m.attacks, m.mask, m.magic, m.shift
	out = out[:len(occupied)]
	for i, o := range occupied {
		out[i] = attacks[(o&mask)*mul>>shift]
	}
}

// QueenAttacksSlice sets out[i] = QueenAttacks(sq, occupied[i]).
func QueenAttacksSlice(sq int, occupied, out []uint64) {
	slideOnce.Do(buildSliders)
	r, b := &rookMagics[sq&63], &bishopMagics[sq&63]
	out = out[:len(occupied)]
	for i, o := range occupied {
		out[i] = r.attacks[(o&r.mask)*r.magic>>r.shift] | b.attacks[(o&b.mask)*b.magic>>b.shift]
	}
}

// Ray returns the whole line (rank, file or diagonal) through a and b,
// both included, or 0 when they share none or a == b (python-chess's ray).
func Ray(a, b int) uint64 {
	a, b = a&63, b&63
	if a == b {
		return 0
	}
	fa, ra, fb, rb := SquareFile(a), SquareRank(a), SquareFile(b), SquareRank(b)
	switch {
	case ra == rb:
		return Ranks[ra]
	case fa == fb:
		return Files[fa]
	case fa-ra == fb-rb:
		return diagonal(fa - ra)
	case fa+ra == fb+rb:
		return antiDiagonal(fa + ra)
	}
	return 0
}

// diagonal returns the a1-h8-parallel diagonal of squares with file-rank = d.
func diagonal(d int) uint64 {
	const main = 0x8040_2010_0804_0201
	if d >= 0 {
		return main >> (8 * d) // shifting down drops the squares past h
	}
	return main << (8 * -d)
}

// antiDiagonal returns the a8-h1-parallel diagonal with file+rank = s.
func antiDiagonal(s int) uint64 {
	const anti = 0x0102_0408_1020_4080 // h1..a8: file+rank = 7
	if s <= 7 {
		return anti >> (8 * (7 - s))
	}
	return anti << (8 * (s - 7))
}

// Between returns the squares strictly between a and b on their common
// line, or 0 when they share none (python-chess's between).
func Between(a, b int) uint64 {
	a, b = a&63, b&63
	bb := Ray(a, b) & (All<<a ^ All<<b)
	return bb & (bb - 1)
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// RookMagic returns the magic-bitboard entry of a rook on sq (0..63): its
// attacks with the pieces on occ are attacks[(occ&mask)*mul>>shift]. The
// attacks slice is shared and must not be written. Fused code reads the
// entries as tables.
func RookMagic(sq int) (mask, mul uint64, shift uint, attacks []uint64) {
	Build()
	m := &rookMagics[sq&63]
	return m.mask, m.magic, m.shift, m.attacks
}

// BishopMagic is RookMagic for a bishop.
func BishopMagic(sq int) (mask, mul uint64, shift uint, attacks []uint64) {
	Build()
	m := &bishopMagics[sq&63]
	return m.mask, m.magic, m.shift, m.attacks
}
