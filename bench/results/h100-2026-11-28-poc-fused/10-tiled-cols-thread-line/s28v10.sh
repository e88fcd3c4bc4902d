#!/usr/bin/env bash
# Session 28, call 10: the tiled column kernel, per-thread line constants.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
"$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.*' > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
for tool in racecheck memcheck; do
  timeout 100 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.MatchesCpuOnShiftedTextures' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for b in .gpu/bench_poc_old "$build/bench/bench_poc"; do for L in 1 2; do
  "$b" --backend cuda --case E-720 --case 1080-128 --layers $L --depth 3 --frames 30 --runs 3 2>&1 | grep -E '^(E-720|1080-128)' | sed "s|^|$(basename $b) |" | tee -a "$o/poc.txt"
done; done
for m in shared-median; do for L in 1 2; do
  "$build/bench/bench_poc" --backend cuda --case E-720 --layers $L --coarse $m --depth 3 --frames 30 --runs 3 2>&1 | grep -E '^E-720' | sed "s|^|$m |" | tee -a "$o/poc.txt"
done; done
"$ncu" --clock-control none -k regex:tiled_cols_kernel --launch-skip 1 --launch-count 1 --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
  "$build/bench/bench_poc" --backend cuda --case E-720 --layers 1 --coarse shared-median --frames 3 --runs 1 --no-verify > "$o/ncu-cols.txt" 2>&1
grep -E "gpu__time|inst_executed" "$o/ncu-cols.txt"
cd "$out" && tar czf v10.tar.gz v && rm -rf v
