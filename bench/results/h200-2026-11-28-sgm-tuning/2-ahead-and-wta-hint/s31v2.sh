#!/usr/bin/env bash
# Session 31, call 2 (H200): the path kernel's costs loaded kAhead steps
# ahead in registers (MATCH_SGM_AHEAD 1 = before, default 2, 3, 4) and
# the WTA's loads with the L2::256B prefetch size (MATCH_SGM_WTA_HINT):
# tests, memcheck, speed A/B, Nsight Compute per kernel.
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
timeout 80 "$T" --gtest_filter='StereoCudaCosts.MatchesReference:StereoCuda.*' > "$o/t-ahead2.txt" 2>&1; echo "tests ahead 2 rc=$? $((SECONDS-t0))s"; s "$o/t-ahead2.txt"
for v in "MATCH_SGM_AHEAD=3" "MATCH_SGM_AHEAD=4" "MATCH_SGM_WTA_HINT=1"; do
  env $v STEREO_CUDA_SMALL=1 timeout 40 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/t-$v.txt" 2>&1; echo "tests $v rc=$? $((SECONDS-t0))s"; s "$o/t-$v.txt"; done
STEREO_CUDA_SMALL=1 timeout 60 "$san" --tool memcheck --error-exitcode 99 "$T" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-memcheck.txt" 2>&1; echo "memcheck rc=$? $((SECONDS-t0))s"; s "$o/san-memcheck.txt"
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
B=$build/bench/bench_stereo
{ for v in "MATCH_SGM_AHEAD=1" "MATCH_SGM_AHEAD=2" "MATCH_SGM_AHEAD=3" "MATCH_SGM_AHEAD=4" "MATCH_SGM_AHEAD=2 MATCH_SGM_WTA_HINT=1" "MATCH_SGM_AHEAD=3 MATCH_SGM_WTA_HINT=1"; do
  echo "== $v, defaults, 8 paths"; env $v timeout 30 "$B" $com --paths 8 $def | f
  echo "== $v, libSGM's settings, 8 paths"; env $v timeout 30 "$B" $com --paths 8 --lr 1 --subpixel 1 | f
  echo "== $v, defaults, 4 paths"; env $v timeout 30 "$B" $com --paths 4 $def | f
done; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"; echo "bench $((SECONDS-t0))s"
pl=$build/bench/bench_pipeline
for v in "MATCH_SGM_AHEAD=1" "MATCH_SGM_AHEAD=2" "MATCH_SGM_AHEAD=3" "MATCH_SGM_AHEAD=3 MATCH_SGM_WTA_HINT=1"; do env $v timeout 40 "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 > "$o/b-el-${v// /_}.txt" 2>&1
  echo "element $v: $(grep -E '^(720p|1080p)' "$o/b-el-${v// /_}.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//')"; done; echo "element $((SECONDS-t0))s"
for v in "MATCH_SGM_AHEAD=1" "MATCH_SGM_AHEAD=2" "MATCH_SGM_AHEAD=3" "MATCH_SGM_AHEAD=4" "MATCH_SGM_WTA_HINT=1"; do
  env $v timeout 30 "$ncu" --clock-control none -k 'regex:sgm_path|sgm_wta' --metrics gpu__time_duration.sum,dram__bytes.sum,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct --print-summary per-kernel "$B" --backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8 $def > "$o/ncu-${v// /_}.txt" 2>&1
  echo "== $v"; grep -E "sgm_|gpu__time|dram__bytes|inst_executed|hit_rate" "$o/ncu-${v// /_}.txt" | grep -vE "^==" | sed -E "s/\(SgmArgs.*//; s/  +/ /g" | head -12
done; echo "ncu $((SECONDS-t0))s"
cd "$out" && tar czf v2.tar.gz v && rm -rf v
