#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Issue 32: bench_streams on the CPU backend with the element's default
# n-threads=0, N = 1, 4, 16 pipelines in one process, one process per N,
# for several builds in turn (each round runs every build once, so all see
# the same background load), with the process's CPU time (/usr/bin/time).
# Usage: DIRS="dir1 dir2 ..." run.sh FRAMES_DIR ROUNDS [bench_streams args]
#   each dir holds bench_streams, libgstmotion.so and
#   libgstmotionvectors-1.0.so.0 copied out of a build dir.
# LOAD=1 adds a competing busy loop (one core) for the whole run.
# Output per run: build N agg-fps min med max window-s cpu-s wall-s
#   cpu-ms/frame = 1000 x cpu-s / (agg-fps x window-s), the frames outside
#   the window (5 per stream) and the set-up not counted.
set -eu
frames=$1 rounds=$2
shift 2
load_pid=
if [ "${LOAD:-0}" = 1 ]; then
  sh -c 'while :; do :; done' &
  load_pid=$!
  echo "competing load: a busy loop (pid $load_pid) for the whole run"
fi
echo "build N agg-fps min-fps med-fps max-fps window-s cpu-s wall-s cpu-ms/frame loadavg1"
r=1
while [ "$r" -le "$rounds" ]; do
  for dir in $DIRS; do
    for n in 1 4 16; do
      la=$(cut -d' ' -f1 /proc/loadavg)
      out=$(LD_LIBRARY_PATH=$dir /usr/bin/time -f "TIME %e %U %S" "$dir/bench_streams" \
        --plugin "$dir/libgstmotion.so" --backend cpu --frames-dir "$frames" \
        --streams "$n" --n-threads 0 --seconds 5 --keep-going "$@" 2>&1)
      row=$(echo "$out" | grep -E '^cpu +[a-z]+ +[0-9]+ ' | head -1)
      t=$(echo "$out" | grep '^TIME' | tail -1)
      echo "$(basename "$dir") $row $t $la" | awk '{
        cpu = $16 + $17; frames = $7 * $11;
        printf "%s %d %.0f %.1f %.1f %.1f %.2f %.2f %.2f %.3f %s\n",
               $1, $4, $7, $8, $9, $10, $11, cpu, $15, (frames > 0 ? 1000 * cpu / frames : 0), $18 }'
    done
  done
  r=$((r + 1))
done
if [ -n "$load_pid" ]; then kill "$load_pid"; fi
exit 0
