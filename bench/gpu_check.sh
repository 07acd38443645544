#!/usr/bin/env bash
# One-shot check of the GPU path on a machine with an NVIDIA card (about
# 5 minutes on a 16-core H100 or H200 box; every step has a time limit, all
# of them together under 8 minutes). It builds the test binaries and bitsh
# with CGO_ENABLED=0 (the driver is loaded at run time), then:
#   1. TestGPU, TestGPUFunc, TestGPUTransfer and TestGPURecursion (the
#      card's answers are the CPU's; recursion past the card's depth cap
#      handed back to the CPU), and engine's TestChooseGPU;
#   2. the GPU benchmarks: BenchmarkGPUCount (range(2^32)),
#      BenchmarkGPUArraySerialise and BenchmarkGPUArrayPopcount (2^24 words);
#   3. the recursive De Bruijn count of docs/fuse.md (all 2^26 sequences as
#      f.sum(range(2^16)) of subtrees, bench/gpu_recursion.star) with
#      device cpu, gpu and auto, each run twice.
# Without a card the tests skip, the benchmarks report nothing and only the
# CPU's De Bruijn runs. Put the figures, with the card named, in
# docs/performance.md ("GPU").
#
#   bench/gpu_check.sh [K]      (K: the subtrees are range(2^K); default 16)
#
# CPU_LIMIT (default 40) is the seconds a De Bruijn run on the CPU may take
# (both of its runs): raise it on a machine of few cores.
set -uo pipefail
cd "$(dirname "$0")/.."
K=${1:-16}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
step() { printf '\n== %s (%ds so far)\n' "$*" $((SECONDS - start)); }
status=0

step "machine"
nproc
uptime
if command -v nvidia-smi >/dev/null; then
	nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
else
	echo "no nvidia-smi"
fi

step "build (CGO_ENABLED=0)"
export CGO_ENABLED=0
go test -c -o "$tmp/cuda.test" ./builtins/fuse/cuda || exit 1
go test -c -o "$tmp/engine.test" ./builtins/fuse/engine || exit 1
go build -o "$tmp/bitsh" ./cmd/bitsh || exit 1

step "GPU tests"
(cd builtins/fuse/cuda && timeout 150 "$tmp/cuda.test" -test.run 'TestGPU$|TestGPUFunc|TestGPUTransfer|TestGPURecursion' -test.v 2>&1) |
	grep -v '^=== RUN' || status=1
(cd builtins/fuse/engine && timeout 30 "$tmp/engine.test" -test.run 'TestChooseGPU' -test.v 2>&1) | grep -v '^=== RUN' || status=1

step "GPU benchmarks"
(cd builtins/fuse/cuda && timeout 90 "$tmp/cuda.test" -test.run X -test.bench 'GPUCount|GPUArray' -test.benchtime 20x 2>&1) || status=1

step "recursive De Bruijn, all 2^26 sequences over range(2^$K)"
if "$tmp/bitsh" -c 'print(len(devices()) > 1)' | grep -q True; then
	devs="cpu gpu auto"
	"$tmp/bitsh" -c 'print(devices())'
else
	devs="cpu"
	echo "no GPU: the CPU only"
fi
for d in $devs; do
	limit=${CPU_LIMIT:-40}
	[ "$d" = cpu ] || limit=75
	timeout "$limit" "$tmp/bitsh" bench/gpu_recursion.star "$d" "$K" || { echo "device=$d: failed or past ${limit}s"; status=1; }
done

step "done: status $status"
exit $status
