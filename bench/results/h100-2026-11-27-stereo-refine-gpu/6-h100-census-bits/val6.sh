#!/usr/bin/env bash
# The census kernel with constant bit positions (no 64-bit shift chain): tests,
# sanitizers, per-kernel times, benches next to libSGM, the element.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi -L
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:|compared' "$1"; }
t0=$SECONDS
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$? $((SECONDS-t0))s"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$? $((SECONDS-t0))s"; s "$o/t-el-st.txt"
for tool in memcheck; do
  STEREO_CUDA_SMALL=1 timeout 200 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference' > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"; s "$o/san-$tool.txt"
done
st=$build/bench/bench_stereo
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
timeout 120 $ncu --launch-count 60 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum $st --backend cuda --method sgm --cost census --case 1080p-128 --frames 1 --runs 1 --paths 8 $def > "$o/ncu.txt" 2>&1
python3 - "$o/ncu.txt" <<'PY'
import sys,re
cur=None; rows={}
for line in open(sys.argv[1]):
    m=re.match(r'^  (?:void )?([\w:<>, ]+?)(?:<.*)?\(', line)
    if m and 'Context' in line: cur=re.sub(r'.*::','',m.group(1)); continue
    m=re.match(r'^\s+(gpu__time_duration.sum|dram__bytes_read.sum|dram__bytes_write.sum|smsp__inst_executed.sum)\s+(\S+)\s+([\d.,]+)',line)
    if m and cur:
        v=float(m.group(3).replace(',','')); u=m.group(2)
        v = v/1000 if u in ('us','Mbyte') else v
        rows.setdefault(cur,{}).setdefault(m.group(1)[:10],[]).append(v)
for k,d in rows.items(): print('%-24s'%k, ' '.join('%s=%.4g'%(n,sorted(v)[len(v)//2]) for n,v in d.items()))
PY
echo "ncu $((SECONDS-t0))s"
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
cd "$out" && tar czf v6.tar.gz v && rm -rf v
