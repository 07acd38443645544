#!/usr/bin/env bash
# Runs the C reference loops of bench/*.c beside the Go benchmarks of the
# same kernels and prints a table with the ratio Go/C (below 1: Go faster).
#
# bench/pairs.txt pairs them, one line each:
#   label  c_file  go_package  BenchmarkName
# Each C program, built with gcc -O2 and run with no arguments, prints lines
# "label ns_per_op"; the Go benchmark reports ns/op for the same unit of
# work. Every measurement is repeated (default 3 times) and the fastest run
# kept, which is the fairest figure on a shared machine.
#
#   bench/compare.sh                 # every pair
#   bench/compare.sh -n 5 'snoob|bsf' # 5 repetitions, labels matching a regexp
set -euo pipefail
cd "$(dirname "$0")/.."

reps=3
if [ "${1:-}" = "-n" ]; then
	reps=$2
	shift 2
fi
filter=${1:-.}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Read the pairs that match the filter.
grep -v '^\s*\(#\|$\)' bench/pairs.txt | awk -v f="$filter" '$1 ~ f' >"$tmp/pairs"
if [ ! -s "$tmp/pairs" ]; then
	echo "compare.sh: no pair in bench/pairs.txt matches '$filter'" >&2
	exit 2
fi

# C: build each file once and keep the fastest ns/op per label.
for c in $(awk '{print $2}' "$tmp/pairs" | sort -u); do
	exe="$tmp/$(basename "$c" .c)"
	gcc -O2 -o "$exe" "$c"
	for _ in $(seq "$reps"); do
		nice "$exe"
	done
done | awk '{ if (!($1 in best) || $2 < best[$1]) best[$1] = $2 } END { for (l in best) print l, best[l] }' >"$tmp/c"

# Go: one go test run per package with the benchmarks it needs.
for pkg in $(awk '{print $3}' "$tmp/pairs" | sort -u); do
	names=$(awk -v p="$pkg" '$3 == p {print $4}' "$tmp/pairs" | sort -u | paste -sd'|' -)
	nice go test -run '^$' -bench "^($names)\$" -count "$reps" "$pkg" |
		awk -v p="$pkg" '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); for (i = 2; i < NF; i++) if ($(i+1) == "ns/op") print p, n, $i }'
done | awk '{ k = $1 " " $2; if (!(k in best) || $3 < best[k]) best[k] = $3 } END { for (k in best) print k, best[k] }' >"$tmp/go"

printf '%-36s %12s %12s %8s\n' label "C ns/op" "Go ns/op" "Go/C"
while read -r label c pkg bench; do
	cns=$(awk -v l="$label" '$1 == l {print $2}' "$tmp/c")
	gns=$(awk -v p="$pkg" -v b="$bench" '$1 == p && $2 == b {print $3}' "$tmp/go")
	awk -v l="$label" -v c="${cns:-}" -v g="${gns:-}" 'BEGIN {
		r = (c != "" && g != "" && c > 0) ? sprintf("%.2f", g / c) : "n/a"
		printf "%-36s %12s %12s %8s\n", l, (c == "" ? "missing" : c), (g == "" ? "missing" : g), r
	}'
done <"$tmp/pairs"
echo
echo "gcc -O2 ($(gcc -dumpfullversion)), $(go version | awk '{print $3}'), best of $reps runs, $(nproc) cores"
