#!/usr/bin/env bash
# Session 29, call 1 (H200): the finish kernel (6-lane fit groups, analytic
# derivative) and the check kernel (a CTA team with shared samples):
# tests, sanitizers, old (ba4fddc) vs new speed; per-kernel times; the tiled
# rows and inv kernels' profiles on [E]'s layer-0 pass.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
tar -xJf .gpu/old.tar.xz -C .gpu
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$o/gpu.txt"
t=$build/tests/kernels/test_kernels_poc_cuda
"$t" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
for tool in memcheck racecheck initcheck synccheck; do
  timeout 150 "$san" --tool $tool --error-exitcode 99 "$t" --gtest_filter='PocCudaFinish.*:PocCuda.MatchesCpuOnRealImage' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for b in .gpu/old/bench_poc "$build/bench/bench_poc"; do
  for spec in "1080-64 2 per-block" "1080-64 2 shared-median" "E-720 1 per-block" "E-720 1 shared-median"; do set -- $spec
    "$b" --backend cuda --case $1 --layers $2 --coarse $3 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1 " | sed "s|^|$(basename $(dirname $b)) $3 L$2 |" | tee -a "$o/poc.txt"
  done
done
for p in .gpu/old/libgstmotion.so "$build/gst/libgstmotion.so"; do
  for spec in "1080-64 2 per-block" "1080-64 2 shared-median" "E-720-256 1 shared-median" "E-720-256 1 per-block"; do set -- $spec
    "$build/bench/bench_pipeline" --plugin "$p" --element pocme --backend cuda --case $1 --layers $2 --set coarse=$3 --pipeline-depth 3 --frames 200 --runs 3 2>&1 | grep -E "^$1 +pocme" | sed "s|^|$(basename $(dirname $p)) $3 L$2 |" | tee -a "$o/element.txt"
  done
done
export MATCH_POC_GRAPH=0
for spec in "E-720 1" "1080-64 2"; do set -- $spec
  "$ncu" --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
    "$build/bench/bench_poc" --backend cuda --case $1 --layers $2 --coarse shared-median --frames 4 --runs 1 --no-verify > "$o/kernels-$1.txt" 2>&1
  echo "== $1 layers $2 shared-median (per launch: min max avg)"
  grep -E '^  [A-Za-z_].*\(|gpu__time_duration' "$o/kernels-$1.txt" | sed -E 's/ +/ /g' | sed -E 's/\(unnamed namespace\)::|match::cuda::|<unnamed>:://g' | cut -c1-110
done
for k in tiled_rows_kernel tiled_inv_kernel; do
  "$ncu" --clock-control none -k regex:$k --launch-skip 1 --launch-count 1 --set full --import-source yes -o "$o/$k" \
    "$build/bench/bench_poc" --backend cuda --case E-720 --layers 1 --coarse shared-median --frames 3 --runs 1 --no-verify > "$o/ncu-$k.log" 2>&1
  "$ncu" -i "$o/$k.ncu-rep" --page details > "$o/$k-details.txt" 2>&1
  "$ncu" -i "$o/$k.ncu-rep" --page source --csv --print-source sass > "$o/$k-sass.csv" 2>&1
  echo "== $k"; grep -E 'Duration|Issue Slots Busy|Registers|Achieved Occupancy|Theoretical Occ|Executed Instructions  |DRAM Throughput|Memory Throughput|L2 Hit|Grid Size|Warp Cycles Per Issued' "$o/$k-details.txt" | sed -E 's/ +/ /g' | head -14
  rm -f "$o/$k.ncu-rep"
done
cd "$out" && tar czf v1.tar.gz v && rm -rf v
