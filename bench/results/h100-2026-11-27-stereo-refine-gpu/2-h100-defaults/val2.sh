#!/usr/bin/env bash
# The element's new stereo defaults on the H100: the whole suite, the
# sanitizers on the stereo post-filters, per-kernel times, the benches next
# to libSGM, and the element.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz; mkdir -p "$build/meson-logs"
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
[ -e /usr/bin/gst-inspect-1.0 ] || ln -s /tmp/gst-runtime/usr/bin/gst-inspect-1.0 /usr/bin/gst-inspect-1.0
export GST_TEST_FILES_PATH=$PWD/tests/files MATCH_BENCH_FRAMES=$PWD/.gpu/frames
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi -L
s() { grep -E '^\[  (PASSED|SKIPPED|FAILED) |^\[  FAILED|ERROR SUMMARY|RACECHECK SUMMARY|Checks:' "$1"; }
t0=$SECONDS
meson test -C "$build" --no-rebuild --num-processes 8 --print-errorlogs > "$o/suite.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:' "$o/suite.log" | grep -vE ' OK ' ; echo "suite $((SECONDS-t0))s"
cp "$build/meson-logs/testlog.txt" "$o/suite-testlog.txt"
grep -E '^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$o/suite-testlog.txt" | sort | uniq -c
flt='StereoCudaCosts.PostFiltersOnWideRows:StereoCudaCosts.PipelinedConversionsAndSpeckle:StereoCuda.Errors:StereoCuda.PipelinedEqualsProcess'
for tool in memcheck racecheck initcheck synccheck; do
  STEREO_CUDA_SMALL=1 timeout 150 "$san" --tool $tool --error-exitcode 99 "$build/tests/kernels/test_kernels_stereo_cuda" --gtest_filter="$flt" > "$o/san-$tool.txt" 2>&1; echo "$tool rc=$? $((SECONDS-t0))s"; s "$o/san-$tool.txt"
done
GST_CHECKS=test_fill_and_joint_median,test_matches_reference timeout 200 "$san" --tool memcheck --error-exitcode 99 "$build/tests/test_elements_stereodisparity" > "$o/san-element-memcheck.txt" 2>&1; echo "element memcheck rc=$? $((SECONDS-t0))s"; s "$o/san-element-memcheck.txt"
st=$build/bench/bench_stereo
def="--cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
timeout 120 $ncu --launch-count 60 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum $st --backend cuda --method sgm --cost census --case 1080p-128 --frames 1 --runs 1 --paths 8 $def > "$o/ncu.txt" 2>&1
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
echo "ncu $((SECONDS-t0))s"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case 720p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
f() { grep -E '^(720p|1080p|custom)' | sed 's/cuda  cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)  *- *//'; }
{ for p in 8 4; do echo "== libSGM's settings, $p paths"; "$st" $com --paths $p | f; echo "== defaults, $p paths"; "$st" $com --paths $p $def | f;
  echo "== defaults of 2026-11-27, $p paths"; "$st" $com --paths $p --median --lr 2 --cost-window 3 | f; done
  .gpu/libsgm_bench --runs 200 | grep ^libsgm; } > "$o/b-stereo.txt" 2>&1
cat "$o/b-stereo.txt"
pl=$build/bench/bench_pipeline
{ "$pl" --element stereodisparity --backend cuda --pipeline-depth 0 --pipeline-depth 3 --case 720p-128 --case 1080p-128 --frames 300 --runs 3
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set paths=4
  "$pl" --element stereodisparity --backend cuda --pipeline-depth 3 --case 1080p-128 --frames 300 --runs 3 --set fill-invalid=false --set joint-median=0 --set p2-edge=0 --set lr-max-diff=2
  "$pl" --element stereodisparity --backend cpu --case 720p-128 --frames 20 --runs 3
} > "$o/b-el.txt" 2>&1
grep -E '^(720p|1080p)' "$o/b-el.txt" | sed 's/cuda:0 (NVIDIA H[0-9]* *[A-Z0-9 ]*)//'
echo "total $((SECONDS-t0))s"
cd "$out" && tar czf v2.tar.gz v && rm -rf v
