#!/usr/bin/env bash
# The SGM path kernel with bumped pointers and L2 prefetch: stereo CUDA tests,
# sanitizers, bench vs c312943 and the CTA-order experiment, libSGM, element, ncu.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L | tee "$o/gpu.txt"
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$?"; s "$o/t-el-st.txt"
for tool in memcheck initcheck racecheck synccheck; do
  STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool $tool --error-exitcode 99 --print-limit 20 \
    "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference:StereoCudaCosts.TsukubaSgmCensus:StereoCuda.PipelinedEqualsProcess' \
    > "$o/san-$tool.txt" 2>&1; echo "san $tool rc=$?"; s "$o/san-$tool.txt"
done
for b in c312943 order; do xz -d -c .gpu/bench_stereo_$b.xz > .gpu/bs_$b; chmod +x .gpu/bs_$b; done
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for p in 8 4; do
    echo "== c312943, libSGM's settings, $p paths"; .gpu/bs_c312943 $com --paths $p | f
    echo "== new, libSGM's settings, $p paths"; "$st" $com --paths $p | f
    echo "== new, defaults (median, LR 2, cost-window 3), $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3 | f
  done
  for od in 0 1 2 3; do echo "== order $od, 8 paths"; MATCH_SGM_ORDER=$od .gpu/bs_order $com --paths 8 | f; done
  echo "== new again, 8 paths"; "$st" $com --paths 8 | f
  echo "== libSGM"; .gpu/libsgm_bench --runs 200 | grep ^libsgm
} > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"
pl=$build/bench/bench_pipeline
{ "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set cost-window=1
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
one="--backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 --median --lr 2 --cost-window 3"
timeout 150 $ncu --launch-skip 30 --launch-count 12 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum $st $one > "$o/ncu.txt" 2>&1
grep -E '^  [a-zA-Z_].*\(|gpu__time|dram__' "$o/ncu.txt" | sed 's/  */ /g' | cut -c1-100
cd "$out" && tar czf v6.tar.gz v && rm -rf v
