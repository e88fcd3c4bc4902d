#!/usr/bin/env bash
# Fused cost + cost-window kernel, sorting-network median: tests, sanitizers,
# bench against e7d81f2 and path-kernel variants, ncu per kernel, element.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L | tee "$o/gpu.txt"
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t-stereo_cuda.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t-stereo_cuda.txt"
"$build/tests/test_elements_stereodisparity" > "$o/t-el-st.txt" 2>&1; echo "el st rc=$?"; s "$o/t-el-st.txt"
for tool in memcheck initcheck racecheck synccheck; do
  STEREO_CUDA_SMALL=1 timeout 170 "$san" --tool $tool --error-exitcode 99 --print-limit 20 \
    "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter='StereoCudaCosts.MatchesReference:StereoCudaCosts.TsukubaSgmCensus:StereoCuda.PipelinedEqualsProcess' \
    > "$o/san-$tool.txt" 2>&1; echo "san $tool rc=$?"; s "$o/san-$tool.txt"
done
for b in e7d81f2 pf16 pf32 ldcs; do xz -d -c .gpu/bench_stereo_$b.xz > .gpu/bs_$b; chmod +x .gpu/bs_$b; done
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for r in 1 2; do
    for p in 8 4; do
      echo "== e7d81f2 defaults (median, LR 2, cost-window 3), $p paths"; .gpu/bs_e7d81f2 $com --paths $p --median --lr 2 --cost-window 3 | f
      echo "== new defaults, $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3 | f
    done
    echo "== new, libSGM's settings, 8 paths"; "$st" $com --paths 8 | f
    echo "== new, libSGM's settings, 4 paths"; "$st" $com --paths 4 | f
  done
  for v in pf16 pf32 ldcs; do echo "== $v, libSGM's settings, 8 paths"; .gpu/bs_$v $com --paths 8 | f; echo "== $v, 4 paths"; .gpu/bs_$v $com --paths 4 | f; done
  echo "== libSGM"; .gpu/libsgm_bench --runs 200 | grep ^libsgm
} > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
timeout 150 $ncu --launch-count 40 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum $st --backend cuda --method sgm --cost census --case 1080p-128 --frames 1 --runs 1 --paths 8 --median --lr 2 --cost-window 3 > "$o/ncu.txt" 2>&1
python3 - "$o/ncu.txt" <<'PY'
import sys,re
cur=None; rows={}
for line in open(sys.argv[1]):
    m=re.match(r'^  (?:void )?([\w:<>, ]+?)(?:<.*)?\(', line)
    if m and 'Context' in line: cur=re.sub(r'.*::','',m.group(1)); continue
    m=re.match(r'^\s+(gpu__time_duration.sum|dram__bytes_read.sum|dram__bytes_write.sum)\s+(\S+)\s+([\d.,]+)',line)
    if m and cur:
        v=float(m.group(3).replace(',','')); u=m.group(2)
        v = v/1000 if u in ('us','Mbyte') else v
        rows.setdefault(cur,{}).setdefault(m.group(1)[:10],[]).append(v)
for k,d in rows.items(): print('%-24s'%k, ' '.join('%s=%.3f'%(n,sorted(v)[len(v)//2]) for n,v in d.items()))
PY
pl=$build/bench/bench_pipeline
{ "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set cost-window=1
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'
cd "$out" && tar czf v7.tar.gz v && rm -rf v
