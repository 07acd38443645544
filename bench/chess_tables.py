"""Chess tables for bench/'s CPython twins, built the way python-chess 1.11
builds them: the attacks of a knight, king and pawn per square, and of the
sliding pieces per square and the occupancy of its rays (BB_RANK_ATTACKS[sq]
[BB_RANK_MASKS[sq] & occ]); bits() and bsf() are python-chess's scan_forward
and lsb idioms; parse_fen reads a position into words. bench/perft.py and
bench/perft_words.py use them.
"""


def square_distance(a, b):
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def step_attacks(sq, deltas):
    bb = 0
    for d in deltas:
        to = sq + d
        if 0 <= to < 64 and square_distance(sq, to) <= 2:
            bb |= 1 << to
    return bb


BB_KNIGHT_ATTACKS = [step_attacks(sq, [17, 15, 10, 6, -17, -15, -10, -6]) for sq in range(64)]
BB_KING_ATTACKS = [step_attacks(sq, [9, 8, 7, 1, -9, -8, -7, -1]) for sq in range(64)]
BB_PAWN_ATTACKS = [[step_attacks(sq, d) for sq in range(64)] for d in [[-7, -9], [7, 9]]]


def sliding_attacks(sq, occ, deltas):
    bb = 0
    for d in deltas:
        s = sq
        while True:
            s += d
            if not (0 <= s < 64) or square_distance(s, s - d) > 2:
                break
            bb |= 1 << s
            if occ & (1 << s):
                break
    return bb


def edges(sq):
    rank = [0xff, 0xff << 56]
    file = [0x0101010101010101, 0x0101010101010101 << 7]
    e = 0
    for r in rank:
        if not r & (0xff << (8 * (sq >> 3))):
            e |= r
    for f in file:
        if not f & (0x0101010101010101 << (sq & 7)):
            e |= f
    return e


def carry_rippler(mask):
    subset = 0
    while True:
        yield subset
        subset = (subset - mask) & mask
        if not subset:
            break


def attack_table(deltas):
    masks, table = [], []
    for sq in range(64):
        attacks = {}
        mask = sliding_attacks(sq, 0, deltas) & ~edges(sq)
        for subset in carry_rippler(mask):
            attacks[subset] = sliding_attacks(sq, subset, deltas)
        table.append(attacks)
        masks.append(mask)
    return masks, table


BB_DIAG_MASKS, BB_DIAG_ATTACKS = attack_table([-9, -7, 7, 9])
BB_FILE_MASKS, BB_FILE_ATTACKS = attack_table([-8, 8])
BB_RANK_MASKS, BB_RANK_ATTACKS = attack_table([-1, 1])


def bits(bb):
    out = []
    while bb:
        r = bb & -bb
        out.append(r.bit_length() - 1)
        bb ^= r
    return out


def bsf(bb):
    return (bb & -bb).bit_length() - 1


def parse_square(name):
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def parse_fen(fen, no_ep):
    """The 11 words of a position in Forsyth-Edwards Notation: the pawns,
    knights, bishops, rooks, queens and kings, the white and the black
    pieces, the side to move (0 white), the home squares of the rooks that
    may still castle, and the en-passant square (no_ep where there is none)."""
    f = fen.split(" ")
    p = [0] * 10 + [no_ep]
    rank = 7
    file = 0
    for ch in f[0]:
        if ch == "/":
            rank -= 1
            file = 0
        elif ch.isdigit():
            file += int(ch)
        else:
            b = 1 << (8 * rank + file)
            p["pnbrqk".index(ch.lower())] |= b
            p[6 if ch.isupper() else 7] |= b
            file += 1
    p[8] = 0 if f[1] == "w" else 1
    for ch, sq in [("K", 7), ("Q", 0), ("k", 63), ("q", 56)]:
        if ch in f[2]:
            p[9] |= 1 << sq
    if f[3] != "-":
        p[10] = parse_square(f[3])
    return p
