#!/usr/bin/env bash
# Session 30, call 1 (H200): the fused costs + cost window kernel (cost
# window 3, the default): tests, memcheck, speed next to the previous
# version (3c5440b, .gpu/old) in the same call.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; tar -C .gpu -xJf .gpu/old.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|compared|Failure' "$1" | head -20; }
t0=$SECONDS
timeout 70 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.*' > "$o/t-stereo-costs.txt" 2>&1; echo "tests rc=$? $((SECONDS-t0))s"; s "$o/t-stereo-costs.txt"
STEREO_CUDA_SMALL=1 timeout 50 "$san" --tool memcheck --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$? $((SECONDS-t0))s"; s "$o/san-memcheck.txt"
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3 --paths 8 $def"
f() { grep -E '^(720p|1080p)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ echo "== new, defaults, 8 paths"; timeout 30 "$build/bench/bench_stereo" $com | f
  echo "== 3c5440b, defaults, 8 paths"; timeout 30 .gpu/old/bench_stereo $com | f; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
pl=$build/bench/bench_pipeline
{ timeout 40 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3
  timeout 40 "$pl" --plugin .gpu/old/libgstmotion.so --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'; echo "element $((SECONDS-t0))s"
for v in new old; do b=$build/bench/bench_stereo; [ $v = old ] && b=.gpu/old/bench_stereo
  timeout 25 "$ncu" --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel "$b" --backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 $def > "$o/ncu-$v.txt" 2>&1
  grep -E "sgm_|stereo_|gpu__time" "$o/ncu-$v.txt" | grep -B1 "gpu__time" | grep -E "sgm_|stereo_|Average|gpu__" | sed 's/(.*//' | paste - - | awk -v v=$v '{print v, $1, $(NF-0), $(NF-1), $(NF-2)}' | head -20
done; echo "ncu $((SECONDS-t0))s"
cd "$out" && tar czf v1.tar.gz v && rm -rf v
