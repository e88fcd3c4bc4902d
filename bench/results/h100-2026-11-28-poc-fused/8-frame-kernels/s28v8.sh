#!/usr/bin/env bash
# Session 28, call 8: where a shared-median frame's GPU time goes (per-kernel
# times, [E] layers 1 and 1080p layers 2), and the tiled column kernel's
# full sections on a layer-0 pass (for the next step on [E]).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames MATCH_POC_GRAPH=0
for spec in "E-720 1" "1080-64 2"; do set -- $spec
  "$ncu" --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel \
    "$build/bench/bench_poc" --backend cuda --case $1 --layers $2 --coarse shared-median --frames 4 --runs 1 --no-verify > "$o/kernels-$1.txt" 2>&1
  echo "== $1 layers $2 shared-median (per launch: min max avg; invocations)"
  grep -E '^  [A-Za-z_].*\(|gpu__time_duration' "$o/kernels-$1.txt" | sed -E 's/ +/ /g' | sed -E 's/\(unnamed namespace\)::|match::cuda::|<unnamed>:://g' | cut -c1-150
done
"$ncu" --clock-control none -k regex:tiled_cols_kernel --launch-skip 1 --launch-count 1 --set full --import-source yes -o "$o/cols" \
  "$build/bench/bench_poc" --backend cuda --case E-720 --layers 1 --coarse shared-median --frames 3 --runs 1 --no-verify > "$o/ncu-cols.log" 2>&1
"$ncu" -i "$o/cols.ncu-rep" --page details > "$o/cols-details.txt" 2>&1
"$ncu" -i "$o/cols.ncu-rep" --page source --csv --print-source sass > "$o/cols-sass.csv" 2>&1
grep -E 'Duration|Issue Slots Busy|Executed Ipc A|Registers|Achieved Occupancy|Theoretical Occ|Executed Instructions  |DRAM Throughput|Grid Size|Dynamic Shared|Warp Cycles Per Issued' "$o/cols-details.txt" | sed -E 's/ +/ /g' | head -14
rm -f "$o/cols.ncu-rep"
cd "$out" && tar czf v8.tar.gz v && rm -rf v
