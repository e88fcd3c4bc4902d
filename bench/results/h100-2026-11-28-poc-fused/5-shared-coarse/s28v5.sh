#!/usr/bin/env bash
# Session 28, call 5: shared coarse layers on the CUDA backend (all paths):
# tests, sanitizers, matcher and element speed per coarse mode.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
t0=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
"$build/tests/kernels/test_kernels_poc_cuda" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$? $((SECONDS-t0))s"; grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|shared|shmed' "$o/t-poc-cuda.txt" | grep -v "^  emu" | head -40
GST_CHECKS=test_coarse_cuda "$build/tests/test_elements_pocme" > "$o/t-el-coarse.txt" 2>&1; echo "element test_coarse_cuda rc=$?"; tail -2 "$o/t-el-coarse.txt"
for tool in memcheck initcheck; do
  timeout 150 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.SharedCoarseMatchesCpu' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"
  grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' "$o/san-$tool.txt"
done
for c in "1080-64" "E-720"; do for L in 1 2; do for m in per-block shared shared-median; do
  "$build/bench/bench_poc" --backend cuda --case $c --layers $L --coarse $m --depth 3 --frames 40 --runs 3 > "$o/tmp.txt" 2>&1
  printf '%-14s ' "$m"; grep -E '^(1080-64|E-720)' "$o/tmp.txt" | tee -a "$o/poc-coarse.txt" || tail -3 "$o/tmp.txt"
done; done; done
echo "bench $((SECONDS-t0))s"
for L in 2 1; do for m in per-block shared-median; do
  "$build/bench/bench_pipeline" --element pocme --backend cuda --case 1080-64 --case E-720-256 --layers $L --set coarse=$m --pipeline-depth 3 --frames 200 --runs 3 > "$o/tmp.txt" 2>&1
  grep -v "GStreamer-WARNING\|^$" "$o/tmp.txt" >> "$o/pipeline.txt"; echo "== element layers $L coarse $m"; grep -E 'pocme' "$o/tmp.txt" | head -4
done; done
echo "pipeline $((SECONDS-t0))s"
cd "$out" && tar czf v5.tar.gz v && rm -rf v
