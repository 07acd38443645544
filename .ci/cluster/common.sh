# Shared by slurm.sh and parallel.sh: build bitsh, compute the reference
# result, install missing Debian packages.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d /tmp/bitsh-cluster.XXXXXX)
chmod 755 "$work"
bitsh=$work/bin/bitsh
(cd "$repo" && go build -o "$bitsh" ./cmd/bitsh)
width=${CENSUS_WIDTH:-32}
(cd "$repo/examples/cluster" && "$bitsh" -j 1 census.star "$width") >"$work/want.txt"

# need_packages CMD... PKG...: installs the Debian packages (after --) when a
# command is missing.
need_packages() {
  local missing=0
  while [ "$1" != -- ]; do
    command -v "$1" >/dev/null || missing=1
    shift
  done
  shift
  if [ $missing = 1 ]; then
    echo "installing $* from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >"$work/apt.log" 2>&1 ||
      { apt-get update >>"$work/apt.log" 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >>"$work/apt.log" 2>&1; } ||
      { cat "$work/apt.log" >&2; return 1; }
  fi
}

# compare FILE: the merged result must equal the -j 1 result.
compare() {
  if ! cmp -s "$work/want.txt" "$1"; then
    echo "FAIL: the merged result differs from bitsh -j 1:" >&2
    diff "$work/want.txt" "$1" >&2 || true
    return 1
  fi
}
