"""Start-up of bitsh: whole processes, two binaries interleaved (docs/performance.md).

Runs each command below with each binary in turn, N rounds, standard output
a pipe as in bench/natural/run.py, and prints for each the best and the
median of the wall time and of the CPU time (user + system of the process
and its children, from the kernel's accounting: on a loaded machine the
steadier of the two), in milliseconds, and new/base of the medians.

    go build -o /tmp/bitsh ./cmd/bitsh
    /usr/bin/python3 bench/startup.py -n 100 -bitsh /tmp/bitsh -base /tmp/bitsh-before
    /usr/bin/python3 bench/startup.py -inittrace -bitsh /tmp/bitsh   # package inits, ms each

-inittrace prints the mean of GODEBUG=inittrace=1's clock for each package
over the rounds (the slowest 25) and their sum, for one binary.
"""

import argparse
import os
import resource
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# (label, arguments after the binary, extra environment)
RUNS = [
    ("-c pass", ["-c", "pass"], {}),
    ("-c print(1)", ["-c", "print(1)"], {}),
    ("-c pass, no supervisor", ["-c", "pass"], {"BITSH_NO_SUPERVISOR": "1"}),
    ("toplevel.star", [os.path.join(HERE, "natural", "toplevel.star")], {}),
]


def once(argv, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return (t1 - t0) * 1e3, cpu * 1e3


def inittrace(binary, n):
    env = dict(os.environ, GODEBUG="inittrace=1", BITSH_NO_SUPERVISOR="1")
    total = {}
    for _ in range(n):
        p = subprocess.run([binary, "-c", "pass"], env=env, capture_output=True, text=True, check=False)
        for line in p.stderr.splitlines():
            f = line.split()
            if len(f) >= 5 and f[0] == "init":
                total[f[1]] = total.get(f[1], 0.0) + float(f[4])
    for pkg, ms in sorted(total.items(), key=lambda kv: -kv[1])[:25]:
        print("%8.4f  %s" % (ms / n, pkg))
    print("%8.4f  all %d packages" % (sum(total.values()) / n, len(total)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=50, help="rounds")
    ap.add_argument("-bitsh", required=True, help="the binary measured")
    ap.add_argument("-base", help="an older binary, run interleaved")
    ap.add_argument("-inittrace", action="store_true", help="package inits instead")
    args = ap.parse_args()
    if args.inittrace:
        inittrace(args.bitsh, args.n)
        return
    bins = [("new", args.bitsh)] + ([("base", args.base)] if args.base else [])
    res = {(r[0], b[0]): ([], []) for r in RUNS for b in bins}
    for _ in range(args.n):
        for label, extra, envx in RUNS:
            for name, binary in bins:
                w, c = once([binary] + extra, dict(os.environ, **envx))
                res[(label, name)][0].append(w)
                res[(label, name)][1].append(c)
    print("start-up, ms: wall best / median, CPU best / median; %d interleaved rounds, load %.1f"
          % (args.n, os.getloadavg()[0]))
    for label, _, _ in RUNS:
        line = "%-24s" % label
        for name, _ in bins:
            w, c = res[(label, name)]
            line += "  %s %6.2f / %6.2f, CPU %6.2f / %6.2f" % (
                name, min(w), statistics.median(w), min(c), statistics.median(c))
        if args.base:
            wn, cn = res[(label, "new")]
            wb, cb = res[(label, "base")]
            line += "  new/base CPU %.2f" % (statistics.median(cn) / statistics.median(cb))
        print(line)


if __name__ == "__main__":
    main()
