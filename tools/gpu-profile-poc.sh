#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Per-kernel GPU times of the CUDA POC backend (Nsight Compute, clocks left
# alone) on a GPU host: bench_poc's target cases with direct launches, each
# case once per path.
#
#   bash tools/gpu-profile-poc.sh BUILDDIR [LOGDIR]
#
# LOGDIR is the second argument, else $OUT, else BUILDDIR/gpu-profile-poc;
# a packed build is unpacked as by tools/gpu-validate.sh.
#   PROFILE_CASES="1080-64 E-720"   PROFILE_FUSED="1 0"
#   PROFILE_DETAIL=REGEX: also Nsight Compute's detailed sections for one
#   launch of the kernels matching REGEX (1080-64, default path)
set -uo pipefail
if [ $# -lt 1 ] || [ -z "$1" ]; then
  sed -n '5,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "$1")
out=$(realpath -m "${2:-${OUT:-$build/gpu-profile-poc}}")
cd "$src" || exit 2
# shellcheck source=tools/gpu-host.sh
source tools/gpu-host.sh
gpu_host_prepare "$build" > /dev/null || exit 2
mkdir -p "$out" || exit 2
if [ -z "${MATCH_BENCH_FRAMES:-}" ] && [ -d .gpu/frames ]; then
  export MATCH_BENCH_FRAMES=$src/.gpu/frames
fi
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu not found"; exit 2; }
for c in ${PROFILE_CASES:-1080-64 E-720}; do
  for f in ${PROFILE_FUSED:-1 0}; do
    log="$out/ncu-$c-fused$f.txt"
    # Frame 0 has no pair; the launches of frames 1.. are profiled.
    MATCH_POC_GRAPH=0 MATCH_POC_FUSED=$f \
      "$ncu" --clock-control none --metrics gpu__time_duration.sum \
      --launch-skip 30 --launch-count 60 --print-summary per-kernel \
      "$build/bench/bench_poc" --backend cuda --case "$c" --layers 1 \
      --frames 6 --runs 1 --no-verify > "$log" 2>&1
    echo "== $c fused=$f"
    # Kernel name lines and their duration averages/sums.
    grep -E '^  [A-Za-z_].*\(|gpu__time_duration' "$log" | sed -E 's/ +/ /g' | head -40
  done
done
if [ -n "${PROFILE_DETAIL:-}" ]; then
  log="$out/ncu-detail.txt"
  "$ncu" --clock-control none \
    -k "regex:${PROFILE_DETAIL}" --launch-skip 2 --launch-count 1 --set detailed \
    "$build/bench/bench_poc" --backend cuda --case 1080-64 --layers 1 \
    --frames 3 --runs 1 --no-verify > "$log" 2>&1
  echo "== detail: $PROFILE_DETAIL"
  grep -E 'Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|Executed Ipc|Bank|Warp Cycles Per Issued|Stall|Block Limit|est\. Speedup' "$log" | sed -E 's/ +/ /g' | head -60
fi
