"""bench/magic_check.star's loop in CPython, line for line; the rook
attacks of the setup come from a plain ray walk (not timed).
Prints "magic CANDIDATES STEPS FOUND NS"."""

import sys
import time

M = (1 << 64) - 1
SQ = 0
BITS = 12
SHIFT = 64 - BITS


def rook_attacks(sq, occ):
    bb = 0
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        f, r = sq & 7, sq >> 3
        while True:
            f, r = f + df, r + dr
            if not (0 <= f < 8 and 0 <= r < 8):
                break
            bb |= 1 << (8 * r + f)
            if occ & (1 << (8 * r + f)):
                break
    return bb


def rook_mask(sq):
    f, r = sq & 7, sq >> 3
    m = 0
    for ff in range(1, 7):
        if ff != f:
            m |= 1 << (8 * r + ff)
    for rr in range(1, 7):
        if rr != r:
            m |= 1 << (8 * rr + f)
    return m


mask = rook_mask(SQ)
occs = []
occ = 0
for _ in range(1 << BITS):
    occs.append(occ)
    occ = (occ - mask) & mask
atts = [rook_attacks(SQ, o) for o in occs]


def search(n, seed):
    s = seed
    stamp = [-1] * (1 << BITS)
    val = [0] * (1 << BITS)
    steps = 0
    found = 0
    for t in range(n):
        m = M
        for _ in range(3):
            s ^= (s << 13) & M
            s ^= s >> 7
            s ^= (s << 17) & M
            m &= s
        ok = True
        for i in range(len(occs)):
            idx = ((occs[i] * m) & M) >> SHIFT
            if stamp[idx] != t:
                stamp[idx] = t
                val[idx] = atts[i]
            elif val[idx] != atts[i]:
                ok = False
                steps += i + 1
                break
        if ok:
            steps += len(occs)
            found += 1
    return steps, found


def main():
    t0 = time.perf_counter_ns()
    steps, found = search(5000, 0x9E3779B97F4A7C15)
    ns = time.perf_counter_ns() - t0
    print("magic", 5000, steps, found, ns)


if sys.argv[1:] != ["setup"]:
    main()
