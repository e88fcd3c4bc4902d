#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# The whole benchmark: prepares the frames, times FFmpeg's mestimate, then
# runs bench_blockmatch (with the side-by-side FFmpeg table) and, when it was
# built, bench_element.
#
# Usage: bench/run.sh BUILDDIR [bench_blockmatch options...]
# Env:   MATCH_BENCH_FRAMES   clips directory (default ${TMPDIR:-/tmp}/gst-motion-bench-frames)
#        MATCH_BENCH_FF_REUSE=1  reuse $MATCH_BENCH_FRAMES/ffmpeg-results.txt if
#                             present (FFmpeg's esa takes minutes)
#        MATCH_BENCH_NO_FFMPEG=1 skip FFmpeg
#        MATCH_BENCH_FF_METHODS, MATCH_BENCH_FF_FRAMES: see ffmpeg-mestimate.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ ! -x "$1/bench/bench_blockmatch" ]; then
  echo "usage: $0 BUILDDIR [bench_blockmatch options]  (BUILDDIR/bench/bench_blockmatch must exist)" >&2
  exit 2
fi
build=$1
shift

MATCH_BENCH_FRAMES=${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}
export MATCH_BENCH_FRAMES

have_frames=1
"$here/prepare-frames.sh" "$MATCH_BENCH_FRAMES" >&2 || have_frames=0

ffargs=
results=$MATCH_BENCH_FRAMES/ffmpeg-results.txt
if [ "$have_frames" = 1 ] && [ "${MATCH_BENCH_NO_FFMPEG:-0}" != 1 ]; then
  if [ "${MATCH_BENCH_FF_REUSE:-0}" = 1 ] && [ -s "$results" ]; then
    echo "run.sh: reusing $results" >&2
  else
    echo "run.sh: timing FFmpeg mestimate (several minutes for esa)..." >&2
    "$here/ffmpeg-mestimate.sh" "$MATCH_BENCH_FRAMES" > "$results.tmp"
    mv "$results.tmp" "$results"
  fi
  ffargs="--ffmpeg $results"
fi

# shellcheck disable=SC2086 # ffargs is empty or two words
"$build/bench/bench_blockmatch" --frames-dir "$MATCH_BENCH_FRAMES" $ffargs "$@"

if [ -x "$build/bench/bench_element" ]; then
  echo
  "$build/bench/bench_element" --frames-dir "$MATCH_BENCH_FRAMES"
fi
