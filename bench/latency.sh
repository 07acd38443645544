#!/usr/bin/env bash
# How fast a run stops, for every cause (timeout, Ctrl-C, memory budget)
# and every kind of work: Starlark code, a polling kernel, a doubling
# loop, and a go.starlark.net builtin that polls nothing (the hard stop).
# Each cell is the median and the worst of ROUNDS runs (default 3) of
# the time from the cause (the deadline, the signal; for the budget, the
# start) to the process's exit, with the exit status. Then, with -v, the
# latency of every builtin and word-array method on 2^24-word inputs past
# a 20 ms deadline (TestCancellationLatencyBig), slowest first.
#
#   bench/latency.sh            # the cause x work table
#   bench/latency.sh -v         # and the per-builtin table
#   ROUNDS=5 bench/latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=$dir/bitsh
go build -o "$bin" ./cmd/bitsh

declare -A work=(
  [loop]='while True: pass'
  [kernel]='while True: x = (random_words(1 << 25) * 3).sort()'
  [doubling]='s = "ab"
while True: s = s + s'
  [builtin]='x = int("9" * 3000000)'
)
order=(loop kernel doubling builtin)

# stop_ms CAUSE WORK prints "ms status" for one run.
stop_ms() {
  local cause=$1 code=$2 t0 t1 status=0
  case $cause in
  timeout)
    t0=$(date +%s%N)
    "$bin" -max-memory 0 -timeout 300ms -c "$code" 2>/dev/null || status=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000 - 300)) "$status"
    ;;
  ctrl-c)
    "$bin" -max-memory 0 -c "$code" 2>/dev/null &
    local pid=$!
    sleep 0.3
    t0=$(date +%s%N)
    kill -INT "$pid"
    wait "$pid" || status=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) "$status"
    ;;
  budget)
    t0=$(date +%s%N)
    timeout 120 "$bin" -max-memory 256M -c "$code" 2>/dev/null || status=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) "$status"
    ;;
  esac
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $rounds rounds"
printf '%-8s %-10s %12s %10s  %s\n' cause work median_ms worst_ms status
for cause in timeout ctrl-c budget; do
  for w in "${order[@]}"; do
    if [ "$cause" = budget ] && { [ "$w" = loop ] || [ "$w" = builtin ]; }; then
      continue # allocates nothing past the budget
    fi
    ms=() st=()
    for _ in $(seq "$rounds"); do
      read -r m s < <(stop_ms "$cause" "${work[$w]}")
      ms+=("$m") st+=("$s")
    done
    sorted=$(printf '%s\n' "${ms[@]}" | sort -n)
    median=$(echo "$sorted" | sed -n "$(((rounds + 1) / 2))p")
    worst=$(echo "$sorted" | tail -n 1)
    printf '%-8s %-10s %12s %10s  %s\n' "$cause" "$w" "$median" "$worst" "$(printf '%s\n' "${st[@]}" | sort -u | tr '\n' ' ')"
  done
done
echo "(timeout: from the 300 ms deadline to exit; ctrl-c: from SIGINT to exit; budget: from start to exit, -max-memory 256M)"

if [ "${1:-}" = -v ]; then
  echo
  echo "Every builtin and method on 2^24-word inputs: ms past a 20 ms deadline, slowest first"
  BITSH_LATENCY_TABLE=1 go test ./builtins -run TestCancellationLatencyBig -v -count=1 |
    sed -n 's/^ *latency_test.go:[0-9]*: *//p'
fi
