#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Speed before and after a change, in one run on one machine: the same
# benchmarks against two builds, alternated (before, after, before, after)
# so that drift shows as the spread between the two rounds.
#
#   bench/compare.sh gpu|cpu BEFORE_BUILD AFTER_BUILD [LOGDIR]
#
# Through the elements, the after build's bench programs load each build's
# plugin (--plugin), so only the plugin differs; at the matcher level each
# build's own bench_poc / bench_stereo run.
#   gpu: blockmatchme 1080p +-16 integer and +-32 half-pel (bench_element,
#        pipeline-depth 0 and 3), stereodisparity 1080p/128 and pocme
#        1080p N=64 and [E]'s 720p case through the element (bench_pipeline,
#        depth 0 and 3 where the element has it), bench_poc and
#        bench_stereo's 1080p rows.
#   cpu: bench_element's CPU comparison at 1280x720 (1 thread and all) and
#        the 1080p/128 stereo row on the CPU (pocme's CPU rows take seconds
#        per frame: bench_poc times its matcher).
# LOGDIR (default compare-out) gets one log per program, build and round.
set -eu
mode=${1:?usage: compare.sh gpu|cpu BEFORE_BUILD AFTER_BUILD [LOGDIR]}
before=${2:?before build}
after=${3:?after build}
log=${4:-compare-out}
mkdir -p "$log"
frames=${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}

run() { # name build command...
  name=$1; shift
  echo "== $name" >&2
  "$@" > "$log/$name.txt" 2>&1 || echo "($name failed, see $log/$name.txt)" >&2
  grep -E '^(4-|1080|E-720|720p|1280x720|  [0-9]|threads|[0-9])' "$log/$name.txt" || tail -5 "$log/$name.txt"
}

for round in 1 2; do
  for which in before after; do
    if [ "$which" = before ]; then b=$before; else b=$after; fi
    plugin=$b/gst/libgstmotion.so
    tag=$which-$round
    if [ "$mode" = gpu ]; then
      run element-$tag "$after/bench/bench_element" --plugin "$plugin" --frames-dir "$frames" \
        --backend cuda --case 4-1080-r16-int --case 4-1080-r32-half --runs 3 --no-kernel
      run pipeline-$tag "$after/bench/bench_pipeline" --plugin "$plugin" --frames-dir "$frames" \
        --backend cuda --case 1080 --case E-720 --pipeline-depth 0 --pipeline-depth 3 \
        --frames 300 --runs 3
      run poc-$tag "$b/bench/bench_poc" --frames-dir "$frames" --backend cuda \
        --case 1080-64 --case E-720 --frames 20 --runs 3 --no-verify
      run stereo-$tag "$b/bench/bench_stereo" --backend cuda --case 1080p-128 --frames 20 --runs 3
    else
      run element-$tag "$after/bench/bench_element" --plugin "$plugin" --frames-dir "$frames" \
        --size 1280x720 --runs 5
      run pipeline-$tag "$after/bench/bench_pipeline" --plugin "$plugin" --frames-dir "$frames" \
        --backend cpu --case 1080p-128 --frames 12 --runs 3
    fi
  done
done
