#!/usr/bin/env bash
# Session 28, call 1: issue 17's left-over sanitizers; issue 18 baselines and
# detailed profiles of the fused N=64 pass and the tiled N=256 column kernel.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
F=$PWD/.gpu/frames; export MATCH_BENCH_FRAMES=$F
t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > "$o/gpu.txt" 2>&1; cat "$o/gpu.txt"
# issue 17
"$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='*PostFilter*' > "$o/stereo-postfilter.txt" 2>&1; echo "postfilter rc=$? $((SECONDS-t0))s"; grep -E '^\[  (PASSED|FAILED) ' "$o/stereo-postfilter.txt"
for tool in racecheck initcheck; do
  STEREO_CUDA_SMALL=1 timeout 110 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"
  grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
# issue 18 baselines (matcher, depth 3)
for L in 1 2; do
  "$build/bench/bench_poc" --backend cuda --case E-720 --case 1080-64 --layers $L --depth 3 --frames 30 --runs 3 > "$o/poc-l$L.txt" 2>&1
  echo "poc layers $L $((SECONDS-t0))s"; grep -E '^(E-720|1080-64)' "$o/poc-l$L.txt"
done
# detailed profile: frame 2's layer-1 pass of 1080-64 (launches per frame: L1, L0, recentre)
"$ncu" --clock-control none -k regex:poc_fused_kernel --launch-skip 3 --launch-count 1 --set full --import-source yes -o "$o/fused64" \
  "$build/bench/bench_poc" --backend cuda --case 1080-64 --layers 1 --frames 3 --runs 1 --no-verify > "$o/ncu-fused64.log" 2>&1
echo "ncu fused $((SECONDS-t0))s"
"$ncu" -i "$o/fused64.ncu-rep" --page details > "$o/fused64-details.txt" 2>&1
"$ncu" -i "$o/fused64.ncu-rep" --page source --csv --print-source sass > "$o/fused64-sass.csv" 2>&1
grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Registers|Achieved Occupancy|Theoretical Occ|Bank|Warp Cycles Per Issued|Executed Instructions  |Stall' "$o/fused64-details.txt" | sed -E 's/ +/ /g' | head -30
"$ncu" --clock-control none -k regex:tiled_cols_kernel --launch-skip 2 --launch-count 1 --set full -o "$o/cols256" \
  "$build/bench/bench_poc" --backend cuda --case E-720 --layers 1 --frames 3 --runs 1 --no-verify > "$o/ncu-cols256.log" 2>&1
"$ncu" -i "$o/cols256.ncu-rep" --page details > "$o/cols256-details.txt" 2>&1
echo "ncu cols $((SECONDS-t0))s"
grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Registers|Achieved Occupancy|Theoretical Occ|Bank|DRAM Throughput|Memory Throughput|L2 Hit' "$o/cols256-details.txt" | sed -E 's/ +/ /g' | head -20
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$cuobjdump" -sass "$build/bench/bench_poc" 2>/dev/null | awk '/Function : .*poc_fused_kernel.*64/{p=1} p{print} /Function : /&&!/poc_fused_kernel.*64/{if(p)exit}' > "$o/fused64.sass"
wc -l "$o/fused64.sass" "$o/fused64-sass.csv"
rm -f "$o"/*.ncu-rep.tmp
cd "$out" && tar czf v1.tar.gz v && rm -rf v
