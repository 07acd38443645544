#!/usr/bin/env bash
# Straight-line fused functions as machine code against the block executor:
# runs bench/fuse_straight.star with bitsh's default engine and with
# BITSH_FUSE_ENGINE=wasm (which sends straight lines to the block executor)
# in N interleaved rounds (default 5) and prints the best and median ns per
# item of each, and block executor / machine code.
#
#   bench/fuse_straight.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
for r in $(seq "$n"); do
	"$tmp/bitsh" -workers 1 bench/fuse_straight.star >"$tmp/m.$r"
	BITSH_FUSE_ENGINE=wasm "$tmp/bitsh" -workers 1 bench/fuse_straight.star >"$tmp/b.$r"
done
stats() { sort -g | awk '{v[NR] = $1} END {printf "%.3f %.3f", v[1], v[int((NR + 1) / 2)]}'; }
row() { for r in $(seq "$n"); do grep "^$1:" "$tmp/$2.$r" | sed 's/.*: \([0-9.]*\) ns.*/\1/'; done | stats; }
echo "straight line    machine code best/median   block executor best/median   block/machine (best)"
for name in popcount3 top_bit early_return fmix; do
	m=$(row "$name" m)
	b=$(row "$name" b)
	printf "%-16s %12s %6s %16s %6s   %.2f\n" "$name" $m $b "$(awk -v a="${b%% *}" -v c="${m%% *}" 'BEGIN {print a / c}')"
done
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
