"""Plain scripts on 64-bit words: bitsh against CPython (docs/performance.md).

Runs bench/perft, bench/magic_check, bench/word_loop and bench/calls (fib,
two De Bruijn generators, n-queens on words, the word-style perft) in bitsh (.star) and in
CPython (.py), interleaved, for several rounds, and prints for each
measure the best and the median of both sides and their ratio. Each script
times its own loop (start-up and table building excluded) and prints the
figures; this script only runs them and reads their output.

Two clocks: the wall time each script measures around its loop, and the CPU
time (user + system) of the process less that of the same script run with
the argument "setup" (everything but the timed part). On a shared machine
the CPU time is the steadier of the two; bitsh's garbage collector runs
partly on a second core, which the wall time does not charge and the CPU
time does.

    python3 bench/plain.py                  # builds ./cmd/bitsh, 5 rounds
    python3 bench/plain.py -n 3 -bitsh BIN  # another binary
    python3 bench/plain.py -base BIN        # also an older bitsh, side by side:
                                            # new/old ratios and -c pass start-up
    python3 bench/plain.py -interpreted     # also bitsh -interpret (no function
                                            # run as machine code), side by side

Ratios are "bitsh speed / CPython speed" (above 1: bitsh faster), so the
targets read directly: every program at 1.0 or more (docs/performance.md,
"Plain functions as machine code"). "big/small" is the cost
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
    """Runs cmd; returns its output lines split in fields and its CPU seconds."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, cwd=ROOT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("%s: exit status %d" % (" ".join(cmd), p.returncode))
    return [line.split() for line in out.splitlines()], ru.ru_utime + ru.ru_stime


# The runs: script, its arguments, and the argument that runs the set-up only.
CASES = [("perft", [], ["setup"]), ("magic_check", [], ["setup"]),
         ("word_loop", ["small"], ["setup"]), ("word_loop", ["big"], ["setup"]),
         ("calls", ["fib"], ["setup"]), ("calls", ["isenberg"], ["setup"]),
         ("calls", ["find"], ["setup"]), ("calls", ["queens"], ["setup"]),
         ("calls", ["perft_words"], ["setup"])]
UNITS = {"fib": "call", "isenberg": "seq", "find": "seq", "queens": "sol", "perft_words": "node"}


def measures(lines, cpu):
    """Maps measure name to (wall ns, CPU ns) per unit of work."""
    m = {}
    for f in lines:
        if f[0] == "perft":
            m["perft (ns/node)"] = (int(f[2]), int(f[1]))
        elif f[0] == "magic":
            m["magic (ns/candidate)"] = (int(f[4]), int(f[1]))
        elif f[0] == "loop":
            m["loop %s (ns/iter)" % f[1]] = (int(f[3]), int(f[2]))
        elif f[0] == "calls":
            m["%s (ns/%s)" % (f[1], UNITS[f[1]])] = (int(f[3]), int(f[2]))
    return {k: (ns / n, cpu * 1e9 / n) for k, (ns, n) in m.items()}


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
    ap.add_argument("-interpreted", action="store_true", help="also run bitsh -interpret (every function interpreted)")
    ap.add_argument("-only", default="perft,magic_check,word_loop,calls", help="scripts, comma-separated")
    ap.add_argument("-clock", default="both", choices=["wall", "cpu", "both"])
    args = ap.parse_args()

    tmp = tempfile.mkdtemp()
    binary = args.bitsh
    if not binary:
        binary = os.path.join(tmp, "bitsh")
        subprocess.run(["go", "build", "-o", binary, "./cmd/bitsh"], check=True, cwd=ROOT)
    sides = {"bitsh": lambda s, a: [binary, "bench/%s.star" % s] + a,
             "cpython": lambda s, a: [sys.executable, "bench/%s.py" % s] + a}
    if args.base:
        sides["base"] = lambda s, a: [args.base, "bench/%s.star" % s] + a
    if args.interpreted:
        sides["interpreted"] = lambda s, a: [binary, "-interpret", "bench/%s.star" % s] + a

    load0 = os.getloadavg()[0]
    wall = {side: {} for side in sides}
    cpu = {side: {} for side in sides}
    only = args.only.split(",")
    for r in range(args.n):
        for script, argv, setup in CASES:
            if script not in only:
                continue
            # Interleave: the order of the sides alternates from round to round.
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for side in order:
                lines, c = run(sides[side](script, argv))
                _, c0 = run(sides[side](script, setup))
                for k, (w, cp) in measures(lines, c - c0).items():
                    wall[side].setdefault(k, []).append(w)
                    cpu[side].setdefault(k, []).append(cp)
    load1 = os.getloadavg()[0]
    for clock, got in (("wall", wall), ("cpu", cpu)):
        if args.clock in (clock, "both"):
            print("== %s time ==" % clock)
            report(got, args)
            print()
    print("%d rounds, interleaved; load average %.2f at start, %.2f at end, %d cores; %s; %s" % (
        args.n, load0, load1, os.cpu_count(), sys.version.split()[0],
        subprocess.run(["go", "version"], capture_output=True, text=True).stdout.split()[2]))
    if args.base:
        s = [startup(binary), startup(args.base), startup(binary), startup(args.base)]
        print("-c pass start-up, ms best / median (two interleaved sets of 20): bitsh %.2f / %.2f, %.2f / %.2f; base %.2f / %.2f, %.2f / %.2f" % (
            s[0] + s[2] + s[1] + s[3]))


def report(got, args):
    """Prints the table of one clock."""
    for side in ("bitsh", "interpreted"):
        if side not in got:
            continue
        name = "bitsh" if side == "bitsh" else "bitsh -interpret"
        print("%-22s %22s %22s %16s" % ("measure", name + " best / median", "CPython best / median", "speed vs CPython"))
        for k in got[side]:
            b, c = got[side][k], got["cpython"][k]
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
        print("%-22s %22s %22s %16s" % ("measure", "bitsh best / median", "base best / median", "bitsh/base time"))
        for k in got["bitsh"]:
            b, o = got["bitsh"][k], got["base"][k]
            print("%-22s %10.1f / %9.1f %10.1f / %9.1f   %5.3f / %5.3f" % (
                k, min(b), statistics.median(b), min(o), statistics.median(o),
                min(b) / min(o), statistics.median(b) / statistics.median(o)))


if __name__ == "__main__":
    main()
