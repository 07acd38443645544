#!/usr/bin/env bash
# Fused searches against C and numba: runs bench/fuse_search.star (bitsh on
# one worker, and on two for the scaling), bench/fuse_search.c (gcc -O2)
# and bench/fuse_search.py (Debian's python3-numba, installed when missing
# and running as root) in N interleaved rounds (default 3), bitsh also with
# BITSH_FUSE_ENGINE=wasm (wazero's engine beside its own x86-64 code), and
# prints the best and the median ns per item of each, the ratios to C, bitsh's and
# numba's compile times, and bitsh's speed-up over the plain Starlark loop.
#
#   bench/fuse_search.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bitsh" ./cmd/bitsh
gcc -O2 -o "$tmp/c" bench/fuse_search.c
if ! /usr/bin/python3 -c 'import numba' 2>/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-numba >/dev/null 2>&1 || true
fi
numba=0
/usr/bin/python3 -c 'import numba' 2>/dev/null && numba=1

# field NAME FILE: the number before " ns" on the line starting with NAME.
field() { grep "^$1:" "$2" | sed 's/.*: \([0-9.]*\) ns.*/\1/'; }
compiled() { grep "^$1:" "$2" | sed -n 's/.*compiled in \([0-9.]*\) ms.*/\1/p'; }
for r in $(seq "$n"); do
	"$tmp/bitsh" -workers 1 bench/fuse_search.star >"$tmp/b1.$r"
	"$tmp/c" >"$tmp/c.$r"
	"$tmp/bitsh" -workers 2 bench/fuse_search.star >"$tmp/b2.$r"
	BITSH_FUSE_ENGINE=wasm "$tmp/bitsh" -workers 1 bench/fuse_search.star >"$tmp/bw.$r"
	[ "$numba" = 1 ] && /usr/bin/python3 bench/fuse_search.py >"$tmp/n.$r"
done
stats() { # prints "best median" of the values on stdin
	sort -g | awk '{v[NR] = $1} END {printf "%.2f %.2f", v[1], v[int((NR + 1) / 2)]}'
}
row() { # LABEL KIND PREFIX
	for r in $(seq "$n"); do field "$2" "$tmp/$3.$r"; done | stats
}
echo "fused search          best ns  median ns  (per item, $n interleaved rounds)"
for kind in "magic check" serialise; do
	c=$(row C "$kind" c)
	b1=$(row bitsh "$kind" b1)
	b2=$(row bitsh2 "$kind" b2)
	printf "%-12s C gcc -O2  %7s  %9s\n" "$kind" $c
	printf "%-12s bitsh      %7s  %9s  bitsh/C %s\n" "" $b1 "$(awk -v a="${b1%% *}" -v b="${c%% *}" 'BEGIN {printf "%.2f", a / b}')"
	printf "%-12s bitsh -w 2 %7s  %9s  1 worker/2 %s\n" "" $b2 "$(awk -v a="${b1%% *}" -v b="${b2%% *}" 'BEGIN {printf "%.2f", a / b}')"
	bw=$(row bitsh "$kind" bw)
	printf "%-12s bitsh wasm %7s  %9s  wasm/amd64 %s\n" "" $bw "$(awk -v a="${bw%% *}" -v b="${b1%% *}" 'BEGIN {printf "%.2f", a / b}')"
	if [ "$numba" = 1 ]; then
		nb=$(row numba "$kind" n)
		printf "%-12s numba      %7s  %9s  bitsh/numba %s\n" "" $nb "$(awk -v a="${b1%% *}" -v b="${nb%% *}" 'BEGIN {printf "%.2f", a / b}')"
	fi
done
bc=$(for r in $(seq "$n"); do compiled "magic check" "$tmp/b1.$r"; done | stats)
echo "compile (magic check): bitsh best/median ms $bc"
bwc=$(for r in $(seq "$n"); do compiled "magic check" "$tmp/bw.$r"; done | stats)
echo "compile (magic check): bitsh wasm best/median ms $bwc"
if [ "$numba" = 1 ]; then
	nc=$(for r in $(seq "$n"); do compiled "magic check" "$tmp/n.$r"; done | stats)
	echo "compile (magic check): numba best/median ms $nc"
fi
plain=$(for r in $(seq "$n"); do field "plain magic check" "$tmp/b1.$r"; done | stats)
echo "plain Starlark magic check best/median ns $plain; fused is $(awk -v a="${plain%% *}" -v b="$(row bitsh 'magic check' b1 | cut -d' ' -f1)" 'BEGIN {printf "%.0f", a / b}')x faster"
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
