#!/usr/bin/env bash
# Same call, same frames: bench_stereo before the cost window (5efff17) and now, alternating.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
xz -d -k .gpu/bench_stereo_5efff17.xz .gpu/bench_stereo_new_sameopts.xz 2>/dev/null; chmod +x .gpu/bench_stereo_5efff17 .gpu/bench_stereo_new_sameopts
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$o/gpu.txt"
com="--backend cuda --method sgm --cost census --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 --frames 50 --runs 3"
{ for round in 1 2; do
    for bin in .gpu/bench_stereo_5efff17 .gpu/bench_stereo_new_sameopts "$build/bench/bench_stereo"; do
      for p in 8 4; do
        echo "== $bin round $round: libSGM's settings, $p paths"; "$bin" $com --paths $p
      done
    done
  done
  echo "== libSGM"; .gpu/libsgm_bench --runs 200
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
} > "$o/b-old-new.txt" 2>&1
grep -E '^==|^(1080p|custom)|^libsgm|^NVIDIA|^name' "$o/b-old-new.txt" | sed 's/cuda:0 (NVIDIA H100 80GB HBM3)//'
cat "$o/gpu.txt"
cd "$out" && tar czf v-oldnew.tar.gz v && rm -rf v
