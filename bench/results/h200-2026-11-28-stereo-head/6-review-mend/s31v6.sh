#!/usr/bin/env bash
# Session 31, call 6 (H200): the review's mend (rounded_means shared by
# sgm_box_kernel and the fused window-3 kernel; PTX identical): the stereo
# CUDA tests, memcheck, and the speed with cost windows 3 (fused kernel)
# and 5 (sgm_box_kernel).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=$build/tests/kernels/test_kernels_stereo_cuda
t0=$SECONDS
timeout 120 "$T" > "$o/t-stereo-cuda.txt" 2>&1; echo "tests rc=$? $((SECONDS-t0))s"; grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$o/t-stereo-cuda.txt"; grep compared "$o/t-stereo-cuda.txt"
STEREO_CUDA_SMALL=1 timeout 60 "$san" --tool memcheck --error-exitcode 99 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$? $((SECONDS-t0))s: $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' "$o/san-memcheck.txt" | tr '\n' ' ')"
def="--p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3 --paths 8"
f() { grep -E '^(720p|1080p)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for cw in 3 5; do echo "== defaults, cost window $cw, 8 paths"; timeout 40 "$build/bench/bench_stereo" $com --cost-window $cw $def | f; done; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
cd "$out" && tar czf v6.tar.gz v && rm -rf v
