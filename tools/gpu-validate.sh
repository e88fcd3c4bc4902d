#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Runs on the GPU host (device tool, carry [".gpu"]) what validates the CUDA
# backends, after tools/gpu-pack.sh here. Logs go to $OUT (or $1).
# Steps (GPU_STEPS, default "tests sanitize bench"; "tune" is extra):
#   tests     the whole meson suite, then the CUDA kernel tests verbosely
#   sanitize  tools/sanitize.sh (compute-sanitizer memcheck/racecheck/
#             initcheck/synccheck) when compute-sanitizer exists
#   bench     bench/run.sh gpu with the poc, stereo, pipeline and fast steps
#             (GPU_BENCH_STEPS to change), logs in $OUT/bench
#   tune      bench_poc's two target cases over MATCH_POC_FUSED,
#             MATCH_POC_CHUNK, MATCH_POC_GRAPH and MATCH_POC_CACHE (CUDA)
#   poc18     issue 18 on its own (extra): the CUDA POC tests verbosely,
#             compute-sanitizer on them, and the speed rows through the
#             element (pipeline-depth 0 and 3, robust on and off, layers 3
#             (the default) and 1) and the matcher, with the tiled path's
#             chunk swept
#   predictive  method=predictive alone (issue 19; extra): its CUDA kernel
#             tests verbosely, compute-sanitizer memcheck and initcheck on
#             them, and bench_fast's CUDA rows of full, diamond, hexagon and
#             predictive at every case (1080p included), with and without
#             --two-frames; logs predictive-*.txt
#   multigpu  issue 21 on a two-GPU host (extra): the GPUs and their link,
#             the multi-GPU tests on GPUs 0 and 1 (kernel gtests, the
#             element's CUDA checks), compute-sanitizer memcheck on them, then
#             bench/run.sh multigpu (kernel and element rows, one GPU against
#             parallel and serial on two, D 0 and 3, vectors checked against
#             the one-GPU run); logs multigpu-*.txt and $OUT/multigpu/
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:?set OUT or give a log folder}}
mkdir -p "$out"
build=$(cat .gpu/payload.build 2>/dev/null || echo build)
steps=${GPU_STEPS:-tests sanitize bench}
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }

tar -xJf .gpu/payload.tar.xz
mkdir -p "$build/meson-logs"
# shellcheck disable=SC1091
source .gpu/gpu-env.sh .gpu/rt "$build"
# The build was configured on Debian, where gst-inspect-1.0 is in /usr/bin.
[ -e /usr/bin/gst-inspect-1.0 ] || ln -s /tmp/gst-runtime/usr/bin/gst-inspect-1.0 /usr/bin/gst-inspect-1.0
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv;
  ls -la /usr/local/cuda/lib64/libcufft.so* 2>&1; } > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
status=0
summ() { grep -E '^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:'; }
if has tests; then
  echo "== suite"
  meson test -C "$build" --no-rebuild --num-processes 8 --print-errorlogs 2>&1 \
    | tee "$out/suite.log" | summ || status=1
  cp "$build/meson-logs/testlog.txt" "$out/suite-testlog.txt"
  # The CUDA cases must have run, not skipped: gtest's totals per program
  # (no "SKIPPED" line may remain on a GPU host).
  grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$out/suite-testlog.txt"
fi
if has sanitize; then
  if command -v compute-sanitizer > /dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    echo "== sanitize"
    PATH=$PATH:/usr/local/cuda/bin bash tools/sanitize.sh "$build" > "$out/sanitize.log" 2>&1 || status=1
    tail -3 "$out/sanitize.log"
  else
    echo "== sanitize: compute-sanitizer not found, skipped"
  fi
fi
if has bench; then
  echo "== bench"
  MATCH_BENCH_FRAMES=$PWD/.gpu/frames MATCH_BENCH_STEPS=${GPU_BENCH_STEPS:-poc stereo pipeline fast} \
    bash bench/run.sh gpu "$out/bench" "$build" \
    > "$out/bench.log" 2>&1 || status=1
  tail -40 "$out/bench.log"
fi
if has predictive; then
  echo "== predictive"
  # CUDA == CPU == reference: odd sizes with padded strides (every pass
  # count, early-stop 0 / 3 / 24), 1080p, the taxi pair and taxi 1 2 1,
  # several engines, state across reset and reconfigure.
  pf='Sizes/CudaFastVsCpu.*:CudaFast.*'
  GST_TEST_FILES_PATH=$PWD/tests/files "$build/tests/kernels/test_kernels_cuda" \
    --gtest_filter="$pf" > "$out/predictive-tests.txt" 2>&1 || status=1
  grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$out/predictive-tests.txt"
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$san" ]; then
    sf='CudaFast.Predictive*:CudaFast.SeveralEnginesEqualCpu:Sizes/CudaFastVsCpu.IdenticalVectors/0:Sizes/CudaFastVsCpu.IdenticalVectors/3:Sizes/CudaFastVsCpu.IdenticalVectors/6:Sizes/CudaFastVsCpu.IdenticalVectors/7'
    for tool in memcheck initcheck; do
      GST_TEST_FILES_PATH=$PWD/tests/files "$san" --tool $tool --error-exitcode 99 \
        --print-limit 20 "$build/tests/kernels/test_kernels_cuda" --gtest_filter="$sf" \
        > "$out/predictive-$tool.txt" 2>&1 || status=1
      tail -2 "$out/predictive-$tool.txt"
    done
  fi
  for tf in "" --two-frames; do
    MATCH_BENCH_FRAMES=$PWD/.gpu/frames "$build/bench/bench_fast" --backend cuda \
      --method full --method diamond --method hexagon --method predictive \
      --pairs 30 --runs 5 $tf > "$out/predictive-bench_fast${tf:+-two-frames}.txt" 2>&1 || status=1
    grep -E '^(B-|1080|2160)' "$out/predictive-bench_fast${tf:+-two-frames}.txt"
  done
fi
if has multigpu; then
  echo "== multigpu"
  { nvidia-smi topo -m; nvidia-smi topo -p2p rw; } > "$out/multigpu-topology.txt" 2>&1
  cat "$out/multigpu-topology.txt"
  export GST_TEST_FILES_PATH=$PWD/tests/files
  mf='MultiGpu.*:CudaFast.SeveralEnginesEqualCpu:DeviceInput*'
  "$build/tests/kernels/test_kernels_cuda" --gtest_filter="$mf" \
    > "$out/multigpu-tests.txt" 2>&1 || status=1
  grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$out/multigpu-tests.txt"
  GST_CHECKS=test_cuda_multi_gpu,test_cuda_fast_methods \
    "$build/tests/test_elements_blockmatchme" > "$out/multigpu-element-tests.txt" 2>&1 || status=1
  grep -E '^[0-9]+%: Checks' "$out/multigpu-element-tests.txt"
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$san" ]; then
    "$san" --tool memcheck --error-exitcode 99 --print-limit 20 \
      "$build/tests/kernels/test_kernels_cuda" --gtest_filter='MultiGpu.*' \
      > "$out/multigpu-memcheck.txt" 2>&1 || status=1
    grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED)' "$out/multigpu-memcheck.txt"
  fi
  MATCH_BENCH_FRAMES=$PWD/.gpu/frames bash bench/run.sh multigpu "$out/multigpu" "$build" \
    > "$out/multigpu-bench.log" 2>&1 || status=1
  sed -n '/==== Results/,$p' "$out/multigpu/multigpu_blockmatch.txt" | head -40
  grep -E '^(1 |4-)' "$out/multigpu/multigpu_element.txt" || tail -20 "$out/multigpu/multigpu_element.txt"
fi
if has tune; then
  # POC launch and batch variants for tuning (not in the default steps):
  # one plan execution per layer vs chunks that fit the L2 cache, with
  # and without the CUDA graph.
  echo "== tune"
  for v in "1 0 1 1 0" "1 0 0 1 0" "0 0 1 1 0" "0 0 0 1 0" "1 0 1 1 1" "1 0 0 1 1" "0 1024 1 1 0"; do
    set -- $v
    echo "-- MATCH_POC_FUSED=$1 MATCH_POC_CHUNK=$2 MATCH_POC_GRAPH=$3 MATCH_POC_CACHE=$4 MATCH_POC_TILED=$5"
    MATCH_POC_FUSED=$1 MATCH_POC_CHUNK=$2 MATCH_POC_GRAPH=$3 MATCH_POC_CACHE=$4 MATCH_POC_TILED=$5 \
      MATCH_BENCH_FRAMES=$PWD/.gpu/frames "$build/bench/bench_poc" --backend cuda \
      --case E-720 --case 1080-64 --case 1080-128 --layers 1 --frames 20 --runs 3 --no-verify 2>&1 \
      | grep -E '^(E-|1080)'
  done | tee "$out/tune.log"
fi
if has poc18; then
  echo "== poc18: tests"
  export GST_TEST_FILES_PATH=$PWD/tests/files
  "$build/tests/kernels/test_kernels_poc_cuda" 2>&1 | tee "$out/poc18-tests.log" \
    | grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|^\[  SKIPPED|gpu |differ' || true
  grep -q '^\[  FAILED' "$out/poc18-tests.log" && status=1
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ -x "$san" ]; then
    filter='PocCudaFinish.*:PocCuda.SubmitCollectEqualsProcess:PocDeviceInput.*'
    for tool in memcheck racecheck synccheck initcheck; do
      echo "== poc18: compute-sanitizer $tool"
      "$san" --tool $tool --error-exitcode 99 --print-limit 20 \
        "$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter="$filter" \
        > "$out/poc18-$tool.log" 2>&1 || status=1
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' "$out/poc18-$tool.log"
    done
  fi
  echo "== poc18: bench (through the element)"
  export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
  {
    for layers in 3 1; do
      for robust in true false; do
        "$build/bench/bench_pipeline" --element pocme --backend cuda \
          --case E-720-256 --case 1080-64 --layers $layers --set robust=$robust \
          --pipeline-depth 0 --pipeline-depth 3 --frames 200 --runs 3
      done
    done
  } 2>&1 | tee "$out/poc18-pipeline.log" | grep -E '^(E-|1080)|floor'
  echo "== poc18: bench (the matcher: process() and depth 3; GPU time)"
  {
    for depth in 0 3; do
      "$build/bench/bench_poc" --backend cuda --case E-720-256 --case 1080-64 \
        --layers 3 --depth $depth --frames 50 --runs 3
      "$build/bench/bench_poc" --backend cuda --case E-720-256 --case 1080-64 \
        --layers 3 --depth $depth --frames 50 --runs 3 --no-robust --no-verify
    done
    for chunk in 48 88 184 0; do
      echo "-- MATCH_POC_CHUNK=$chunk"
      MATCH_POC_CHUNK=$chunk "$build/bench/bench_poc" --backend cuda --case E-720-256 \
        --layers 1 --depth 3 --frames 50 --runs 3 --no-verify
    done
  } 2>&1 | tee "$out/poc18-matcher.log" | grep -E '^(E-|1080)|floor|MATCH_POC_CHUNK|robust'
fi
exit $status
