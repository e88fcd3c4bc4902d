#!/usr/bin/env bash
# Session 29, call 5 (H200): the candidate check's threads per block
# (MATCH_POC_CHECK_PX pixels a thread, a temporary experiment switch), and
# issue 17's stereo figures on this GPU next to libSGM (no stereo change
# since the H100 runs of 2026-11-27).
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
t0=$SECONDS
for px in 8 4 2 1; do
  for spec in "1080-64 3" "E-720 1"; do set -- $spec
    MATCH_POC_CHECK_PX=$px "$build/bench/bench_poc" --backend cuda --case $1 --layers $2 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1[ -]" | sed "s|^|px $px L$2 |" | tee -a "$o/check-px.txt"
    MATCH_POC_CHECK_PX=$px MATCH_POC_GRAPH=0 "$ncu" --clock-control none -k regex:poc_check_kernel --metrics gpu__time_duration.sum "$build/bench/bench_poc" --backend cuda --case $1 --layers $2 --frames 4 --runs 1 --no-verify 2>&1 | grep gpu__time | awk -v px=$px -v c=$1 '{print "ncu px " px " " c " check us " $3}' | sort | uniq -c | tee -a "$o/check-px-ncu.txt" | head -3
  done
done
echo "poc $((SECONDS-t0))s"
st=$build/bench/bench_stereo
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for p in 8 4; do echo "== libSGM's settings, $p paths"; "$st" $com --paths $p | f; echo "== defaults, $p paths"; "$st" $com --paths $p $def | f; done
  .gpu/libsgm_bench --runs 200 | grep ^libsgm; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"
pl=$build/bench/bench_pipeline
{ "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'
echo "stereo done $((SECONDS-t0))s"
cd "$out" && tar czf v5.tar.gz v && rm -rf v
