#!/usr/bin/env bash
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
git log --oneline -1 > "$o/gpu.txt"; nvidia-smi -L >> "$o/gpu.txt"
"$build/tests/kernels/test_kernels_cuda" > "$o/t-kernels_cuda.txt" 2>&1; echo "kernels_cuda rc=$?"
grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$o/t-kernels_cuda.txt"
"$build/tests/test_elements_blockmatchme" > "$o/t-el-bm.txt" 2>&1; echo "el bm rc=$?"; grep Checks "$o/t-el-bm.txt"
timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 "$build/tests/kernels/test_kernels_cuda" \
  --gtest_filter='CudaFast.Predictive*:Sizes/CudaFastVsCpu.IdenticalVectors/0:Sizes/CudaFastVsCpu.IdenticalVectors/3' > "$o/san-memcheck.txt" 2>&1
echo "memcheck rc=$?"; grep -E 'ERROR SUMMARY|PASSED' "$o/san-memcheck.txt"
"$build/bench/bench_fast" --backend cuda --method full --method hierarchical --method diamond --method predictive --pairs 30 --runs 5 > "$o/b-fast.txt" 2>&1
grep -E '^(B-|1080|2160)' "$o/b-fast.txt"
cd "$out" && tar czf v-mend.tar.gz v && rm -rf v
