#!/usr/bin/env bash
# Session 31, call 1 (H200): the path kernel with two lines per warp (16
# lanes, 2 PER disparities a lane; MATCH_SGM_PATH_LANES=32: the warp per
# line as before, same binary; experiment.patch): tests, memcheck,
# synccheck, speed A/B, Nsight Compute per kernel and the heavy kernels'
# sections. (Rewritten from the session's edits after the call; the
# commands are the ones that ran.)
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
T=$build/tests/kernels/test_kernels_stereo_cuda
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|Failure' "$1" | head -20; }
t0=$SECONDS
timeout 150 "$T" > "$o/t-all.txt" 2>&1; echo "tests (16 lanes) rc=$? $((SECONDS-t0))s"; s "$o/t-all.txt"
MATCH_SGM_PATH_LANES=32 timeout 60 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/t-32.txt" 2>&1; echo "tests (32 lanes) rc=$? $((SECONDS-t0))s"; s "$o/t-32.txt"
for tool in memcheck synccheck; do
STEREO_CUDA_SMALL=1 timeout 60 "$san" --tool $tool --error-exitcode 99 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"; s "$o/san-$tool.txt"
done
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
B=$build/bench/bench_stereo
{ for l in 16 32; do
  echo "== lanes $l, defaults, 8 paths"; MATCH_SGM_PATH_LANES=$l timeout 30 "$B" $com --paths 8 $def | f
  echo "== lanes $l, libSGM's settings, 8 paths"; MATCH_SGM_PATH_LANES=$l timeout 30 "$B" $com --paths 8 --lr 1 --subpixel 1 | f
  echo "== lanes $l, defaults, 4 paths"; MATCH_SGM_PATH_LANES=$l timeout 30 "$B" $com --paths 4 $def | f
done; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
pl=$build/bench/bench_pipeline
for l in 16 32; do MATCH_SGM_PATH_LANES=$l timeout 40 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 > "$o/b-el-$l.txt" 2>&1
  echo "element lanes $l: $(grep -E '^(720p|1080p)' "$o/b-el-$l.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//')"; done; echo "element $((SECONDS-t0))s"
for l in 16 32; do
  MATCH_SGM_PATH_LANES=$l timeout 30 "$ncu" --clock-control none --metrics gpu__time_duration.sum,dram__bytes.sum,smsp__inst_executed.sum --print-summary per-kernel "$B" --backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 $def > "$o/ncu-$l.txt" 2>&1
  grep -E "sgm_|stereo_|census|joint|gpu__time|dram__bytes|inst_executed" "$o/ncu-$l.txt" | grep -vE "^==|Section" | sed -E "s/\(SgmArgs.*|\(match.*//; s/  +/ /g" | head -40
done; echo "ncu $((SECONDS-t0))s"
MATCH_SGM_PATH_LANES=16 timeout 100 "$ncu" --clock-control none -k 'regex:sgm_path|sgm_wta|box3|joint_median' -c 4 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats "$B" --backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 $def > "$o/ncu-sections.txt" 2>&1
echo "sections rc=$? $((SECONDS-t0))s"; grep -E "sgm_|joint|Duration|Throughput|Issue Slots|Stall|Warp Cycles|Achieved Occ|Registers" "$o/ncu-sections.txt" | head -60
cd "$out" && tar czf v1.tar.gz v && rm -rf v
