"""bench/word_loop.star in CPython. Prints "loop small N NS" and "loop big N NS"."""

import sys
import time

N = 4000000


def loop(x, a, b, n):
    for _ in range(n):
        x = (x + a) ^ b
    return x


for name, x, a, b in [("small", 1, 3, 0x55), ("big", (1 << 40) + 12345, (1 << 41) + 1, 0x5555555555555)]:
    if sys.argv[1:] and name not in sys.argv[1:]:
        continue
    t0 = time.perf_counter_ns()
    loop(x, a, b, N)
    ns = time.perf_counter_ns() - t0
    print("loop", name, N, ns)
