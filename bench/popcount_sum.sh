#!/usr/bin/env bash
# The popcount-sum experiment, bitsh against CPython, in one
# interleaved run: each round runs
#   bitsh:   n = 0; for s in subsets(D): n += popcount(s)
#   CPython: n = 0; for s in range(2**24): n += (s << SHIFT).bit_count()
# at the top level of a script (globals on both sides), over the same 2^24
# subsets, D = (2^24 - 1) << SHIFT, and prints ns per subset: best and
# median of each, and the ratio bitsh / CPython of the bests and of the
# medians, in wall time and in CPU time (user + system of the whole
# process, from /usr/bin/time; on a loaded machine the steadier of the
# two). SHIFT = 0 gives the low words (small ints on both sides);
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

# cpu NS_WALL CMD...: runs CMD, prints its output's first field, the wall
# ns per subset it printed, and its CPU time (user + system, every thread)
# per subset, which a loaded machine inflates less than wall time.
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$@" >"$tmp/out"
	awk -v out="$(cat "$tmp/out")" '{ split(out, o, " "); printf "%s %s %.1f\n", o[1], o[2], ($1 + $2) * 1e9 / 2^24 }' "$tmp/cpu"
}

for i in $(seq "$rounds"); do
	read -r bn bw bc < <(cpu "$tmp/bitsh" "$tmp/sum.star")
	read -r pn pw pc < <(cpu python3 "$tmp/sum.py")
	[ "$bn" = "$pn" ] || { echo "sums differ: bitsh $bn, python $pn" >&2; exit 1; }
	echo "round $i: bitsh $bw ns wall, $bc ns cpu; CPython $pw ns wall, $pc ns cpu (per subset)"
	echo "$bw $pw $bc $pc" >>"$tmp/times"
done

awk -v shift_="$shift_" '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; b[n] = $1; p[n] = $2; bc[n] = $3; pc[n] = $4 }
END {
	mb = median(b, n); mp = median(p, n); mbc = median(bc, n); mpc = median(pc, n)
	printf "subsets of (2^24-1) << %d, %d rounds, ns per subset\n", shift_, n
	printf "                 wall best  wall median   cpu best  cpu median\n"
	printf "bitsh          %11.1f  %11.1f  %9.1f  %10.1f\n", b[1], mb, bc[1], mbc
	printf "CPython        %11.1f  %11.1f  %9.1f  %10.1f\n", p[1], mp, pc[1], mpc
	printf "bitsh/CPython  %11.2f  %11.2f  %9.2f  %10.2f\n", b[1] / p[1], mb / mp, bc[1] / pc[1], mbc / mpc
}' "$tmp/times"
echo "$(python3 --version), $(go version | awk '{print $3}'), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
