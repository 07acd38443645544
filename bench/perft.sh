#!/usr/bin/env bash
# The fused perft against C: runs examples/perft.star (the word-style perft
# with recursing helpers, fused and split over the first ply, on one
# worker) and its C twin bench/perft_words.c (the same algorithm, gcc -O2)
# in N interleaved rounds (default 3), checks that both print the published
# counts, and prints per position and depth the best and the median time of
# each and bitsh/C of the bests: bitsh's time is the run's, as C's (neither
# counts making its tables), and the time of fuse is shown beside it. DEPTH
# runs every position at that depth
# instead of the published depths (initial 5, Kiwipete 4, position 3 5,
# positions 4, 4 mirrored and 5 4).
#
#   bench/perft.sh [N] [DEPTH]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
depth=${2:-full}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
gcc -O2 -o "$tmp/c" bench/perft_words.c
carg=""
[ "$depth" != full ] && carg=$depth

# rows KIND FILE: "KIND<tab>NAME<tab>DEPTH<tab>MS" for each timed line, failing
# unless the file says every count is the published one.
rows() {
	grep -q '^all published counts: True$' "$2" || { echo "$1: wrong counts:" >&2; cat "$2" >&2; exit 1; }
	sed -n 's/^\(.*[^ ]\) *depth \([0-9]*\): *[0-9]*  [a-zC]*, ok  (\([0-9.]*\) ms\(; fuse \([0-9.]*\) ms\)\{0,1\})$/\1\t\2\t\3\t\5/p' "$2" |
		sed "s/^/$1\t/"
}
for r in $(seq "$n"); do
	"$tmp/c" $carg >"$tmp/c.$r"
	"$tmp/bitsh" -workers 1 examples/perft.star "$depth" -times >"$tmp/b.$r"
	rows C "$tmp/c.$r" >>"$tmp/rows"
	rows bitsh "$tmp/b.$r" >>"$tmp/rows"
done
echo "perft, ms per position and depth ($n interleaved rounds; bitsh fused on 1 worker, C gcc -O2)"
printf "%-20s %5s  %9s %9s  %9s %9s  %8s  %10s\n" position depth "C best" median "bitsh" median "bitsh/C" "fuse best"
# The positions in the order the script prints them.
cut -f2,3 "$tmp/rows" | awk '!seen[$0]++' | while IFS=$'\t' read -r name d; do
	stats() { # "best median" of KIND's times (field F, default 4) for this row
		awk -F'\t' -v k="$1" -v nm="$name" -v d="$d" -v f="${2:-4}" '$1 == k && $2 == nm && $3 == d {print $f}' "$tmp/rows" |
			sort -g | awk '{v[NR] = $1} END {printf "%.2f %.2f", v[1], v[int((NR + 1) / 2)]}'
	}
	c=$(stats C)
	b=$(stats bitsh)
	fz=$(stats bitsh 5)
	printf "%-20s %5s  %9s %9s  %9s %9s  %8s  %10s\n" "$name" "$d" $c $b \
		"$(awk -v a="${b%% *}" -v c="${c%% *}" 'BEGIN {printf "%.2f", a / c}')" "${fz%% *}"
done
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
