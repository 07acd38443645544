#!/usr/bin/env bash
# A hot loop at a script's top level against the same loop in a def:
# runs bench/loop_in_def.star both ways in N interleaved rounds (default 5)
# and prints the best and median milliseconds of each, their ratio and the
# load.
#
#   bench/loop_in_def.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$n"); do
	for where in top def; do
		"$tmp/bitsh" bench/loop_in_def.star "$where" >>"$tmp/$where"
	done
done
stats() { awk '{print $2}' "$tmp/$1" | sort -g | awk '{v[NR] = $1} END {printf "%.2f %.2f", v[1], v[int((NR + 1) / 2)]}'; }
top=$(stats top)
def=$(stats def)
echo "where  best ms  median ms"
echo "top    $top"
echo "def    $def"
awk -v t="${top%% *}" -v d="${def%% *}" 'BEGIN {printf "top / def (best): %.1fx\n", t / d}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, commit $(git rev-parse --short HEAD)"
