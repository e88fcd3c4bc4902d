#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Times FFmpeg's mestimate filter on the raw GRAY8 clips written by
# bench/prepare-frames.sh (the same frames bench_blockmatch uses):
#   ffmpeg -f rawvideo -pix_fmt gray -s WxH -i - \
#          -vf mestimate=method=M:mb_size=16:search_param=R -f null -
# fed the first N frames of the clip. mestimate is single-threaded and, for
# each output frame, searches both the previous and the next frame.
# A `-vf null` run on the same input measures ffmpeg's own start-up and raw
# I/O, which bench_blockmatch --ffmpeg subtracts.
#
# Usage: bench/ffmpeg-mestimate.sh [DIR] > results.txt
#   DIR  clips directory (default as prepare-frames.sh)
# Env:   MATCH_BENCH_FF_METHODS  methods to time (default "esa"; e.g.
#                                "esa epzs umh hexbs ds tss")
#        MATCH_BENCH_FF_SIZES    default "640x480 1280x720 1920x1080"
#        MATCH_BENCH_FF_FRAMES   input frames N per run (default 11: 10 outputs)
#        MATCH_BENCH_FF_RANGE    search_param (default 16)
# Output (stdout), one line per run, read by bench_blockmatch --ffmpeg:
#   method width height inputs outputs rtime_s utime_s
# Progress and an fps summary go to stderr.
set -eu

dir=${1:-${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}}
methods=${MATCH_BENCH_FF_METHODS:-esa}
sizes=${MATCH_BENCH_FF_SIZES:-640x480 1280x720 1920x1080}
nframes=${MATCH_BENCH_FF_FRAMES:-11}
range=${MATCH_BENCH_FF_RANGE:-16}

command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg-mestimate: no ffmpeg" >&2; exit 1; }
ffmpeg -hide_banner -h filter=mestimate 2>/dev/null | grep -q search_param || {
  echo "ffmpeg-mestimate: this ffmpeg has no mestimate filter" >&2
  exit 1
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run METHOD W H FILE: prints the result line
run() {
  m=$1 w=$2 h=$3 f=$4
  if [ "$m" = null ]; then
    vf=null
  else
    vf="mestimate=method=$m:mb_size=16:search_param=$range"
  fi
  head -c $((w * h * nframes)) "$f" |
    ffmpeg -nostdin -hide_banner -nostats -benchmark -loglevel info \
      -f rawvideo -pix_fmt gray -s "${w}x${h}" -framerate 25 -i - \
      -vf "$vf" -f null - > "$log" 2>&1 || {
    cat "$log" >&2
    exit 1
  }
  # "bench: utime=12.345s stime=0.010s rtime=12.400s"; the output frame
  # count from the muxer summary line "frame=   10 fps=...".
  rtime=$(sed -n 's/.*rtime=\([0-9.]*\)s.*/\1/p' "$log" | tail -n 1)
  utime=$(sed -n 's/.*utime=\([0-9.]*\)s.*/\1/p' "$log" | tail -n 1)
  outputs=$(tr '\r' '\n' < "$log" | sed -n 's/^frame= *\([0-9]*\).*/\1/p' | tail -n 1)
  [ -n "$outputs" ] || outputs=$((nframes - 1))
  echo "$m $w $h $nframes $outputs $rtime $utime"
  echo "ffmpeg-mestimate: ${w}x${h} $m: $outputs frames in ${rtime}s =" \
    "$(awk -v n="$outputs" -v t="$rtime" 'BEGIN { printf "%.3f", n / t }') fps" >&2
}

echo "# ffmpeg mestimate, mb_size=16 search_param=$range, $nframes input frames"
echo "# $(ffmpeg -hide_banner -version | head -n 1)"
echo "# method width height inputs outputs rtime_s utime_s"
for s in $sizes; do
  w=${s%x*}
  h=${s#*x}
  f=$dir/vtest_${s}.gray
  if [ ! -r "$f" ]; then
    echo "ffmpeg-mestimate: $f missing (run bench/prepare-frames.sh)" >&2
    exit 1
  fi
  run null "$w" "$h" "$f"
  for m in $methods; do
    run "$m" "$w" "$h" "$f"
  done
done
