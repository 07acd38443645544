#!/usr/bin/env bash
# Times examples/magics.star (bitsh) against bench/magics.c (gcc -O2), which
# searches the same candidate stream with the same first-collision test and
# prints the same table (checked here with diff). Runs are interleaved, N
# rounds (default 5); prints the best and the median of each and the ratio
# bitsh/C of the bests. Both times are whole-process wall times, so bitsh's
# start-up is counted against it.
#
#   bench/magics.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
gcc -O2 -o "$tmp/magics" bench/magics.c
"$tmp/magics" >"$tmp/c.out" 2>/dev/null
"$tmp/bitsh" examples/magics.star >"$tmp/b.out"
diff -q "$tmp/c.out" "$tmp/b.out" >/dev/null || { echo "magics.sh: C and bitsh found different magics" >&2; exit 1; }
now() { date +%s%N; }
for _ in $(seq "$n"); do
	t0=$(now); "$tmp/magics" >/dev/null 2>&1; t1=$(now)
	"$tmp/bitsh" examples/magics.star >/dev/null; t2=$(now)
	echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t1) / 1000 ))"
done >"$tmp/times"
c=$(cut -d' ' -f1 "$tmp/times" | sort -n)
b=$(cut -d' ' -f2 "$tmp/times" | sort -n)
m=$(( (n + 1) / 2 ))
cb=$(echo "$c" | head -1) cm=$(echo "$c" | sed -n "${m}p")
bb=$(echo "$b" | head -1) bm=$(echo "$b" | sed -n "${m}p")
awk -v cb="$cb" -v cm="$cm" -v bb="$bb" -v bm="$bm" 'BEGIN {
	printf "magics      best ms  median ms\n"
	printf "C (gcc -O2) %7.1f  %9.1f\n", cb / 1000, cm / 1000
	printf "bitsh       %7.1f  %9.1f\n", bb / 1000, bm / 1000
	printf "bitsh/C     %7.2f  %9.2f\n", bb / cb, bm / cm
}'
echo "$n interleaved rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
