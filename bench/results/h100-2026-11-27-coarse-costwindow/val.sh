#!/usr/bin/env bash
# Issues 17 and 19 on one GPU: PART=tests (CUDA tests, sanitizers) or
# PART=bench (stereo kernels next to libSGM, the element, predictive).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
[ -e /usr/bin/gst-inspect-1.0 ] || ln -s /tmp/gst-runtime/usr/bin/gst-inspect-1.0 /usr/bin/gst-inspect-1.0
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L > "$o/gpu.txt"; git log --oneline -1 >> "$o/gpu.txt"
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
if [ "$PART" = tests ]; then
  "$build/tests/kernels/test_kernels_cuda" > "$o/t-kernels_cuda.txt" 2>&1; echo "kernels_cuda rc=$?"; s "$o/t-kernels_cuda.txt"
  "$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t-stereo_cuda.txt"
  STEREO_CUDA_TIMING=1 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.SgmTiming' > "$o/t-stereo_timing.txt" 2>&1
  "$build/tests/test_elements_blockmatchme" > "$o/t-el-bm.txt" 2>&1; echo "el bm rc=$?"; s "$o/t-el-bm.txt"
  "$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$?"; s "$o/t-el-st.txt"
  pf='CudaFast.Predictive*:CudaFast.SeveralEnginesEqualCpu:CudaFast.ReconfigureBetweenFullAndFast:Sizes/CudaFastVsCpu.IdenticalVectors/0:Sizes/CudaFastVsCpu.IdenticalVectors/3:Sizes/CudaFastVsCpu.IdenticalVectors/6:Sizes/CudaFastVsCpu.IdenticalVectors/7'
  for tool in memcheck initcheck; do
    timeout 150 "$san" --tool $tool --error-exitcode 99 --print-limit 20 "$build/tests/kernels/test_kernels_cuda" \
      --gtest_filter="$pf" > "$o/san-pred-$tool.txt" 2>&1; echo "pred $tool rc=$?"; s "$o/san-pred-$tool.txt"
  done
  for tool in memcheck initcheck synccheck; do
    STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool $tool --error-exitcode 99 --print-limit 20 \
      "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.*:StereoCuda.PipelinedEqualsProcess' \
      > "$o/san-stereo-$tool.txt" 2>&1; echo "stereo $tool rc=$?"; s "$o/san-stereo-$tool.txt"
  done
  STEREO_CUDA_SMALL=1 timeout 100 "$san" --tool racecheck --error-exitcode 99 --print-limit 20 \
    "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' \
    > "$o/san-stereo-racecheck.txt" 2>&1; echo "stereo racecheck rc=$?"; s "$o/san-stereo-racecheck.txt"
else
  st=$build/bench/bench_stereo; com="--backend cuda --method sgm --cost census --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
  { for p in 8 4; do
      echo "== libSGM's settings (LR 1, no median, cost-window 1), $p paths"; "$st" $com --paths $p
      echo "== defaults (median, LR 2, cost-window 3), $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3
    done
    echo "== libSGM"; .gpu/libsgm_bench --runs 200
  } > "$o/b-stereo.txt" 2>&1
  grep -E '^==|^(720p|1080p|custom|1024)|^libsgm' "$o/b-stereo.txt"
  pl=$build/bench/bench_pipeline
  { "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
    "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 --set paths=4
    "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3 --set cost-window=1
  } > "$o/b-stereo-element.txt" 2>&1
  grep -E '^(720p|1080p)' "$o/b-stereo-element.txt"
  for tf in "" --two-frames; do
    "$build/bench/bench_fast" --backend cuda --method full --method diamond --method hexagon --method predictive \
      --pairs 30 --runs 5 $tf > "$o/b-fast${tf}.txt" 2>&1; grep -E '^(B-|1080|2160)' "$o/b-fast${tf}.txt"
  done
  "$build/bench/bench_element" --fast-cases --case 1080-r32 --method diamond --method predictive --backend cuda \
    --runs 3 --pipeline-depth 0 --pipeline-depth 3 > "$o/b-fast-element.txt" 2>&1; grep -E '^1080' "$o/b-fast-element.txt"
fi
cd "$out" && tar czf "v-$PART.tar.gz" v && rm -rf v
