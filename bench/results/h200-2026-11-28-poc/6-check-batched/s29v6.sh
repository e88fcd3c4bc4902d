#!/usr/bin/env bash
# Session 29, call 6 (H200): the candidate check with a boundary block's
# candidates costed together (block_costs, CtaTeam::kBatched) against one
# after the other (A: .gpu/bench_poc_serial, 4 pixels a thread): tests,
# sanitizers, check-kernel times, speed; the element at the defaults.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
t=$build/tests/kernels/test_kernels_poc_cuda
"$t" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 100 "$san" --tool $tool --error-exitcode 99 "$t" --gtest_filter='PocCudaFinish.*' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for round in 1 2; do
for b in .gpu/bench_poc_serial "$build/bench/bench_poc"; do
  for spec in "1080-64 3" "E-720 1"; do set -- $spec
    "$b" --backend cuda --case $1 --layers $2 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1[ -]" | sed "s|^|$(basename $b) L$2 |" | tee -a "$o/poc.txt"
    [ $round = 1 ] && MATCH_POC_GRAPH=0 "$ncu" --clock-control none -k regex:poc_check_kernel --metrics gpu__time_duration.sum "$b" --backend cuda --case $1 --layers $2 --frames 4 --runs 1 --no-verify 2>&1 | grep gpu__time | awk -v c=$1 -v b=$(basename $b) '{print b " " c " check us " $3}' | tee -a "$o/check-ncu.txt" | head -2
  done
done
done
for spec in "1080-64 3" "E-720-256 1"; do set -- $spec
  "$build/bench/bench_pipeline" --element pocme --backend cuda --case $1 --layers $2 --pipeline-depth 3 --frames 300 --runs 3 > "$o/el.log" 2>&1
  grep -E "^$1 +pocme" "$o/el.log" | tee -a "$o/element.txt"
done
cd "$out" && tar czf v6.tar.gz v && rm -rf v
