#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Accuracy of FFmpeg's mestimate filter against ground-truth flow, on the
# sequences and with the metric code of elements_accuracy
# (tests/check/elements/accuracy.cpp, tests/common/flowmetrics.cpp): dense
# EPE, block EPE and bad blocks of each method's 16x16 integer field,
# converted to our FORWARD convention, plus the summary table of
# docs/blockmatchme.md.
#
# Builds two optional tools (not part of the meson build) and runs the second:
#   tools/ffmpeg-mvdump.c     runs mestimate on an image pair, prints the
#                             AVMotionVector side data as text
#   tools/ffmpeg-accuracy.cpp loads the frames as the test does (GRAY8),
#                             runs ffmpeg-mvdump f1 f0 (reversed: the
#                             source = -1 vectors of the output for f0 then
#                             tile f0 and v_forward = src - dst), computes
#                             the metrics with tests/common/flowmetrics.cpp
# Both headers explain the conventions.
#
# Usage: bench/ffmpeg-accuracy.sh [TOOL OPTIONS] > results.txt
#   (run from anywhere; options go to ffmpeg-accuracy, e.g. --edges both,
#   --crosscheck, --selftest, --methods "esa epzs", --range 16)
# Env:   MATCH_TEST_DATA  the shared data (default ../shared/data from the
#                         source root)
#        MATCH_FF_ACC_BUILD  where the tools are built (default
#                         ${TMPDIR:-/tmp}/gst-motion-ffmpeg-accuracy)
# Needs: cc, c++, pkg-config, FFmpeg's libavfilter/libavformat/libavcodec/
#        libavutil development files, GStreamer core/video/app development
#        files (the frames are decoded by GStreamer, as in the test).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
out=${MATCH_FF_ACC_BUILD:-${TMPDIR:-/tmp}/gst-motion-ffmpeg-accuracy}
mkdir -p "$out"

cc -O2 -Wall -o "$out/ffmpeg-mvdump" "$src/tools/ffmpeg-mvdump.c" $(pkg-config --cflags --libs libavfilter libavformat libavcodec libavutil)
c++ -O2 -std=c++17 -Wall -I"$src" -o "$out/ffmpeg-accuracy" "$src/tools/ffmpeg-accuracy.cpp" "$src/tests/common/flowmetrics.cpp" "$src/tests/common/testutil.cpp" $(pkg-config --cflags --libs gstreamer-1.0 gstreamer-video-1.0 gstreamer-app-1.0) -lm

echo "# bench/ffmpeg-accuracy.sh $*"
echo "# $(ffmpeg -hide_banner -version 2>/dev/null | head -n 1 || echo 'ffmpeg binary not found; libraries:') (libavfilter $(pkg-config --modversion libavfilter))"
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(uname -m), $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo 'no git')"
echo
MATCH_TEST_DATA=${MATCH_TEST_DATA:-$src/../shared/data} \
  "$out/ffmpeg-accuracy" --mvdump "$out/ffmpeg-mvdump" \
  --files "$src/tests/files" "$@"
