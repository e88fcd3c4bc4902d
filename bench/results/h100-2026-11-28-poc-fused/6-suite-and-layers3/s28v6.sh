#!/usr/bin/env bash
# Session 28, call 6: the whole suite on the GPU at the final tree, and
# layers=3 with shared-median coarse layers (speed).
out=$1; mkdir -p "$out/v"; o=$out/v
GPU_STEPS=tests timeout 420 bash tools/gpu-validate.sh "$o" > "$o/validate.txt" 2>&1; echo "validate rc=$?"
grep -E "OK|FAIL|SKIP|Ok:|Fail:|Skipped|Timeout|PASSED|FAILED" "$o/validate.txt" | tail -45
build=$(cat .gpu/payload.build)
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
for c in "1080-64" "E-720"; do for m in per-block shared-median; do
  "$build/bench/bench_poc" --backend cuda --case $c --layers 3 --coarse $m --depth 3 --frames 40 --runs 3 > "$o/tmp.txt" 2>&1
  printf '%-14s ' "$m"; grep -E '^(1080-64|E-720)' "$o/tmp.txt" | sed "s/^/$m /" | tee -a "$o/poc-l3.txt"
done; done
"$build/bench/bench_pipeline" --element pocme --backend cuda --case 1080-64 --case E-720-256 --layers 3 --set coarse=shared-median --pipeline-depth 3 --frames 200 --runs 3 2>&1 | grep -v "GStreamer-WARNING\|^$" > "$o/pipeline-l3.txt"; grep pocme "$o/pipeline-l3.txt"
cd "$out" && tar czf v6.tar.gz v && rm -rf v
