"""examples/lib/perft_words.star in CPython, line for line: the word-style
perft (a position in eleven words, a scratch move list per ply, recursion).
The chess module's calls become python-chess's table lookups from
bench/chess_tables.py, written inline as python-chess writes them.
bench/calls.py times it.
"""

import chess_tables
from chess_tables import (BB_DIAG_ATTACKS, BB_DIAG_MASKS, BB_FILE_ATTACKS, BB_FILE_MASKS,
                          BB_KING_ATTACKS, BB_KNIGHT_ATTACKS, BB_PAWN_ATTACKS, BB_RANK_ATTACKS,
                          BB_RANK_MASKS, bits, bsf)

U64 = (1 << 64) - 1
RANK_1 = 0xff
RANK_3 = 0xff << 16
RANK_6 = 0xff << 40
RANK_8 = 0xff << 56
EP = 1 << 18

def attacked(sq, by, pawns, knights, bishops, rooks, queens, kings, them, occ):
    """Whether side by (0 white, 1 black), whose pieces are them, attacks sq."""
    if BB_KNIGHT_ATTACKS[sq] & knights & them:
        return 1
    if BB_PAWN_ATTACKS[by == 1][sq] & pawns & them:
        return 1
    if BB_KING_ATTACKS[sq] & kings & them:
        return 1
    if BB_DIAG_ATTACKS[sq][BB_DIAG_MASKS[sq] & occ] & (bishops | queens) & them:
        return 1
    if (BB_RANK_ATTACKS[sq][BB_RANK_MASKS[sq] & occ] | BB_FILE_ATTACKS[sq][BB_FILE_MASKS[sq] & occ]) & (rooks | queens) & them:
        return 1
    return 0

def gen(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, moves):
    """Fills moves with the pseudo-legal moves and returns how many."""
    own = white
    opp = black
    if turn == 1:
        own = black
        opp = white
    occ = own | opp
    free = U64 ^ own
    empty = U64 ^ occ
    n = 0
    mine = pawns & own
    if turn == 0:
        one = (mine << 8) & empty
        two = ((one & RANK_3) << 8) & empty
        for to in bits(one):
            if to >= 56:
                for promo in range(1, 5):
                    moves[n] = to - 8 + 64 * to + 32768 * promo
                    n += 1
            else:
                moves[n] = to - 8 + 64 * to
                n += 1
        for to in bits(two):
            moves[n] = to - 16 + 64 * to
            n += 1
    else:
        one = (mine >> 8) & empty
        two = ((one & RANK_6) >> 8) & empty
        for to in bits(one):
            if to < 8:
                for promo in range(1, 5):
                    moves[n] = to + 8 + 64 * to + 32768 * promo
                    n += 1
            else:
                moves[n] = to + 8 + 64 * to
                n += 1
        for to in bits(two):
            moves[n] = to + 16 + 64 * to
            n += 1
    epbb = 0
    if ep:
        epbb = 1 << ep
    for fr in bits(mine):
        for to in bits(BB_PAWN_ATTACKS[turn == 0][fr] & (opp | epbb)):
            if to >= 56 or to < 8:
                for promo in range(1, 5):
                    moves[n] = fr + 64 * to + 32768 * promo
                    n += 1
            elif to == ep:
                moves[n] = fr + 64 * to + EP
                n += 1
            else:
                moves[n] = fr + 64 * to
                n += 1
    for fr in bits(knights & own):
        for to in bits(BB_KNIGHT_ATTACKS[fr] & free):
            moves[n] = fr + 64 * to + 4096
            n += 1
    for fr in bits(bishops & own):
        for to in bits(BB_DIAG_ATTACKS[fr][BB_DIAG_MASKS[fr] & occ] & free):
            moves[n] = fr + 64 * to + 2 * 4096
            n += 1
    for fr in bits(rooks & own):
        for to in bits((BB_RANK_ATTACKS[fr][BB_RANK_MASKS[fr] & occ] | BB_FILE_ATTACKS[fr][BB_FILE_MASKS[fr] & occ]) & free):
            moves[n] = fr + 64 * to + 3 * 4096
            n += 1
    for fr in bits(queens & own):
        for to in bits((BB_DIAG_ATTACKS[fr][BB_DIAG_MASKS[fr] & occ] | BB_RANK_ATTACKS[fr][BB_RANK_MASKS[fr] & occ] | BB_FILE_ATTACKS[fr][BB_FILE_MASKS[fr] & occ]) & free):
            moves[n] = fr + 64 * to + 4 * 4096
            n += 1
    k = bsf(kings & own)
    for to in bits(BB_KING_ATTACKS[k] & free):
        moves[n] = k + 64 * to + 5 * 4096
        n += 1
    # Castling: the rook still may, the squares between are empty, and the
    # king is not in check and does not pass an attacked square (the square
    # it lands on is tested with every other move, after it is made).
    if castle & own:
        base = 0 if turn == 0 else 56
        by = 1 - turn
        if castle & own & (1 << (base + 7)) and not occ & (3 << (base + 5)):
            if not attacked(k, by, pawns, knights, bishops, rooks, queens, kings, opp, occ) and \
               not attacked(k + 1, by, pawns, knights, bishops, rooks, queens, kings, opp, occ):
                moves[n] = k + 64 * (k + 2) + 5 * 4096
                n += 1
        if castle & own & (1 << base) and not occ & (7 << (base + 1)):
            if not attacked(k, by, pawns, knights, bishops, rooks, queens, kings, opp, occ) and \
               not attacked(k - 1, by, pawns, knights, bishops, rooks, queens, kings, opp, occ):
                moves[n] = k + 64 * (k - 2) + 5 * 4096
                n += 1
    return n

def play(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, m, depth):
    """Makes move m; returns 0 if it leaves the mover's king attacked, else
    the number of legal sequences of depth - 1 more moves after it."""
    fr = m & 63
    to = (m >> 6) & 63
    kind = (m >> 12) & 7
    promo = (m >> 15) & 7
    fb = 1 << fr
    tb = 1 << to
    own = white
    opp = black
    if turn == 1:
        own = black
        opp = white
    if opp & tb:
        keep = U64 ^ tb
        pawns &= keep
        knights &= keep
        bishops &= keep
        rooks &= keep
        queens &= keep
        opp ^= tb
    own ^= fb | tb
    castle &= U64 ^ (fb | tb)
    newep = 0
    if kind == 0:
        if promo:
            pawns ^= fb
            if promo == 1:
                knights |= tb
            elif promo == 2:
                bishops |= tb
            elif promo == 3:
                rooks |= tb
            else:
                queens |= tb
        else:
            pawns ^= fb | tb
            if m & EP:
                cap = to - 8 if turn == 0 else to + 8
                pawns ^= 1 << cap
                opp ^= 1 << cap
            elif to - fr == 16 or fr - to == 16:
                newep = (fr + to) >> 1
    elif kind == 1:
        knights ^= fb | tb
    elif kind == 2:
        bishops ^= fb | tb
    elif kind == 3:
        rooks ^= fb | tb
    elif kind == 4:
        queens ^= fb | tb
    else:
        kings ^= fb | tb
        castle &= U64 ^ (RANK_1 if turn == 0 else RANK_8)
        if to == fr + 2:
            rook = (1 << (to + 1)) | (1 << (to - 1))
            rooks ^= rook
            own ^= rook
        elif fr == to + 2:
            rook = (1 << (to - 2)) | (1 << (to + 1))
            rooks ^= rook
            own ^= rook
    if attacked(bsf(kings & own), 1 - turn, pawns, knights, bishops, rooks, queens, kings, opp, own | opp):
        return 0
    if depth == 1:
        return 1
    white = own
    black = opp
    if turn == 1:
        white = opp
        black = own
    return perft(pawns, knights, bishops, rooks, queens, kings, white, black, 1 - turn, castle, newep, depth - 1)

def perft(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, depth):
    """The number of legal move sequences of length depth."""
    if depth == 0:
        return 1
    moves = [0] * 256
    n = gen(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, moves)
    total = 0
    for i in range(n):
        total += play(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, moves[i], depth)
    return total

def parse_fen(fen):
    """The 11 words of a position in Forsyth-Edwards Notation (no
    en-passant square: 0, which a1 never is)."""
    return chess_tables.parse_fen(fen, 0)
