#!/usr/bin/env bash
# Session 31, call 5 (H200): the path kernel without the L2 prefetch and
# with a deeper register ring instead (MATCH_SGM_AHEAD: 1 = HEAD (1 ahead
# + prefetch 8), 2 (+ prefetch 8), 4 and 6 without prefetch, 11 = 1 ahead
# without prefetch): tests, speed, Nsight Compute (the L2 being the limit,
# the prefetch doubles the L2 requests for the cost reads).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
T=$build/tests/kernels/test_kernels_stereo_cuda
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|Failure' "$1" | head -20; }
t0=$SECONDS
for v in 4 6 11; do
  MATCH_SGM_AHEAD=$v STEREO_CUDA_SMALL=1 timeout 40 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/t-ahead$v.txt" 2>&1; echo "tests ahead $v rc=$? $((SECONDS-t0))s"; s "$o/t-ahead$v.txt"; done
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
B=$build/bench/bench_stereo
{ for v in 1 4 6 11 2 1; do
  echo "== ahead $v, defaults, 8 paths"; MATCH_SGM_AHEAD=$v timeout 30 "$B" $com --paths 8 $def | f
  echo "== ahead $v, defaults, 4 paths"; MATCH_SGM_AHEAD=$v timeout 30 "$B" $com --paths 4 $def | f
done; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
for v in 1 4 6 11; do
  MATCH_SGM_AHEAD=$v timeout 30 "$ncu" --clock-control none -k 'regex:sgm_path' --metrics gpu__time_duration.sum,dram__bytes.sum,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed --print-summary per-kernel "$B" --backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 $def > "$o/ncu-ahead$v.txt" 2>&1
  echo "== ahead $v"; grep -E "sgm_|gpu__time|dram__bytes|inst_executed|hit_rate|lts__" "$o/ncu-ahead$v.txt" | grep -vE "^==" | sed -E "s/\(SgmArgs.*//; s/  +/ /g" | head -8
done; echo "ncu $((SECONDS-t0))s"
pl=$build/bench/bench_pipeline
for v in 1 4; do MATCH_SGM_AHEAD=$v timeout 40 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 > "$o/b-el-ahead$v.txt" 2>&1
  echo "element ahead $v: $(grep -E '^(720p|1080p)' "$o/b-el-ahead$v.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//')"; done; echo "element $((SECONDS-t0))s"
cd "$out" && tar czf v5.tar.gz v && rm -rf v
