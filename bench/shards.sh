#!/usr/bin/env bash
# Times a CPU-bound script (the interpreter's own loop, no native kernel)
# with bitsh -j 1 and bitsh -j N (default 2), in interleaved rounds so that
# both see the same load, and prints each round, the best and the median
# of each, their ratio, and the load average before and after.
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
n = int(argv[0])
acc = 0
for x in share(range(n)):
    acc += ((x * 0x9e3779b1) >> 7 & 0xffff) ^ (x & 0xff)
emit("acc", acc)
STAR

now() { date +%s.%N; }
run() { # run J: prints the wall time in seconds, checks the result
  local t0 t1 out
  t0=$(now)
  out=$("$dir/bitsh" -j "$1" "$dir/loop.star" "$items")
  t1=$(now)
  if [ -z "${want:-}" ]; then want=$out; fi
  [ "$out" = "$want" ] || { echo "different results with -j $1: $out, want $want" >&2; exit 1; }
  echo "$t1 - $t0" | bc -l
}
stats() { # best and median of the arguments
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.3f %.3f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; echo
}

echo "load before: $(uptime)"
echo "cores: $(nproc); items: $items; rounds: $rounds"
one=() many=()
for r in $(seq "$rounds"); do
  a=$(run 1)
  b=$(run "$jobs")
  one+=("$a") many+=("$b")
  printf 'round %d: -j 1 %.3f s, -j %d %.3f s\n' "$r" "$a" "$jobs" "$b"
done
read -r best1 med1 < <(stats "${one[@]}")
read -r bestn medn < <(stats "${many[@]}")
echo "load after:  $(uptime)"
printf '%-6s %8s %8s\n' "" best median
printf '%-6s %8s %8s\n' "-j 1" "$best1" "$med1"
printf '%-6s %8s %8s\n' "-j $jobs" "$bestn" "$medn"
printf 'speed-up -j %d over -j 1: best %.2fx, median %.2fx\n' "$jobs" \
  "$(echo "$best1 / $bestn" | bc -l)" "$(echo "$med1 / $medn" | bc -l)"
