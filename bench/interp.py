"""The plain interpreter against CPython: bitsh -interpret / CPython on micro-loops and bench/natural.

Where code stays in the interpreter (`bitsh -interpret`, or a function the
compiler to machine code refuses), it should run at or above CPython's speed
(docs/performance.md, "The interpreter against CPython"). This script runs
each micro-loop below and each program of bench/natural/ under
`bitsh -interpret` and under CPython, interleaved (the order of the two
sides alternates from round to round), for several rounds, checks that both
print the same answer, and prints for each the best and the median time of
both sides and their ratio, bitsh's time over CPython's (below 1: bitsh
faster).

A micro-loop is one text that runs unchanged in both (no f-strings, no
`**`): a function whose loop walks a list of 1,000 elements, called REPS
times. Its cost per element is the CPU time (user + system) of the process
with REPS calls less that of the same text with none (start-up, building the
data), over REPS * 1,000 elements; CPU time, since bitsh's collector runs
partly on a second core. The natural programs are timed whole, start-up
included, as bench/natural/run.py times them, but in CPU time too: on a
shared machine it is the steadier clock (bench/natural/run.py gives their
wall time).

    /usr/bin/python3 bench/interp.py                  # builds ./cmd/bitsh, 5 rounds
    /usr/bin/python3 bench/interp.py -n 3 -bitsh BIN  # another binary
    /usr/bin/python3 bench/interp.py enumerate words  # some measures only
    /usr/bin/python3 bench/interp.py -base OLD        # also an older bitsh: new / old
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NATURAL = ["debruijn", "cover", "magic", "toplevel", "bfs", "setqueens", "memo"]

# The data every micro-loop reads: 1,000 ints below 2^31, 1,000 words with
# their high bits set, and pairs of them.
DATA = """
xs = [(i * 7919) % 1000 for i in range(1000)]
ws = [((i * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)) | (1 << 63) for i in range(1000)]
pairs = [(x, x + 1) for x in xs]
wpairs = [(w, i) for i, w in enumerate(ws)]
G = [1, 2, 3, 4, 5, 6, 7, 8]
"""

# Each micro-loop: a function f() walking 1,000 elements; REPS is replaced
# by the number of calls.
MICRO = {
    "enumerate": """
def f():
    s = 0
    for i, x in enumerate(xs):
        s += x - i
    return s
""",
    "enumerate words": """
def f():
    s = 0
    for i, w in enumerate(ws):
        s ^= w >> (i & 63)
    return s
""",
    "tuple unpack": """
def f():
    s = 0
    for a, b in pairs:
        s += a - b
    return s
""",
    "unpack words": """
def f():
    s = 0
    for w, i in wpairs:
        s |= w & (i << 20)
    return s
""",
    "tuple index": """
def f():
    s = 0
    for p in pairs:
        s += p[0] - p[1]
    return s
""",
    "build tuples": """
def f():
    out = []
    for x in xs:
        out.append((x, x + 1))
    return len(out)
""",
    "set add": """
def f():
    s = set()
    n = 0
    for x in xs:
        s.add(x)
        if x + 1 in s:
            n += 1
    return n + len(s)
""",
    "dict get": """
def f():
    d = {}
    for i, x in enumerate(xs):
        d[x] = d.get(x, 0) + i
    return len(d)
""",
    "tuples comprehension": """
def f():
    return len([(x, x * 2) for x in xs if x & 1])
""",
    "words": """
def f():
    m = (1 << 64) - 1
    s = 0
    for w in ws:
        x = w ^ ((w << 13) & m)
        x ^= x >> 7
        s ^= (x & 0xFFFF0000FFFF0000) >> 16
    return s
""",
    "word compare": """
def f():
    n = 0
    h = 1 << 63
    for w in ws:
        if w > h and w & 1 == 0:
            n += 1
    return n
""",
    "list index": """
def f():
    s = 0
    for i in range(len(xs)):
        s += xs[i] + G[i & 7]
    return s
""",
    "while index": """
def f():
    s = 0
    i = 0
    n = len(ws)
    while i < n:
        s ^= ws[i]
        i += 1
    return s
""",
}

TAIL = """
n = REPS
acc = 0
for _ in range(n):
    acc ^= f()
print(acc)
"""


def cputime(cmd):
    """Runs cmd in the repository root; returns its output and its CPU seconds."""
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s: exit status %d" % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return out.strip(), ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5, help="rounds")
    ap.add_argument("-reps", type=int, default=1000, help="calls of each micro-loop (x 1,000 elements)")
    ap.add_argument("-bitsh", help="a bitsh binary (default: build ./cmd/bitsh)")
    ap.add_argument("-base", help="an older bitsh binary, also run with -interpret")
    ap.add_argument("measures", nargs="*", help="micro-loops (their first word) and natural programs; default all")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    bitsh = args.bitsh
    if not bitsh:
        bitsh = os.path.join(tmp, "bitsh")
        subprocess.run(["go", "build", "-o", bitsh, "./cmd/bitsh"], cwd=ROOT, check=True)
    sides = {"bitsh": [bitsh, "-interpret"], "cpython": ["/usr/bin/python3"]}
    if args.base:
        sides["base"] = [args.base, "-interpret"]

    def wanted(name):
        return not args.measures or name in args.measures or name.split()[0] in args.measures

    cases = []  # (name, kind, path, setup path)
    for name, body in MICRO.items():
        if not wanted(name):
            continue
        stem = os.path.join(tmp, name.replace(" ", "_"))
        for suffix, reps in (("", args.reps), ("_setup", 0)):
            with open(stem + suffix + ".star", "w") as f:
                f.write(DATA + body + TAIL.replace("REPS", str(reps)))
        cases.append((name, "micro", stem + ".star", stem + "_setup.star"))
    for prog in NATURAL:
        if wanted(prog):
            cases.append((prog, "natural", os.path.join(HERE, "natural", prog + ".star"), None))

    load0 = os.getloadavg()[0]
    got = {side: {c[0]: [] for c in cases} for side in sides}
    for r in range(args.n):
        for name, kind, path, setup in cases:
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            answers = {}
            for side in order:
                if kind == "micro":
                    out, t = cputime(sides[side] + [path])
                    _, t0 = cputime(sides[side] + [setup])
                    got[side][name].append((t - t0) * 1e9 / (args.reps * 1000))
                else:
                    out, t = cputime(sides[side] + [path])
                    got[side][name].append(t)
                answers[side] = out
            if len(set(answers.values())) != 1:
                raise SystemExit("%s: the sides disagree: %r" % (name, answers))
    load1 = os.getloadavg()[0]

    print("bitsh -interpret against CPython: best / median of %d interleaved rounds" % args.n)
    print("%-22s %22s %22s %18s" % ("measure", "bitsh -interpret", "CPython", "time ratio"))
    for name, kind, _, _ in cases:
        b, c = got["bitsh"][name], got["cpython"][name]
        unit = "ns/elem" if kind == "micro" else "s"
        print("%-22s %10.2f / %8.2f %10.2f / %8.2f %8.2f / %6.2f  %s" % (
            name, min(b), statistics.median(b), min(c), statistics.median(c),
            min(b) / min(c), statistics.median(b) / statistics.median(c), unit))
    if args.base:
        print("%-22s %22s %22s %18s" % ("measure", "bitsh -interpret", "base -interpret", "time ratio"))
        for name, kind, _, _ in cases:
            b, o = got["bitsh"][name], got["base"][name]
            print("%-22s %10.2f / %8.2f %10.2f / %8.2f %8.2f / %6.2f" % (
                name, min(b), statistics.median(b), min(o), statistics.median(o),
                min(b) / min(o), statistics.median(b) / statistics.median(o)))
    print("micro-loops: CPU time per element (%d x 1,000); natural programs: CPU time of the run" % args.reps)
    print("time ratio: bitsh's over CPython's (below 1: bitsh faster); load average %.2f at start, %.2f at end; %s" % (
        load0, load1, sys.version.split()[0]))


if __name__ == "__main__":
    main()
