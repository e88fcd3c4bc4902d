#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the test suite under NVIDIA compute-sanitizer on a GPU host:
# memcheck over the whole suite, racecheck over the tests that run CUDA
# kernels (the motion decision's CUDA case on its own kernels), initcheck
# and synccheck over the kernel tests. Any error fails.
#   tools/sanitize.sh [BUILD_DIR]        (default: build)
set -uo pipefail
build=${1:-build}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "sanitize.sh: compute-sanitizer not found" >&2; exit 2; }
# --require-cuda-init no: some tests (the metadata library, gst-inspect)
# never call CUDA; that is not an error.
common="--error-exitcode 99 --print-limit 20 --require-cuda-init no --target-processes all"
status=0
run() {
  local tool=$1
  shift
  echo "== $tool: $*"
  meson test -C "$build" --no-rebuild --print-errorlogs -t 6 "$@" \
    --wrapper "$san --tool $tool $common ${SAN_EXTRA:-}" || status=1
}
run memcheck --num-processes 4
# racecheck makes the 1080p stereo comparisons take minutes (each alone ran
# past 200 s on an H100): their kernels are the same as in the smaller
# cases (DisparityOutputCuda.PipelinedParamsChanges runs the conversion).
export GTEST_FILTER='-StereoCuda.FullHdMatchesCpu:DisparityOutputCuda.CollectMatchesCpu'
run racecheck kernels_cuda kernels_poc_cuda kernels_stereo_cuda kernels_disparity_output_cuda elements_blockmatchme elements_pocme elements_stereodisparity
# The decision's pixel stage on CUDA beside the CPU's: its kernels only (the
# matcher's are raced above).
SAN_EXTRA="--kernel-name kns=change_" GST_CHECKS=test_cuda_decision_equals_cpu \
  run racecheck elements_motionevents
run initcheck kernels_cuda kernels_poc_cuda kernels_stereo_cuda kernels_disparity_output_cuda
run synccheck kernels_cuda kernels_poc_cuda kernels_stereo_cuda kernels_disparity_output_cuda
unset GTEST_FILTER
[ "$status" = 0 ] && echo "sanitize.sh: clean" || echo "sanitize.sh: errors (see above)"
exit "$status"
