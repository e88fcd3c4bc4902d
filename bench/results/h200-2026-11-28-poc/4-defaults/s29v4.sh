#!/usr/bin/env bash
# Session 29, call 4 (H200): the new defaults (layers 3, coarse
# shared-median): the whole suite, the speed through the element at the
# defaults and at [E]'s 2-layer search, old (ba4fddc) plugin and matcher
# in the same run.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
GPU_STEPS=tests bash tools/gpu-validate.sh "$o/suite" > "$o/suite.txt" 2>&1; echo "suite rc=$?"; tail -12 "$o/suite.txt"
tar -xJf .gpu/old.tar.xz -C .gpu
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export LD_LIBRARY_PATH=$PWD/$build/gst/motionvectors:${LD_LIBRARY_PATH:-}
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
for p in .gpu/old/libgstmotion.so "$build/gst/libgstmotion.so"; do
  for spec in "1080-64 3" "1080-64 2" "E-720-256 1" "E-720-256 3"; do set -- $spec
    "$build/bench/bench_pipeline" --plugin "$p" --element pocme --backend cuda --case $1 --layers $2 --pipeline-depth 3 --frames 300 --runs 3 > "$o/el.log" 2>&1
    grep -E "^$1 +pocme" "$o/el.log" | sed "s|^|$(basename $(dirname $p)) default-coarse L$2 |" | tee -a "$o/element.txt"
  done
done
for b in .gpu/old/bench_poc "$build/bench/bench_poc"; do
  for spec in "1080-64 3 shared-median" "1080-64 2 per-block" "E-720 1 shared-median" "E-720 3 shared-median"; do set -- $spec
    "$b" --backend cuda --case $1 --layers $2 --coarse $3 --depth 3 --frames 40 --runs 3 2>&1 | grep -E "^$1[ -]" | sed "s|^|$(basename $(dirname $b)) $3 L$2 |" | tee -a "$o/poc.txt"
  done
done
cd "$out" && tar czf v4.tar.gz v && rm -rf v
