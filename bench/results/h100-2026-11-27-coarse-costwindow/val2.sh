#!/usr/bin/env bash
# The sliding-window sgm_box_kernel: stereo CUDA tests, sanitizers, timing.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L > "$o/gpu.txt"
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$?"; s "$o/t-el-st.txt"
for tool in memcheck initcheck racecheck; do
  STEREO_CUDA_SMALL=1 timeout 120 "$san" --tool $tool --error-exitcode 99 --print-limit 20 \
    "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference:StereoCudaCosts.TsukubaSgmCensus' \
    > "$o/san-box-$tool.txt" 2>&1; echo "box $tool rc=$?"; s "$o/san-box-$tool.txt"
done
st=$build/bench/bench_stereo; com="--backend cuda --method sgm --cost census --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
xz -d -k .gpu/bench_stereo_5efff17.xz 2>/dev/null; chmod +x .gpu/bench_stereo_5efff17
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
{ for p in 8 4; do
    echo "== 5efff17 (before the cost window): libSGM's settings, $p paths"; .gpu/bench_stereo_5efff17 $com --paths $p
    echo "== libSGM's settings (LR 1, no median, cost-window 1), $p paths"; "$st" $com --paths $p
    echo "== defaults (median, LR 2, cost-window 3), $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3
    echo "== median, LR 2, cost-window 1, $p paths"; "$st" $com --paths $p --median --lr 2
  done
  echo "== libSGM"; .gpu/libsgm_bench --runs 200
} > "$o/b-stereo.txt" 2>&1
grep -E '^==|^(720p|1080p|custom|1024)|^libsgm' "$o/b-stereo.txt" | sed 's/cuda:0 (NVIDIA H100 80GB HBM3)//'
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
pl=$build/bench/bench_pipeline
{ "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 --set paths=4
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 --set cost-window=1
} > "$o/b-stereo-element.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-stereo-element.txt" | sed 's/cuda:0 (NVIDIA H100 80GB HBM3)//'
cd "$out" && tar czf v-box.tar.gz v && rm -rf v
