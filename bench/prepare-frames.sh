#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Decodes consecutive frames of a real video once and stores them as raw
# GRAY8 files, one per benchmark size, for bench_blockmatch, bench_element
# and ffmpeg-mestimate.sh:
#   $DIR/vtest_<W>x<H>.gray   FRAMES frames of W*H bytes, back to back
# Usage: bench/prepare-frames.sh [DIR]
#   DIR     default $MATCH_BENCH_FRAMES, else ${TMPDIR:-/tmp}/gst-motion-bench-frames
# Env:    MATCH_BENCH_VIDEO  source video (default ../shared/data/video/vtest.avi
#                            next to the source tree)
#         MATCH_BENCH_NFRAMES frames per size (default 16)
#         MATCH_BENCH_START   first frame taken from the video (default 100)
# Files already present with the right size are kept. Exits 1 when ffmpeg or
# the video is missing; the benchmarks then fall back to synthetic frames.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}}
video=${MATCH_BENCH_VIDEO:-$here/../../shared/data/video/vtest.avi}
nframes=${MATCH_BENCH_NFRAMES:-16}
start=${MATCH_BENCH_START:-100}
sizes="640x480 1280x720 1920x1080"

if ! command -v ffmpeg >/dev/null 2>&1; then
  echo "prepare-frames: ffmpeg not found; benchmarks will use synthetic frames" >&2
  exit 1
fi
if [ ! -r "$video" ]; then
  echo "prepare-frames: $video not readable; benchmarks will use synthetic frames" >&2
  exit 1
fi

mkdir -p "$dir"
for s in $sizes; do
  w=${s%x*}
  h=${s#*x}
  out=$dir/vtest_${s}.gray
  want=$((w * h * nframes))
  if [ -f "$out" ] && [ "$(wc -c < "$out")" -eq "$want" ]; then
    echo "prepare-frames: $out up to date"
    continue
  fi
  # select= keeps frames start..start+nframes-1 (consecutive, no drops);
  # the 4:3 source is stretched to the target size (bicubic).
  ffmpeg -nostdin -hide_banner -loglevel error -y -i "$video" \
    -vf "select=gte(n\,$start),scale=${w}:${h}:flags=bicubic,format=gray" \
    -frames:v "$nframes" -f rawvideo -pix_fmt gray "$out.tmp"
  if [ "$(wc -c < "$out.tmp")" -ne "$want" ]; then
    echo "prepare-frames: $out.tmp has the wrong size" >&2
    rm -f "$out.tmp"
    exit 1
  fi
  mv "$out.tmp" "$out"
  echo "prepare-frames: wrote $out ($nframes frames)"
done
