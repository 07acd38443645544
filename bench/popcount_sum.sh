#!/usr/bin/env bash
# The popcount-sum experiment of issue 8, bitsh against CPython, in one
# interleaved run: each round runs
#   bitsh:   n = 0; for s in subsets(D): n += popcount(s)
#   CPython: n = 0; for s in range(2**24): n += (s << SHIFT).bit_count()
# at the top level of a script (globals on both sides), over the same 2^24
# subsets, D = (2^24 - 1) << SHIFT, and prints ns per subset: best and
# median of each, and the ratio bitsh / CPython of the bests and of the
# medians. SHIFT = 0 gives the low words (small ints on both sides);
# -s 40 gives words above 2^31, which go.starlark.net heap-allocates.
#
#   bench/popcount_sum.sh            # 5 rounds, low words
#   bench/popcount_sum.sh -n 7 -s 40 # 7 rounds, high words
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5
shift_=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) rounds=$2; shift 2 ;;
	-s) shift_=$2; shift 2 ;;
	*) echo "usage: bench/popcount_sum.sh [-n rounds] [-s shift]" >&2; exit 2 ;;
	esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh

cat >"$tmp/sum.star" <<STAR
t0 = time.now()
n = 0
for s in subsets(((1 << 24) - 1) << $shift_):
    n += popcount(s)
t = time.now() - t0
print(n, int(t.seconds * 1e9 / (1 << 24) * 10) / 10.0)
STAR
cat >"$tmp/sum.py" <<PY
import time
t0 = time.perf_counter()
n = 0
for s in range(1 << 24):
    n += (s << $shift_).bit_count()
t = time.perf_counter() - t0
print(n, round(t * 1e9 / (1 << 24), 1))
PY

for i in $(seq "$rounds"); do
	b=$("$tmp/bitsh" "$tmp/sum.star")
	p=$(python3 "$tmp/sum.py")
	[ "${b%% *}" = "${p%% *}" ] || { echo "sums differ: bitsh $b, python $p" >&2; exit 1; }
	echo "round $i: bitsh ${b#* } ns, CPython ${p#* } ns per subset"
	echo "${b#* } ${p#* }" >>"$tmp/times"
done

awk -v shift_="$shift_" '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; b[n] = $1; p[n] = $2 }
END {
	mb = median(b, n); mp = median(p, n)
	printf "subsets of (2^24-1) << %d, %d rounds, ns per subset\n", shift_, n
	printf "bitsh    best %6.1f  median %6.1f\n", b[1], mb
	printf "CPython  best %6.1f  median %6.1f\n", p[1], mp
	printf "bitsh / CPython: %.2f (bests), %.2f (medians)\n", b[1] / p[1], mb / mp
}' "$tmp/times"
echo "$(python3 --version), $(go version | awk '{print $3}'), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
