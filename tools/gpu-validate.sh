#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Validates the CUDA backends of a finished build on a GPU host:
#
#   bash tools/gpu-validate.sh BUILDDIR [LOGDIR]
#
# LOGDIR is the second argument, else $OUT, else BUILDDIR/gpu-validate.
# Steps (GPU_STEPS, default "tests sanitize bench"):
#   tests     the whole meson suite (gpu.txt: the GPUs; suite.log,
#             suite-testlog.txt; the gtest totals of every program are
#             printed: on a GPU host no CUDA case may be SKIPPED)
#   sanitize  tools/sanitize.sh: compute-sanitizer memcheck over the suite,
#             racecheck, initcheck and synccheck over the CUDA tests
#             (sanitize.log); skipped when compute-sanitizer is missing
#   bench     bench/run.sh gpu: the benchmarks on one GPU, logs in
#             LOGDIR/bench (GPU_BENCH_STEPS picks its steps, default
#             "poc stereo pipeline fast"; see bench/README.md)
#   multigpu  (not a default step; a host with two GPUs) the multi-GPU
#             kernel and element tests on devices 0 and 1, memcheck on
#             them, then bench/run.sh multigpu (LOGDIR/multigpu)
# The exit status is 1 when a step failed.
#
# A build folder needs the host's GStreamer; for a host without it,
# tools/gpu-pack.sh packs the build (tools/gpu-host.sh unpacks it here;
# docs/cuda.md, "Validating on a GPU host"). Bench frames come from
# $MATCH_BENCH_FRAMES, else .gpu/frames, else bench/prepare-frames.sh.
set -uo pipefail

usage() {
  sed -n '5,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
if [ $# -lt 1 ] || [ -z "$1" ]; then usage; fi
case $1 in -h | --help) usage ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "$1")
out=$(realpath -m "${2:-${OUT:-$build/gpu-validate}}")
steps=${GPU_STEPS:-tests sanitize bench}
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
cd "$src" || exit 2

# shellcheck source=tools/gpu-host.sh
source tools/gpu-host.sh
gpu_host_prepare "$build" || exit 2
mkdir -p "$out" || exit 2
if [ -z "${MATCH_BENCH_FRAMES:-}" ] && [ -d .gpu/frames ]; then
  export MATCH_BENCH_FRAMES=$src/.gpu/frames
fi
export GST_TEST_FILES_PATH=$src/tests/files
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

{ nvidia-smi -L && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } \
  > "$out/gpu.txt" 2>&1 || echo "gpu-validate.sh: nvidia-smi found no GPU" >> "$out/gpu.txt"
cat "$out/gpu.txt"
status=0

if has tests; then
  echo "== tests"
  jobs=$(nproc); [ "$jobs" -le 8 ] || jobs=8
  meson test -C "$build" --no-rebuild --num-processes "$jobs" --print-errorlogs \
    > "$out/suite.log" 2>&1 || status=1
  grep -E '^Ok:|^Fail:|^Skipped:|^Timeout:' "$out/suite.log"
  cp "$build/meson-logs/testlog.txt" "$out/suite-testlog.txt" 2> /dev/null
  grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$out/suite-testlog.txt" 2> /dev/null
fi

if has sanitize; then
  if [ -x "$san" ]; then
    echo "== sanitize"
    PATH=$PATH:$(dirname "$san") bash tools/sanitize.sh "$build" > "$out/sanitize.log" 2>&1 || status=1
    tail -3 "$out/sanitize.log"
  else
    echo "== sanitize: compute-sanitizer not found, skipped"
  fi
fi

if has bench; then
  echo "== bench"
  MATCH_BENCH_STEPS=${GPU_BENCH_STEPS:-poc stereo pipeline fast} \
    bash bench/run.sh gpu "$out/bench" "$build" > "$out/bench.log" 2>&1 || status=1
  tail -40 "$out/bench.log"
fi

if has multigpu; then
  echo "== multigpu"
  { nvidia-smi topo -m; nvidia-smi topo -p2p rw; } > "$out/multigpu-topology.txt" 2>&1
  "$build/tests/kernels/test_kernels_cuda" --gtest_filter='MultiGpu.*:CudaFast.SeveralEnginesEqualCpu:DeviceInput*' \
    > "$out/multigpu-tests.txt" 2>&1 || status=1
  grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$out/multigpu-tests.txt"
  GST_CHECKS=test_cuda_multi_gpu,test_cuda_fast_methods \
    "$build/tests/test_elements_blockmatchme" > "$out/multigpu-element-tests.txt" 2>&1 || status=1
  grep -E '^[0-9]+%: Checks' "$out/multigpu-element-tests.txt"
  if [ -x "$san" ]; then
    "$san" --tool memcheck --error-exitcode 99 --print-limit 20 \
      "$build/tests/kernels/test_kernels_cuda" --gtest_filter='MultiGpu.*' \
      > "$out/multigpu-memcheck.txt" 2>&1 || status=1
    grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' "$out/multigpu-memcheck.txt"
  fi
  bash bench/run.sh multigpu "$out/multigpu" "$build" > "$out/multigpu-bench.log" 2>&1 || status=1
  tail -20 "$out/multigpu-bench.log"
fi

echo "gpu-validate.sh: logs in $out"
exit $status
