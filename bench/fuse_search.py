"""The numba twin of bench/fuse_search.star: the magic check of docs/fuse.md
over range(1 << 22) and the bit-serialising loop over 2^22 words, compiled
by numba's @njit (Debian's python3-numba 0.56), with the compile time (the
first call) reported apart from the run (best of 5 rounds).

    /usr/bin/python3 bench/fuse_search.py
"""
import time

import numpy as np
from numba import njit

U64 = (1 << 64) - 1


def rook_attacks(sq, occ):
    a = 0
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        f, r = sq % 8 + df, sq // 8 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            b = 1 << (8 * r + f)
            a |= b
            if occ & b:
                break
            f += df
            r += dr
    return a


mask = 0
for f in range(1, 7):
    if f != 3:
        mask |= 1 << (8 * 3 + f)
for r in range(1, 7):
    if r != 3:
        mask |= 1 << (8 * r + 3)
subs = []
s = 0
while True:
    subs.append(s)
    s = (s - mask) & mask
    if s == 0:
        break
occ = np.array(subs, dtype=np.uint64)
att = np.array([rook_attacks(27, o) for o in subs], dtype=np.uint64)
bits = bin(mask).count("1")
MASK = np.uint64(mask)
SHIFT = np.uint64(64 - bits)


@njit(cache=False)
def mix(x):
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=False)
def popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=False)
def count_magics(n, occ, att, mask, shift):
    seen = np.zeros(4096, dtype=np.uint64)
    stamp = np.zeros(4096, dtype=np.uint64)
    hits = 0
    for i in range(n):
        u = np.uint64(i)
        m = mix(np.uint64(3) * u) & mix(np.uint64(3) * u + np.uint64(1)) & mix(np.uint64(3) * u + np.uint64(2))
        if popcount((mask * m) >> np.uint64(56)) < 6:
            continue
        ep = u + np.uint64(1)
        ok = True
        for j in range(len(occ)):
            k = (occ[j] * m) >> shift
            if stamp[k] != ep:
                stamp[k] = ep
                seen[k] = att[j]
            elif seen[k] != att[j]:
                ok = False
                break
        if ok:
            hits += 1
    return hits


# De Bruijn bitscan (Leiserson, Prokop and Randall): numba has no ctz.
DB_MAGIC = 0x03F79D71B4CB0A89
DB = np.zeros(64, dtype=np.uint64)
for i in range(64):
    DB[((1 << i) * DB_MAGIC & U64) >> 58] = i


@njit(cache=False)
def serialise_sum(n, db):
    total = np.uint64(0)
    for i in range(n):
        b = np.uint64(i) * np.uint64(0x9E3779B97F4A7C15)
        t = np.uint64(0)
        while b:
            low = b & (~b + np.uint64(1))
            t += db[(low * np.uint64(DB_MAGIC)) >> np.uint64(58)]
            b &= b - np.uint64(1)
        total += t
    return total


N = 1 << 22
t0 = time.perf_counter()
count_magics(1, occ, att, MASK, SHIFT)
t1 = time.perf_counter()
serialise_sum(1, DB)
t2 = time.perf_counter()
best_m = best_s = 1e9
for _ in range(5):
    a = time.perf_counter()
    hits = count_magics(N, occ, att, MASK, SHIFT)
    b = time.perf_counter()
    total = serialise_sum(N, DB)
    c = time.perf_counter()
    best_m = min(best_m, (b - a) * 1e9 / N)
    best_s = min(best_s, (c - b) * 1e9 / N)
print("magic check: %.2f ns per candidate (%d magics in range(1 << 22)), compiled in %.0f ms" % (best_m, hits, (t1 - t0) * 1e3))
print("serialise: %.2f ns per word (sum %d), compiled in %.0f ms" % (best_s, total, (t2 - t1) * 1e3))
