#!/usr/bin/env bash
out=$1; mkdir -p "$out/f"; o=$out/f
build=$(cat .gpu/payload.build)
[ -x "$build/bench/bench_stereo" ] || tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
st=$build/bench/bench_stereo
cob=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump)
$cob -sass $st > "$o/all.sass" 2>&1
python3 - "$o/all.sass" > "$o/kernels.sass" <<'PY'
import sys,re
s=open(sys.argv[1]).read().split('Function : ')
for f in s[1:]:
    name=f.split('\n',1)[0]
    if ('sgm_path_kernelILi4EhLb1ELb0' in name) or ('sgm_wta_kernelILi4EhLi8' in name):
        print('Function : '+f)
PY
wc -l "$o/kernels.sass"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
one="--backend cuda --method sgm --cost census --case 1080p-128 --frames 2 --runs 1 --paths 8"
MATCH_SGM_PF=8 timeout 200 $ncu --kernel-name regex:'sgm_(path|wta)' --launch-skip 2 --launch-count 2 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis --section InstructionStats $st $one > "$o/ncu-full.txt" 2>&1
grep -vE '^ *-+ *$|^ *$' "$o/ncu-full.txt" | grep -E 'sgm_|Duration|Throughput|Issued|Executed Ipc|Eligible|Active Warps|No Eligible|Stall|Occupancy|Registers|Warp Cycles|Instructions|Bandwidth|Hit' | cut -c1-120 | head -120
cd "$out" && tar czf f.tar.gz f && rm -rf f
