#!/usr/bin/env bash
# Runs examples/cluster/parallel.sh with GNU parallel (installed from
# Debian's package when missing): 4 shards, merged, compared with
# bitsh -j 1; then a lost part is rerun alone and merged again.
set -euo pipefail
. "$(dirname "$0")/common.sh"
trap 'status=$?; [ $status = 0 ] && rm -rf "$work" || echo "parallel test failed; files in $work" >&2' EXIT

need_packages parallel -- parallel

start=$(date +%s)
BITSH=$bitsh PARTS=$work/parts "$repo/examples/cluster/parallel.sh" "$width" >"$work/merged.txt"
echo "parallel: 4 shards run and merged in $(($(date +%s) - start)) s"
compare "$work/merged.txt"

rm "$work/parts/part-1.json"
if "$bitsh" merge "$work"/parts/part-*.json 2>"$work/merge.err"; then
  echo "FAIL: merge accepted 3 parts of 4" >&2
  exit 1
fi
grep -q 'missing shard 1 of 4' "$work/merge.err"
(cd "$repo/examples/cluster" &&
  parallel "$bitsh" -shard {}/4 -o "$work/parts/part-{}.json" census.star "$width" ::: 1)
"$bitsh" merge "$work"/parts/part-*.json >"$work/merged2.txt"
compare "$work/merged2.txt"
echo "parallel: PASS (4 shards merged equal bitsh -j 1; a rerun shard completes the job)"
