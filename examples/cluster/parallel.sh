#!/bin/bash
# census.star as 4 shards run by GNU parallel (on this machine, or on
# others with --sshlogin), then merged. A failed shard leaves no part:
# parallel --retries 3 reruns it, and so does rerunning this script with
# only its index (see docs/cluster.md).
#
#   ./parallel.sh 64
set -euo pipefail
cd "$(dirname "$0")"
n=4
parts=${PARTS:-parts}
mkdir -p "$parts"
parallel --halt now,fail=1 --retries 2 \
  "${BITSH:-bitsh}" -shard {}/$n -o "$parts/part-{}.json" census.star "${1:-32}" \
  ::: $(seq 0 $((n - 1)))
"${BITSH:-bitsh}" merge "$parts"/part-*.json
