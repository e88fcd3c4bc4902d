#!/usr/bin/env bash
# Session 28, call 4: the fused kernel with the cross table and the window applied in the first row pass.
# (load, window, cross, peak): tests, sanitizers, old vs new bench, profile.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
t0=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
"$build/tests/kernels/test_kernels_poc_cuda" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$? $((SECONDS-t0))s"; grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran' "$o/t-poc-cuda.txt"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 100 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.MatchesCpuOnShiftedTextures:PocCuda.TinyFrames' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"
  grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for b in .gpu/bench_poc_old "$build/bench/bench_poc" .gpu/bench_poc_old "$build/bench/bench_poc"; do
  for L in 1 2; do
    "$b" --backend cuda --case 1080-64 --case 480-64 --layers $L --depth 3 --frames 40 --runs 3 > "$o/tmp.txt" 2>&1
    echo "== $b layers $L"; grep -E '^(1080-64|480-64)' "$o/tmp.txt" | tee -a "$o/poc-$(basename $b)-l$L.txt"
  done
  "$b" --backend cuda --size 1920x1080 --window 32 --spacing 16 --layers 2 --depth 3 --frames 40 --runs 3 > "$o/tmp.txt" 2>&1
  echo "== $b N=32"; grep -E '^1920x1080-32' "$o/tmp.txt" | tee -a "$o/poc-$(basename $b)-n32.txt"
done
echo "bench $((SECONDS-t0))s"
"$ncu" --clock-control none -k regex:poc_fused_kernel --launch-skip 3 --launch-count 1 --set full --import-source yes -o "$o/fused64" \
  "$build/bench/bench_poc" --backend cuda --case 1080-64 --layers 1 --frames 3 --runs 1 --no-verify > "$o/ncu-fused64.log" 2>&1
"$ncu" -i "$o/fused64.ncu-rep" --page details > "$o/fused64-details.txt" 2>&1
"$ncu" -i "$o/fused64.ncu-rep" --page source --csv --print-source sass > "$o/fused64-sass.csv" 2>&1
grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Registers|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued' "$o/fused64-details.txt" | sed -E 's/ +/ /g' | head -12
echo "ncu $((SECONDS-t0))s"
for L in 2 1; do "$build/bench/bench_pipeline" --element pocme --backend cuda --case 1080-64 --case E-720-256 --layers $L --pipeline-depth 0 --pipeline-depth 3 --frames 200 --runs 3 >> "$o/pipeline.txt" 2>&1; done
echo "pipeline $((SECONDS-t0))s"; grep -E 'pocme' "$o/pipeline.txt" | head
cd "$out" && tar czf v4.tar.gz v && rm -rf v
