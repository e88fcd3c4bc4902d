#!/usr/bin/env bash
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$?"; s "$o/t-el-st.txt"
STEREO_CUDA_SMALL=1 timeout 120 "$san" --tool memcheck --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$?"; s "$o/san-memcheck.txt"
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
for p in 8 4; do echo "== libSGM's settings, $p paths"; "$st" $com --paths $p | f; echo "== defaults, $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3 | f; done
.gpu/libsgm_bench --runs 200 | grep ^libsgm
pl=$build/bench/bench_pipeline
"$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 | grep -E '^(720p|1080p)'
"$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4 | grep -E '^(720p|1080p)'
cd "$out" && tar czf v8.tar.gz v && rm -rf v
