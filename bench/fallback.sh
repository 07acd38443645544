#!/usr/bin/env bash
# Functions whose calls go back to the interpreter (bench/fallback.star),
# as code and under -interpret, in interleaved rounds: prints, for each
# case, the best and median wall time of its loop in ms, as code and
# interpreted, and their ratio (code / interpreted; the target is about 1
# or less), then the same of the CPU time of the whole process (user +
# system, from /usr/bin/time; on a loaded machine the steadier of the two,
# and it counts the compilation on its own goroutine). The times as code
# include the compilation of the function at its first call, or its
# 1000th (the table case: a list of 10^6 ints read as a table).
#
#   bench/fallback.sh              # 5 rounds, every case
#   bench/fallback.sh -n 3 tree    # 3 rounds, one case
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5
if [ "${1:-}" = -n ]; then
	rounds=$2
	shift 2
fi
cases=${*:-tree chain rebind table}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh

stats() { sort -n "$1" | awk '{a[NR] = $1} END {printf "%.1f / %.1f", a[1], a[int((NR + 1) / 2)]}'; }
best() { sort -n "$1" | head -1; }
line() { # name unit: the stats of files $tmp/$c.$1.code and .interp
	printf '%-7s %-4s code %s ms, interpreted %s ms, code / interpreted (best) %.2f\n' "$c" "$1" \
		"$(stats "$tmp/$c.$1.code")" "$(stats "$tmp/$c.$1.interp")" \
		"$(echo "$(best "$tmp/$c.$1.code") $(best "$tmp/$c.$1.interp")" | awk '{print $1 / $2}')"
}
for c in $cases; do
	for _ in $(seq "$rounds"); do
		for mode in code interp; do
			flag=
			[ $mode = interp ] && flag=-interpret
			/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$tmp/bitsh" $flag bench/fallback.star "$c" |
				awk '{print $3 / 1e6}' >>"$tmp/$c.wall.$mode"
			awk '{print ($1 + $2) * 1000}' "$tmp/cpu" >>"$tmp/$c.cpu.$mode"
		done
	done
	line wall
	line cpu
done
