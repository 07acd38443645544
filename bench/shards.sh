#!/usr/bin/env bash
# Times a CPU-bound script (the interpreter's own loop, no native kernel)
# with bitsh -j 1 and bitsh -j N (default 2), in interleaved rounds so that
# both see the same load, and prints each round, the best and the median
# wall time of each, their ratio, the ratio of CPU time, and the load
# average before and after. Needs /usr/bin/time (Debian package time).
#
#   bench/shards.sh                 # -j 2 against -j 1, 5 rounds
#   ROUNDS=9 bench/shards.sh 4      # -j 4 against -j 1, 9 rounds
#   ITEMS=6000000 bench/shards.sh   # a longer loop (default 3000000)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2}
rounds=${ROUNDS:-5}
items=${ITEMS:-3000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bitsh" ./cmd/bitsh
cat >"$dir/loop.star" <<'STAR'
# Small ints only: go.starlark.net allocates ints beyond 2^31, and the
# garbage collector is shared by the shards of one process.
n = int(argv[0])
hits = 0
for x in share(range(n)):
    h = ((x * 40503) >> 7 & 0xffff) ^ (x & 0xff)
    h = (h * 3 + 1) & 0xfffff
    if h & 7 == 0:
        hits += 1
emit("hits", hits)
STAR

run() { # run J: prints the wall and CPU (user + system) seconds
  /usr/bin/time -f '%e %U %S' -o "$dir/time" "$dir/bitsh" -j "$1" "$dir/loop.star" "$items" >"$dir/out.$1"
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$dir/time"
}
stats() { # best and median of the arguments
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.3f %.3f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; echo
}

echo "load before: $(uptime)"
echo "cores: $(nproc); items: $items; rounds: $rounds"
one=() many=() cpu1=0 cpun=0
for r in $(seq "$rounds"); do
  read -r a ca < <(run 1)
  read -r b cb < <(run "$jobs")
  one+=("$a") many+=("$b")
  cmp -s "$dir/out.1" "$dir/out.$jobs" || { echo "-j $jobs gave other results than -j 1" >&2; exit 1; }
  cpu1=$(echo "$cpu1 + $ca" | bc -l) cpun=$(echo "$cpun + $cb" | bc -l)
  printf 'round %d: -j 1 %.2f s (cpu %.2f s), -j %d %.2f s (cpu %.2f s)\n' "$r" "$a" "$ca" "$jobs" "$b" "$cb"
done
read -r best1 med1 < <(stats "${one[@]}")
read -r bestn medn < <(stats "${many[@]}")
echo "load after:  $(uptime)"
printf '%-6s %8s %8s\n' "" best median
printf '%-6s %8s %8s\n' "-j 1" "$best1" "$med1"
printf '%-6s %8s %8s\n' "-j $jobs" "$bestn" "$medn"
printf 'speed-up -j %d over -j 1: best %.2fx, median %.2fx\n' "$jobs" \
  "$(echo "$best1 / $bestn" | bc -l)" "$(echo "$med1 / $medn" | bc -l)"
# CPU time does not depend on the load: equal CPU for equal work means the
# shards add no work, and -j N approaches N times faster on N free cores.
printf 'CPU time -j %d / -j 1: %.2f\n' "$jobs" "$(echo "$cpun / $cpu1" | bc -l)"
