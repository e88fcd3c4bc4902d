#!/usr/bin/env bash
out=$1; mkdir -p "$out/g"; o=$out/g
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
nvidia-smi -L
t=$build/tests/kernels/test_kernels_stereo_cuda
MATCH_SGM_PF=8 MATCH_SGM_ORDER=2 $t > "$o/t1.txt" 2>&1; echo "test pf8 o2 rc=$?"; grep -E '^\[  (PASSED|FAILED)' "$o/t1.txt"
MATCH_SGM_PF=0 $t --gtest_filter='StereoCudaCosts.*' > "$o/t2.txt" 2>&1; echo "test pf0 rc=$?"; grep -E '^\[  (PASSED|FAILED)' "$o/t2.txt"
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 40 --runs 3"
run() { local e=$1; shift; echo "== $e $*"; for p in 8 4; do env $e "$st" $com --paths $p "$@" | grep -E '^(1080p|720p|custom|1024)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; done; }
{
for pf in 0 4 8 16; do run MATCH_SGM_PF=$pf; done
for od in 2 3; do run "MATCH_SGM_ORDER=$od MATCH_SGM_PF=8"; done
run MATCH_SGM_PF=8 --median --lr 2 --cost-window 3
} > "$o/b.txt" 2>&1
cat "$o/b.txt"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
one="--backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8"
MATCH_SGM_PF=8 timeout 200 $ncu --kernel-name regex:'sgm_(path|wta)' --launch-skip 2 --launch-count 2 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats $st $one > "$o/ncu-full.txt" 2>&1
grep -vE '^ *-+ *$|^ *$' "$o/ncu-full.txt" | grep -E 'sgm_|Duration|Throughput|Issued Ipc|Eligible|Executed Instructions  ' | cut -c1-120 | head -40
.gpu/libsgm_bench --runs 200 2>&1 | grep ^libsgm
cd "$out" && tar czf g.tar.gz g && rm -rf g
