#!/usr/bin/env bash
# Session 28, call 7: the CUDA predict kernel on ref/poc_coarse.h.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
"$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.*' > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
timeout 150 "$san" --tool memcheck --error-exitcode 99 "$build/tests/kernels/test_kernels_poc_cuda" --gtest_filter='PocCuda.SharedCoarseMatchesCpu' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' "$o/san-memcheck.txt"
MATCH_BENCH_FRAMES=$PWD/.gpu/frames "$build/bench/bench_poc" --backend cuda --case 1080-64 --layers 2 --coarse shared-median --depth 3 --frames 40 --runs 3 2>&1 | grep -E '^1080-64' | tee "$o/poc.txt"
cd "$out" && tar czf v7.tar.gz v && rm -rf v
