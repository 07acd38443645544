#!/usr/bin/env bash
# Functions whose calls go back to the interpreter (bench/fallback.star),
# as code and under -interpret, in interleaved rounds: prints, for each
# case, the best and median wall time of its loop in ms, as code and
# interpreted, and their ratio (code / interpreted; the target is about 1
# or less). The times as code include the compilation of the function at
# its first call (the table case: a list of 10^6 ints read as a table).
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

for c in $cases; do
	for _ in $(seq "$rounds"); do
		"$tmp/bitsh" bench/fallback.star "$c" | awk '{print $3}' >>"$tmp/$c.code"
		"$tmp/bitsh" -interpret bench/fallback.star "$c" | awk '{print $3}' >>"$tmp/$c.interp"
	done
	stats() { sort -n "$1" | awk '{a[NR] = $1} END {printf "%.1f / %.1f", a[1] / 1e6, a[int((NR + 1) / 2)] / 1e6}'; }
	best() { sort -n "$1" | head -1; }
	printf '%-7s code %s ms, interpreted %s ms, code / interpreted (best) %.2f\n' "$c" \
		"$(stats "$tmp/$c.code")" "$(stats "$tmp/$c.interp")" \
		"$(echo "$(best "$tmp/$c.code") $(best "$tmp/$c.interp")" | awk '{print $1 / $2}')"
done
