"""bench/calls.star in CPython. Prints "calls NAME UNITS NS"."""

import sys
import time

from perft_words import parse_fen, perft

sys.setrecursionlimit(10000)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


# Isenberg's findDeBruijn: st = [lock, count, limit]; pow2 a table as in C.
pow2 = [1 << i for i in range(64)]

def isenberg(st, seq, depth, vtx, nz):
    if st[1] >= st[2]:
        return
    if (st[0] & pow2[vtx]) == 0 and nz <= 32:
        if depth == 0:
            st[1] += 1
        else:
            st[0] ^= pow2[vtx]
            if vtx == 31 and depth > 2:
                isenberg(st, seq | pow2[depth - 1], depth - 2, 62, nz + 1)
            else:
                isenberg(st, seq, depth - 1, (2 * vtx) & 63, nz + 1)
                isenberg(st, seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz)
            st[0] ^= pow2[vtx]

# The recursive generator: the lock word travels down as a parameter; the
# first k branches follow the bits of path.
def find(seq, depth, vtx, nz, lock, path, k):
    if (lock >> vtx) & 1 or nz > 32:
        return 0
    if depth == 0:
        return 1
    lock = lock | (1 << vtx)
    if vtx == 31 and depth > 2:
        return find(seq | (1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k)
    if k > 0:
        if path & 1:
            return find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1)
        return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1)
    return (find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
            find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0))

# n-queens on words: the row masks sit at bit 40 and up, so every value is
# above 2^31 (and below 2^64), as bitboards are.
SH = 40
def queens(full, cols, d1, d2):
    if cols == full:
        return 1
    n = 0
    free = full & ~(cols | d1 | d2)
    while free:
        bit = free & -free
        free ^= bit
        n += queens(full, cols | bit, ((d1 | bit) << 1) & full, (d2 | bit) >> 1 & full)
    return n

def run(name):
    if name == "fib":
        r = fib(27)
        return 635621, r == 196418
    if name == "isenberg":
        st = [1 << 32, 0, 65536]
        isenberg(st, 0, 64 - 6, 0, 6)
        return st[1], st[1] == 65536
    if name == "find":
        n = 0
        for i in [139, 141, 143, 151]:
            n += find(0, 58, 0, 6, 1 << 32, i, 12)
        return n, n == 112320
    if name == "queens":
        full = ((1 << 10) - 1) << SH
        r = queens(full, 0, 0, 0)
        return r, r == 724
    if name == "perft_words":
        r = perft(*(kiwipete + [3]))
        return r, r == 97862

kiwipete = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")

for name in ["fib", "isenberg", "find", "queens", "perft_words"]:
    if sys.argv[1:] and name not in sys.argv[1:]:
        continue
    t0 = time.perf_counter_ns()
    units, ok = run(name)
    ns = time.perf_counter_ns() - t0
    if not ok:
        raise SystemExit("calls %s: wrong result" % name)
    print("calls", name, units, ns)
