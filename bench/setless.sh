#!/usr/bin/env bash
# Times Knuth's whole computation, setless(), through the bitsh
# binary: wall time, CPU time and peak memory, for each worker count given
# (default: 1 and every core).
#
#   bench/setless.sh            # workers 1 and $(nproc)
#   bench/setless.sh 2 4        # chosen worker caps
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/bitsh
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/bitsh
workers=("$@")
[ ${#workers[@]} -gt 0 ] || workers=(1 "$(nproc)")
script='
r = setless(progress=False)
c, t = 0, 0
for k in range(len(r.total)):
    c += r.classes[k]
    t += r.total[k]
print(c, "classes,", t, "SET-less sets")
'
printf '%-8s %10s %10s %10s %12s  %s\n' workers wall_s user_s sys_s peak_MiB result
for w in "${workers[@]}"; do
  if [ -x /usr/bin/time ]; then
    out=$( { /usr/bin/time -f '%e %U %S %M' "$bin" -workers "$w" -c "$script" ; } 2>&1 )
    result=$(printf '%s\n' "$out" | head -n -1)
    case "$result" in *classes*) ;; *) echo "setless failed: $out" >&2; exit 1 ;; esac
    read -r wall user sys rss < <(printf '%s\n' "$out" | tail -n 1)
    printf '%-8s %10s %10s %10s %12.1f  %s\n' "$w" "$wall" "$user" "$sys" "$(echo "$rss / 1024" | bc -l)" "$result"
  else
    echo "(no /usr/bin/time: wall and CPU from bash's time, no peak memory)"
    time "$bin" -workers "$w" -c "$script"
  fi
done
