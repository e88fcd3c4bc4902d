#!/usr/bin/env bash
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:|invalid after' "$1"; }
t0=$SECONDS
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$? $((SECONDS-t0))s"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$? $((SECONDS-t0))s"; s "$o/t-el-st.txt"
flt='StereoCudaCosts.PostFiltersOnWideRows:StereoCudaCosts.PipelinedConversionsAndSpeckle:StereoCuda.Errors'
for tool in memcheck racecheck initcheck synccheck; do
  STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter="$flt" > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"; s "$o/san-$tool.txt" | grep -v invalid
done
STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool memcheck --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-memcheck-costs.txt" 2>&1; echo "memcheck costs rc=$? $((SECONDS-t0))s"; s "$o/san-memcheck-costs.txt"
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3 --paths 8 --median --cost-window 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
echo "== defaults"; "$st" $com --lr 2 | f
echo "== refined (p2-edge 32, lr 1, fill, joint median 3/16)"; "$st" $com --lr 1 --p2-edge 32 --fill --joint-median 3 | f
echo "== refined, joint median 5"; "$st" $com --lr 1 --p2-edge 32 --fill --joint-median 5 | f
echo "== fill only"; "$st" $com --lr 2 --fill | f
pl=$build/bench/bench_pipeline
"$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 | grep -E '^(720p|1080p)'
"$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 --set p2-edge=32 --set lr-max-diff=1 --set fill-invalid=true --set joint-median=3 | grep -E '^(720p|1080p)'
echo "total $((SECONDS-t0))s"
cd "$out" && tar czf v1.tar.gz v && rm -rf v
