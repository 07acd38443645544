#!/usr/bin/env bash
# Runs the real cluster-engine tests (Slurm, GNU parallel) when it can:
# as root (the Slurm daemons, apt-get), with the engines installed or the
# Debian package mirror reachable to install them. Otherwise it says
# clearly what it skips, and why, and succeeds.
set -euo pipefail
dir=$(dirname "$0")
if [ "$(id -u)" != 0 ]; then
  echo "SKIP cluster tests (Slurm, GNU parallel): not running as root"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "SKIP cluster tests (Slurm, GNU parallel): no apt-get (they install Debian packages)"
  exit 0
fi
installed=1
for cmd in slurmctld slurmd sbatch munged parallel; do
  command -v "$cmd" >/dev/null || installed=0
done
if [ $installed = 0 ] && ! timeout 60 apt-get update -qq >/dev/null 2>&1; then
  echo "SKIP cluster tests (Slurm, GNU parallel): the Debian package mirror is not reachable"
  exit 0
fi
"$dir/slurm.sh"
"$dir/parallel.sh"
