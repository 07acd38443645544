"""Legal-move perft in CPython: bench/perft.star's algorithm, line for line.

The chess module's calls become python-chess's table lookups
(BB_KNIGHT_ATTACKS[sq], BB_RANK_ATTACKS[sq][BB_RANK_MASKS[sq] & occ], ...),
from bench/chess_tables.py. Prints "perft NODES NS".
"""

import sys
import time

import chess_tables
from chess_tables import (BB_DIAG_ATTACKS, BB_DIAG_MASKS, BB_FILE_ATTACKS, BB_FILE_MASKS,
                          BB_KING_ATTACKS, BB_KNIGHT_ATTACKS, BB_PAWN_ATTACKS, BB_RANK_ATTACKS,
                          BB_RANK_MASKS, bits, bsf)

ALL = (1 << 64) - 1


def parse_fen(fen):
    return chess_tables.parse_fen(fen, -1)


def attacked(p, sq, by):
    them = p[6 + by]
    occ = p[6] | p[7]
    if BB_KNIGHT_ATTACKS[sq] & p[1] & them:
        return True
    if BB_KING_ATTACKS[sq] & p[5] & them:
        return True
    if BB_PAWN_ATTACKS[by == 1][sq] & p[0] & them:
        return True
    if (BB_RANK_ATTACKS[sq][BB_RANK_MASKS[sq] & occ] | BB_FILE_ATTACKS[sq][BB_FILE_MASKS[sq] & occ]) & (p[3] | p[4]) & them:
        return True
    if BB_DIAG_ATTACKS[sq][BB_DIAG_MASKS[sq] & occ] & (p[2] | p[4]) & them:
        return True
    return False


def gen(p):
    c = p[8]
    own = p[6 + c]
    opp = p[7 - c]
    occ = own | opp
    free = ALL ^ own
    moves = []
    ep = 0 if p[10] < 0 else 1 << p[10]
    step = 8 if c == 0 else -8
    last = 7 if c == 0 else 0
    home = 1 if c == 0 else 6
    for fr in bits(p[0] & own):
        targets = []
        to = fr + step
        if not occ & (1 << to):
            targets.append(to)
            if fr >> 3 == home and not occ & (1 << (to + step)):
                targets.append(to + step)
        for to in bits(BB_PAWN_ATTACKS[c == 0][fr] & (opp | ep)):
            targets.append(to)
        for to in targets:
            if to >> 3 == last:
                for promo in (1, 2, 3, 4):
                    moves.append(fr + 64 * to + 4096 * promo)
            else:
                moves.append(fr + 64 * to)
    for fr in bits(p[1] & own):
        for to in bits(BB_KNIGHT_ATTACKS[fr] & free):
            moves.append(fr + 64 * to)
    for fr in bits((p[2] | p[4]) & own):
        for to in bits(BB_DIAG_ATTACKS[fr][BB_DIAG_MASKS[fr] & occ] & free):
            moves.append(fr + 64 * to)
    for fr in bits((p[3] | p[4]) & own):
        for to in bits((BB_RANK_ATTACKS[fr][BB_RANK_MASKS[fr] & occ] | BB_FILE_ATTACKS[fr][BB_FILE_MASKS[fr] & occ]) & free):
            moves.append(fr + 64 * to)
    k = bsf(p[5] & own)
    for to in bits(BB_KING_ATTACKS[k] & free):
        moves.append(k + 64 * to)
    rights = p[9]
    if rights:
        base = 0 if c == 0 else 56
        if rights & (1 << (base + 7)) and not occ & (3 << (base + 5)) and \
           not attacked(p, k, 1 - c) and not attacked(p, k + 1, 1 - c):
            moves.append(k + 64 * (k + 2))
        if rights & (1 << base) and not occ & (7 << (base + 1)) and \
           not attacked(p, k, 1 - c) and not attacked(p, k - 1, 1 - c):
            moves.append(k + 64 * (k - 2))
    return moves


def make(p, m):
    q = list(p)
    fr = m & 63
    to = (m >> 6) & 63
    promo = m >> 12
    c = p[8]
    fb = 1 << fr
    tb = 1 << to
    if p[7 - c] & tb:
        for i in range(6):
            if q[i] & tb:
                q[i] ^= tb
                break
        q[7 - c] ^= tb
    piece = 0
    for i in range(6):
        if q[i] & fb:
            piece = i
            break
    if promo:
        q[0] ^= fb
        q[promo] |= tb
    else:
        q[piece] ^= fb | tb
    q[6 + c] ^= fb | tb
    q[10] = -1
    if piece == 0:
        if to == p[10]:
            cap = 1 << (to - 8 if c == 0 else to + 8)
            q[0] ^= cap
            q[7 - c] ^= cap
        elif to - fr == 16 or fr - to == 16:
            q[10] = (fr + to) >> 1
    elif piece == 5 and (to - fr == 2 or fr - to == 2):
        if to > fr:
            rook = (1 << (to + 1)) | (1 << (to - 1))
        else:
            rook = (1 << (to - 2)) | (1 << (to + 1))
        q[3] ^= rook
        q[6 + c] ^= rook
    if q[9]:
        if piece == 5:
            q[9] &= ALL ^ (0xff if c == 0 else 0xff << 56)
        q[9] &= ALL ^ (fb | tb)
    q[8] = 1 - c
    return q


def perft(p, depth):
    n = 0
    c = p[8]
    for m in gen(p):
        q = make(p, m)
        if attacked(q, bsf(q[5] & q[6 + c]), 1 - c):
            continue
        n += 1 if depth == 1 else perft(q, depth - 1)
    return n


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

for fen, depth, want in [(START, 3, 8902), (KIWIPETE, 2, 2039)]:
    got = perft(parse_fen(fen), depth)
    if got != want:
        raise SystemExit("perft(%s, %d) = %d, want %d" % (fen, depth, got, want))

def main():
    t0 = time.perf_counter_ns()
    nodes = perft(parse_fen(START), 4)
    ns = time.perf_counter_ns() - t0
    if nodes != 197281:
        raise SystemExit("perft(start, 4) = %d, want 197281" % nodes)
    print("perft", nodes, ns)


if sys.argv[1:] != ["setup"]:
    main()
