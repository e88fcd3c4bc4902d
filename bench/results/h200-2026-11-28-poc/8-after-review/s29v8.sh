#!/usr/bin/env bash
# Session 29, call 8 (H200): after the review mend (test helpers), the
# CUDA POC tests, the element's tests and the speed at the defaults.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames GST_TEST_FILES_PATH=$PWD/tests/files
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t=$build/tests/kernels/test_kernels_poc_cuda
"$t" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
(cd "$build" && meson test --no-rebuild elements_pocme > "$o/t-elements-pocme.txt" 2>&1; echo "elements_pocme rc=$?"; grep -E "^ *[0-9]+/" "$o/t-elements-pocme.txt")
timeout 120 "$san" --tool memcheck --error-exitcode 99 "$t" --gtest_filter='PocCudaFinish.*:PocCuda.IntegralEqualsHost' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' "$o/san-memcheck.txt"
for spec in "1080-64 3" "E-720-256 1"; do set -- $spec
  "$build/bench/bench_pipeline" --element pocme --backend cuda --case $1 --layers $2 --pipeline-depth 3 --frames 300 --runs 3 > "$o/el.log" 2>&1
  grep -E "^$1 +pocme" "$o/el.log" | tee -a "$o/element.txt"
done
cd "$out" && tar czf v8.tar.gz v && rm -rf v
