#!/usr/bin/env bash
# Session 31, call 4 (H200): HEAD (1d54782) again: the suite's tests that
# call 3's 200 s limit cut off (kernels_stereo_cuda first, alone), then
# racecheck on two stereo CUDA tests (SGM on tsukuba, the refinements) (call 3's ran past its 45 s).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
[ -e /usr/bin/gst-inspect-1.0 ] || ln -s /tmp/gst-runtime/usr/bin/gst-inspect-1.0 /usr/bin/gst-inspect-1.0
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=$build/tests/kernels/test_kernels_stereo_cuda
t0=$SECONDS
timeout 150 meson test -C "$build" --no-rebuild --print-errorlogs kernels_stereo_cuda kernels_disparity_output_cuda > "$o/suite-cuda.log" 2>&1
echo "stereo/disparity cuda rc=$? $((SECONDS-t0))s"; grep -E '^ *[0-9]+/[0-9]+ ' "$o/suite-cuda.log"
cp "$build/meson-logs/testlog.txt" "$o/suite-cuda-testlog.txt"
grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$o/suite-cuda-testlog.txt"
timeout 150 meson test -C "$build" --no-rebuild --num-processes 8 --print-errorlogs inspect_blockmatchme inspect_mvexport inspect_mvmetastream inspect_mvmqttsink inspect_mvoverlay inspect_pocme inspect_stereodisparity install kernels_disparity_output loading predictive_vs_epzs python_example readme_launch_lines stereo_accuracy tools_mvsummary > "$o/suite-rest.log" 2>&1
echo "rest rc=$? $((SECONDS-t0))s"; grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):' "$o/suite-rest.log"
STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool racecheck --error-exitcode 99 "$T" --gtest_filter='StereoCudaCosts.TsukubaSgmCensus:StereoCudaCosts.PostFiltersOnWideRows' > "$o/san-racecheck.txt" 2>&1
echo "racecheck rc=$? $((SECONDS-t0))s: $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-racecheck.txt" | tr '\n' ' ')"
cd "$out" && tar czf v4.tar.gz v && rm -rf v
