#!/usr/bin/env bash
# SGM path-kernel experiment: L2 prefetch distance, CTA order, load mode.
out=$1; mkdir -p "$out/e"; o=$out/e
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
nvidia-smi -L > "$o/gpu.txt"
t=$build/tests/kernels/test_kernels_stereo_cuda
MATCH_SGM_PF=16 MATCH_SGM_ORDER=1 MATCH_SGM_LD=1 $t > "$o/t1.txt" 2>&1; echo "test pf16 o1 ld1 rc=$?"; grep -E '^\[  (PASSED|FAILED)' "$o/t1.txt"
MATCH_SGM_PF=8 MATCH_SGM_ORDER=2 MATCH_SGM_LD=2 $t > "$o/t2.txt" 2>&1; echo "test pf8 o2 ld2 rc=$?"; grep -E '^\[  (PASSED|FAILED)' "$o/t2.txt"
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 40 --runs 3"
run() { echo "== $*"; env "$@" "$st" $com --paths 8 | grep -E '^(1080p|custom|1024)' | sed 's/cuda:0 (NVIDIA H100 80GB HBM3)//'; env "$@" "$st" $com --paths 4 | grep -E '^(1080p|custom|1024)' | sed 's/cuda:0 (NVIDIA H100 80GB HBM3)//'; }
{
run MATCH_SGM_PF=0
for pf in 2 4 8 16 32; do run MATCH_SGM_PF=$pf; done
for ld in 1 2; do run MATCH_SGM_LD=$ld; done
for od in 1 2 3; do run MATCH_SGM_ORDER=$od MATCH_SGM_LD=1; run MATCH_SGM_ORDER=$od MATCH_SGM_LD=1 MATCH_SGM_PF=8; done
run MATCH_SGM_PF=0
} > "$o/b.txt" 2>&1
cat "$o/b.txt"
.gpu/libsgm_bench --runs 200 > "$o/libsgm.txt" 2>&1; tail -5 "$o/libsgm.txt"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
one="--backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8"
for v in "MATCH_SGM_PF=0" "MATCH_SGM_PF=8" "MATCH_SGM_ORDER=1 MATCH_SGM_LD=1" "MATCH_SGM_ORDER=1 MATCH_SGM_LD=1 MATCH_SGM_PF=8"; do
  echo "== ncu $v"
  env $v timeout 120 $ncu --kernel-name regex:sgm_ --launch-skip 4 --launch-count 4 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct $st $one 2>&1 | grep -E 'sgm_|gpu__time|dram__|lts__' | sed 's/  */ /g' | cut -c1-110
done > "$o/ncu.txt" 2>&1
cat "$o/ncu.txt"
cd "$out" && tar czf e.tar.gz e && rm -rf e
