#!/usr/bin/env bash
# Session 29, call 7 (H200): the final code (the check's teams at 4 pixels
# a thread): the CUDA POC tests, the element's tests, sanitizers on the
# finish and tiled cases; the speed at the defaults through the element and
# the matcher, old (ba4fddc) and new in the same run.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
tar -xJf .gpu/old.tar.xz -C .gpu
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export LD_LIBRARY_PATH=$PWD/$build/gst/motionvectors:${LD_LIBRARY_PATH:-}
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames GST_TEST_FILES_PATH=$PWD/tests/files
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t=$build/tests/kernels/test_kernels_poc_cuda
"$t" > "$o/t-poc-cuda.txt" 2>&1; echo "poc_cuda rc=$?"; grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$o/t-poc-cuda.txt"
(cd "$build" && meson test --no-rebuild elements_pocme > "$o/t-elements-pocme.txt" 2>&1; echo "elements_pocme rc=$?"; grep -E "^ *[0-9]+/" "$o/t-elements-pocme.txt")
for tool in memcheck racecheck initcheck synccheck; do
  timeout 120 "$san" --tool $tool --error-exitcode 99 "$t" --gtest_filter='PocCudaFinish.*:PocCuda.MatchesCpuOnShiftedTextures' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$?"; grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt"
done
for p in .gpu/old/libgstmotion.so "$build/gst/libgstmotion.so"; do
  for spec in "1080-64 3" "1080-64 2" "E-720-256 1"; do set -- $spec
    "$build/bench/bench_pipeline" --plugin "$p" --element pocme --backend cuda --case $1 --layers $2 --pipeline-depth 3 --frames 300 --runs 3 > "$o/el.log" 2>&1
    grep -E "^$1 +pocme" "$o/el.log" | sed "s|^|$(basename $(dirname $p)) L$2 |" | tee -a "$o/element.txt"
  done
done
for b in .gpu/old/bench_poc "$build/bench/bench_poc"; do
  for spec in "1080-64 3 shared-median" "E-720 1 shared-median" "1080-128 1 shared-median"; do set -- $spec
    "$b" --backend cuda --case $1 --layers $2 --coarse $3 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1[ -]" | sed "s|^|$(basename $(dirname $b)) $3 L$2 |" | tee -a "$o/poc.txt"
  done
done
cd "$out" && tar czf v7.tar.gz v && rm -rf v
