#!/usr/bin/env bash
# Session 29, call 3 (H200): tiled sums from summed-area tables, rows stores by whole sectors; rows and inv kernels
# with a column per thread, box-only Z columns: tests, sanitizers on the
# tiled cases, [E] and 1080p N=128 old (ba4fddc) vs new, per-kernel times.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
tar -xJf .gpu/old.tar.xz -C .gpu
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
t=$build/tests/kernels/test_kernels_poc_cuda
"$t" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 "$san" --tool $tool --error-exitcode 99 "$t" --gtest_filter='PocCuda.MatchesCpuOnShiftedTextures:PocCuda.SharedCoarseMatchesCpu:PocCuda.IntegralEqualsHost:PocCuda.ChunkedEqualsOneExecution' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for b in .gpu/old/bench_poc "$build/bench/bench_poc"; do
  for spec in "E-720 1 per-block" "E-720 1 shared-median" "E-720 2 shared-median" "1080-128 1 per-block"; do set -- $spec
    "$b" --backend cuda --case $1 --layers $2 --coarse $3 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1[ -]" | sed "s|^|$(basename $(dirname $b)) $3 L$2 |" | tee -a "$o/poc.txt"
  done
done
for p in .gpu/old/libgstmotion.so "$build/gst/libgstmotion.so"; do
  for spec in "E-720-256 1 shared-median" "E-720-256 1 per-block"; do set -- $spec
    "$build/bench/bench_pipeline" --plugin "$p" --element pocme --backend cuda --case $1 --layers $2 --set coarse=$3 --pipeline-depth 3 --frames 200 --runs 3 > "$o/el-$(basename $(dirname $p))-$3.txt" 2>&1
    grep -E "^$1 +pocme" "$o/el-$(basename $(dirname $p))-$3.txt" | sed "s|^|$(basename $(dirname $p)) $3 L$2 |" | tee -a "$o/element.txt"
  done
done
export MATCH_POC_GRAPH=0
for spec in "E-720 1" "1080-128 1"; do set -- $spec
  "$ncu" --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum --print-summary per-kernel \
    "$build/bench/bench_poc" --backend cuda --case $1 --layers $2 --coarse shared-median --frames 4 --runs 1 --no-verify > "$o/kernels-$1.txt" 2>&1
  echo "== $1 layers $2 shared-median (per launch: min max avg)"
  grep -E '^  [A-Za-z_].*\(|gpu__time_duration|inst_executed' "$o/kernels-$1.txt" | sed -E 's/ +/ /g' | sed -E 's/\(unnamed namespace\)::|match::cuda::|<unnamed>:://g' | cut -c1-100
done
cd "$out" && tar czf v3.tar.gz v && rm -rf v
