#!/usr/bin/env bash
# Fused recursion against C: bench/fuse_recursion.star (the recursive De
# Bruijn generator of docs/fuse.md, bitsh on one worker and on two) and
# bench/fuse_recursion.c (the same function, gcc -O2) on the same subtrees,
# in N interleaved rounds; prints the best and median ns per leaf and the
# ratios. K LO HI pick the subtrees (default 13 1650 1660; 10 0 1024 is all
# 2^26 sequences, minutes in C).
#
#   bench/fuse_recursion.sh [N [K LO HI]]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
shift || true
args=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
gcc -O2 -o "$tmp/c" bench/fuse_recursion.c
field() { sed -n 's/.*: \([0-9.e+]*\) ns per leaf.*/\1/p' "$1"; }
for r in $(seq "$n"); do
	"$tmp/c" "${args[@]}" >"$tmp/c.$r"
	"$tmp/bitsh" -workers 1 bench/fuse_recursion.star "${args[@]}" >"$tmp/b1.$r"
	"$tmp/bitsh" -workers 2 bench/fuse_recursion.star "${args[@]}" >"$tmp/b2.$r"
done
leaves() { sed -n 's/debruijn: \([0-9]*\) leaves.*/\1/p' "$1"; }
if [ "$(leaves "$tmp/c.1")" != "$(leaves "$tmp/b1.1")" ]; then
	echo "fuse_recursion: C counts $(leaves "$tmp/c.1") leaves, bitsh $(leaves "$tmp/b1.1")" >&2
	exit 1
fi
stats() { sort -g | awk '{v[NR] = $1} END {printf "%.2f %.2f", v[1], v[int((NR + 1) / 2)]}'; }
row() { for r in $(seq "$n"); do field "$tmp/$1.$r"; done | stats; }
c=$(row c)
b1=$(row b1)
b2=$(row b2)
echo "recursive De Bruijn, $(leaves "$tmp/c.1") leaves   best ns  median ns  (per leaf, $n interleaved rounds, load $(cut -d' ' -f1 /proc/loadavg))"
printf "C gcc -O2          %8s %9s\n" $c
printf "bitsh, 1 worker    %8s %9s  bitsh/C %s\n" $b1 "$(awk -v a="${b1%% *}" -v b="${c%% *}" 'BEGIN {printf "%.2f", a / b}')"
printf "bitsh, 2 workers   %8s %9s  1 worker/2 %s\n" $b2 "$(awk -v a="${b1%% *}" -v b="${b2%% *}" 'BEGIN {printf "%.2f", a / b}')"
