"""Natural programs: bitsh against CPython, PyPy and C (docs/performance.md).

Each program of bench/natural/ is written as a Python programmer writes it
(module state, tuples, bools, a loop at the top level); its .star text runs
unchanged under bitsh, `bitsh -interpret`, CPython and PyPy, and its C twin
(the .c beside it, gcc -O2) does the same search. The script runs every
side once per round, interleaved, for several rounds, checks that all
sides print the same answer, and prints the best and the median wall time
of each side and the ratios the targets read (docs/performance.md,
"Natural programs").

    /usr/bin/python3 bench/natural/run.py              # builds ./cmd/bitsh, 3 rounds
    /usr/bin/python3 bench/natural/run.py -n 5 cover   # 5 rounds, one program
    /usr/bin/python3 bench/natural/run.py -bitsh BIN   # another binary

A side that is missing (no pypy3, no gcc) is left out, saying so.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = ["debruijn", "cover", "magic", "toplevel", "queens", "bfs", "memo", "setqueens", "gosper64", "hash64", "labels", "sieve"]


def timed(cmd):
    """Runs cmd in the repository root; returns its output and wall seconds."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit("%s: exit status %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.stdout.strip(), dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3, help="rounds")
    ap.add_argument("-bitsh", help="a bitsh binary (default: build ./cmd/bitsh)")
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    try:
        bitsh = args.bitsh
        if not bitsh:
            bitsh = os.path.join(tmp, "bitsh")
            subprocess.run(["go", "build", "-o", bitsh, "./cmd/bitsh"], cwd=ROOT, check=True)
        pypy = shutil.which("pypy3")
        if not pypy:
            print("run.py: no pypy3 (apt-get install pypy3): its column is left out", file=sys.stderr)
        sides = {}
        for prog in args.programs:
            star = os.path.join(HERE, prog + ".star")
            s = {"bitsh": [bitsh, star], "interpret": [bitsh, "-interpret", star],
                 "cpython": ["/usr/bin/python3", star]}
            if pypy:
                s["pypy"] = [pypy, star]
            exe = os.path.join(tmp, prog)
            if shutil.which("gcc"):
                subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(HERE, prog + ".c")], check=True)
                s["c"] = [exe]
            sides[prog] = s
        times = {p: {k: [] for k in sides[p]} for p in sides}
        for _ in range(args.n):
            for prog in sides:
                answers = {}
                for side, cmd in sides[prog].items():
                    out, dt = timed(cmd)
                    answers[side] = out
                    times[prog][side].append(dt)
                if len(set(answers.values())) != 1:
                    raise SystemExit("%s: the sides disagree: %r" % (prog, answers))
        load = os.getloadavg()[0]
        print("natural programs, wall seconds, best / median of %d interleaved rounds, load %.1f" % (args.n, load))
        cols = [c for c in ["bitsh", "interpret", "cpython", "pypy", "c"] if any(c in sides[p] for p in sides)]
        print("%-10s" % "program" + "".join("%16s" % c for c in cols) +
              "%12s%12s%12s" % ("vs CPython", "vs PyPy", "vs C"))
        for prog in sides:
            t = times[prog]
            row = "%-10s" % prog
            for c in cols:
                row += "%16s" % ("%.3f / %.3f" % (min(t[c]), statistics.median(t[c])) if c in t else "-")
            best = {c: min(t[c]) for c in t}
            # Speed ratios: above 1, bitsh is faster (vs C: bitsh time / C time, below 1 faster).
            row += "%12s" % ("%.1fx" % (best["cpython"] / best["bitsh"]))
            row += "%12s" % ("%.1fx" % (best["pypy"] / best["bitsh"]) if "pypy" in best else "-")
            row += "%12s" % ("%.1f" % (best["bitsh"] / best["c"]) if "c" in best else "-")
            print(row)
        print("vs CPython, vs PyPy: their time over bitsh's (above 1: bitsh faster); vs C: bitsh's time over C's")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
