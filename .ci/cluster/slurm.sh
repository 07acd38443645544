#!/usr/bin/env bash
# Runs examples/cluster/slurm.sbatch on a real one-node Slurm cluster
# started here: installs slurmctld, slurmd, slurm-client and munge from
# Debian when missing, starts munged, slurmctld and slurmd in the
# foreground (backgrounded by this shell, no systemd), submits the
# array job of 4 tasks, waits, merges the parts and compares them with
# bitsh -j 1. The daemons it started are stopped by process id on exit.
# Needs root (daemons, packages).
set -euo pipefail
. "$(dirname "$0")/common.sh"

pids=()
cleanup() {
  local status=$?
  # Let the last job steps end while slurmd can still reap them.
  for _ in $(seq 25); do
    pgrep -x slurmstepd >/dev/null || break
    sleep 0.2
  done
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ $status = 0 ]; then
    rm -rf "$work"
  else
    echo "slurm test failed; logs in $work" >&2
  fi
}
trap cleanup EXIT

need_packages slurmctld slurmd sbatch munged -- slurmctld slurmd slurm-client munge

host=$(hostname -s)
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/parts"
chmod 755 "$work/munge" # munged refuses a socket directory others cannot traverse
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge.key"
sock=$work/munge/munge.socket
munged -F --key-file="$work/munge.key" --socket="$sock" \
  --pid-file="$work/munged.pid" --log-file="$work/munged.log" \
  --seed-file="$work/munged.seed" >"$work/munged.out" 2>&1 &
pids+=($!)

cat >"$work/slurm.conf" <<CONF
ClusterName=bitshtest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "munged did not start:" >&2; cat "$work/munged.out" "$work/munged.log" >&2; exit 1; }
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$work/slurmd.out" 2>&1 &
pids+=($!)

for _ in $(seq 100); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  echo "the node is not idle (state: ${state:-none})" >&2
  tail -n 20 "$work"/slurm*.log >&2 || true
  exit 1
fi
echo "slurm: node $host idle; submitting the array job"

# sbatch --wait polls with growing pauses (tens of seconds): poll squeue.
wait_job() {
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  echo "job $1 did not finish in 120 s" >&2
  return 1
}

start=$(date +%s)
job=$(sbatch --parsable --chdir="$repo/examples/cluster" --output="$work/task-%a.log" \
  --export=ALL,BITSH="$bitsh",PARTS="$work/parts" \
  "$repo/examples/cluster/slurm.sbatch" "$width")
wait_job "$job"
echo "slurm: array job $job finished in $(($(date +%s) - start)) s"
ls "$work/parts"
"$bitsh" merge "$work"/parts/part-*.json >"$work/merged.txt"
compare "$work/merged.txt"

# A lost part: rerun that task alone, merge again.
rm "$work/parts/part-2.json"
if "$bitsh" merge "$work"/parts/part-*.json 2>"$work/merge.err"; then
  echo "FAIL: merge accepted 3 parts of 4" >&2
  exit 1
fi
grep -q 'missing shard 2 of 4' "$work/merge.err"
job=$(sbatch --parsable --array=2 --chdir="$repo/examples/cluster" --output="$work/retry-%a.log" \
  --export=ALL,BITSH="$bitsh",PARTS="$work/parts",SHARDS=4 \
  "$repo/examples/cluster/slurm.sbatch" "$width")
wait_job "$job"
"$bitsh" merge "$work"/parts/part-*.json >"$work/merged2.txt"
compare "$work/merged2.txt"
echo "slurm: PASS (4-task array job merged equals bitsh -j 1; a rerun task completes the job)"
