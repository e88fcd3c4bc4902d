#!/usr/bin/env bash
# Session 31, call 3 (H200): HEAD as committed (1d54782: the CostSlots
# refactor and the review's mend, never run on a GPU before): the whole
# suite, the four sanitizers on the stereo CUDA tests, and the speed next
# to libSGM (bench/libsgm-compare.sh, built here from its public source at
# e4c669b) in the same call, through the element as well.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
[ -e /usr/bin/gst-inspect-1.0 ] || ln -s /tmp/gst-runtime/usr/bin/gst-inspect-1.0 /usr/bin/gst-inspect-1.0
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=$build/tests/kernels/test_kernels_stereo_cuda
t0=$SECONDS
timeout 200 meson test -C "$build" --no-rebuild --num-processes 12 --print-errorlogs > "$o/suite.log" 2>&1
echo "suite rc=$? $((SECONDS-t0))s"; grep -E '^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:' "$o/suite.log" | grep -vE " OK " | head -20; grep -E '^(Ok|Fail|Skipped|Timeout):' "$o/suite.log"
cp "$build/meson-logs/testlog.txt" "$o/suite-testlog.txt" 2>/dev/null
grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$o/suite-testlog.txt" | sort | uniq -c
f='StereoCudaCosts.MatchesReference:StereoCudaCosts.PostFiltersOnWideRows:StereoCuda.MatchesReference'
for tool in memcheck racecheck initcheck synccheck; do
  STEREO_CUDA_SMALL=1 timeout 45 "$san" --tool $tool --error-exitcode 99 "$T" --gtest_filter="$f" > "$o/san-$tool.txt" 2>&1
  echo "$tool rc=$? $((SECONDS-t0))s: $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$tool.txt" | tr '\n' ' ')"
done
st=$build/bench/bench_stereo
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
fl() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for p in 8 4; do echo "== libSGM's settings, $p paths"; timeout 40 "$st" $com --paths $p | fl; echo "== defaults, $p paths"; timeout 40 "$st" $com --paths $p $def | fl; done
  timeout 60 .gpu/libsgm_bench --runs 200 | grep ^libsgm; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
pl=$build/bench/bench_pipeline
{ timeout 60 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  timeout 40 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'; echo "element $((SECONDS-t0))s"
cd "$out" && tar czf v3.tar.gz v && rm -rf v
