#!/usr/bin/env bash
# WTA: kAll and a float-based exact floor division; A/B against e7d81f2; ncu per kernel.
out=$1; mkdir -p "$out/x"; o=$out/x
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
nvidia-smi -L
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|Checks:' "$1"; }
"$build/tests/kernels/test_kernels_stereo_cuda" > "$o/t.txt" 2>&1; echo "stereo_cuda rc=$?"; s "$o/t.txt"
xz -d -c .gpu/bench_stereo_e7d81f2.xz > .gpu/bs_old; chmod +x .gpu/bs_old
st=$build/bench/bench_stereo
com="--backend cuda --method sgm --cost census --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for r in 1 2; do for p in 8 4; do
    echo "== e7d81f2, $p paths"; .gpu/bs_old $com --paths $p | f
    echo "== new, $p paths"; "$st" $com --paths $p | f
  done; done
  echo "== e7d81f2 defaults 8 paths"; .gpu/bs_old $com --paths 8 --median --lr 2 --cost-window 3 | f
  echo "== new defaults 8 paths"; "$st" $com --paths 8 --median --lr 2 --cost-window 3 | f
  echo "== libSGM"; .gpu/libsgm_bench --runs 200 | grep ^libsgm
} > "$o/b.txt" 2>&1
cat "$o/b.txt"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for b in .gpu/bs_old $st; do
  echo "== ncu $b"
  timeout 150 $ncu --launch-count 40 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__issue_active.avg.pct_of_peak_sustained_active $b --backend cuda --method sgm --cost census --case 1080p-128 --frames 1 --runs 1 --paths 8 --median --lr 2 --cost-window 3 > "$o/ncu.txt" 2>&1
  python3 - "$o/ncu.txt" <<'PY'
import sys,re
cur=None; rows={}
for line in open(sys.argv[1]):
    m=re.match(r'^  (?:void )?([\w:<>, ]+?)(?:<.*)?\(', line)
    if m and 'Context' in line: cur=re.sub(r'.*::','',m.group(1)); continue
    m=re.match(r'^\s+(gpu__time_duration.sum|dram__bytes_read.sum|dram__bytes_write.sum|smsp__issue_active\S*)\s+(\S+)\s+([\d.,]+)',line)
    if m and cur:
        v=float(m.group(3).replace(',','')); u=m.group(2)
        if u in ('us','usecond'): v/=1000
        if u in ('Mbyte',): v/=1000
        if u in ('Kbyte',): v/=1e6
        rows.setdefault(cur,[]).append((m.group(1)[:12],v))
for k,v in rows.items(): print(k, ' '.join('%s=%.3f'%x for x in v))
PY
done 2>&1 | tee "$o/ncu-sum.txt"
cd "$out" && tar czf x.tar.gz x && rm -rf x
