"""Plain scripts on 64-bit words: bitsh against CPython (docs/performance.md).

Runs bench/perft, bench/magic_check and bench/word_loop in bitsh (.star) and
in CPython (.py), interleaved, for several rounds, and prints for each
measure the best and the median of both sides and their ratio. Each script
times its own loop (start-up and table building excluded) and prints the
figures; this script only runs them and reads their output.

    python3 bench/plain.py                  # builds ./cmd/bitsh, 5 rounds
    python3 bench/plain.py -n 3 -bitsh BIN  # another binary
    python3 bench/plain.py -base BIN        # also an older bitsh, side by side:
                                            # new/old ratios and -c pass start-up

Ratios are "bitsh speed / CPython speed" (above 1: bitsh faster), so the
targets read directly: perft >= 0.35, magic >= 0.6. "big/small" is the cost
of an iteration of the word loop with values above 2^40 over one with small
values (target <= 2).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return [line.split() for line in out.splitlines()]


def measures(lines):
    """Maps measure name to ns per unit of work (lower is better)."""
    m = {}
    for f in lines:
        if f[0] == "perft":
            m["perft (ns/node)"] = int(f[2]) / int(f[1])
        elif f[0] == "magic":
            m["magic (ns/candidate)"] = int(f[4]) / int(f[1])
        elif f[0] == "loop":
            m["loop %s (ns/iter)" % f[1]] = int(f[3]) / int(f[2])
    return m


def startup(binary, n=20):
    """Best and median wall time of n runs of `binary -c pass`, in ms."""
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([binary, "-c", "pass"], check=True)
        t.append((time.perf_counter() - t0) * 1e3)
    return min(t), statistics.median(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5, help="rounds")
    ap.add_argument("-bitsh", help="bitsh binary (default: build ./cmd/bitsh)")
    ap.add_argument("-base", help="an older bitsh binary to compare with")
    ap.add_argument("-only", default="perft,magic_check,word_loop", help="scripts, comma-separated")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp()
    binary = args.bitsh
    if not binary:
        binary = os.path.join(tmp, "bitsh")
        subprocess.run(["go", "build", "-o", binary, "./cmd/bitsh"], check=True, cwd=ROOT)
    sides = {"bitsh": lambda s: [binary, "bench/%s.star" % s],
             "cpython": lambda s: [sys.executable, "bench/%s.py" % s]}
    if args.base:
        sides["base"] = lambda s: [args.base, "bench/%s.star" % s]

    load0 = os.getloadavg()[0]
    got = {side: {} for side in sides}
    for r in range(args.n):
        for script in args.only.split(","):
            # Interleave: the order of the sides alternates from round to round.
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for side in order:
                for k, v in measures(run(sides[side](script))).items():
                    got[side].setdefault(k, []).append(v)
    load1 = os.getloadavg()[0]

    print("%-22s %22s %22s %16s" % ("measure", "bitsh best / median", "CPython best / median", "speed vs CPython"))
    for k in got["bitsh"]:
        b, c = got["bitsh"][k], got["cpython"][k]
        print("%-22s %10.1f / %9.1f %10.1f / %9.1f   %5.2f / %5.2f" % (
            k, min(b), statistics.median(b), min(c), statistics.median(c),
            min(c) / min(b), statistics.median(c) / statistics.median(b)))
    for side in ("bitsh", "cpython"):
        g = got[side]
        if "loop big (ns/iter)" in g:
            print("%s word loop big/small: best %.2f, median %.2f" % (
                side, min(g["loop big (ns/iter)"]) / min(g["loop small (ns/iter)"]),
                statistics.median(g["loop big (ns/iter)"]) / statistics.median(g["loop small (ns/iter)"])))
    if args.base:
        print()
        print("%-22s %22s %22s %16s" % ("measure", "bitsh best / median", "base best / median", "bitsh/base time"))
        for k in got["bitsh"]:
            b, o = got["bitsh"][k], got["base"][k]
            print("%-22s %10.1f / %9.1f %10.1f / %9.1f   %5.3f / %5.3f" % (
                k, min(b), statistics.median(b), min(o), statistics.median(o),
                min(b) / min(o), statistics.median(b) / statistics.median(o)))
        s = [startup(binary), startup(args.base), startup(binary), startup(args.base)]
        print("-c pass start-up, ms best / median (two interleaved sets of 20): bitsh %.2f / %.2f, %.2f / %.2f; base %.2f / %.2f, %.2f / %.2f" % (
            s[0] + s[2] + s[1] + s[3]))
    print()
    print("%d rounds, interleaved; load average %.2f at start, %.2f at end, %d cores; %s; %s" % (
        args.n, load0, load1, os.cpu_count(), sys.version.split()[0],
        subprocess.run(["go", "version"], capture_output=True, text=True).stdout.split()[2]))


if __name__ == "__main__":
    main()
