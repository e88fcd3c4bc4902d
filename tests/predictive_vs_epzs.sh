#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# method=predictive on a two-frame input against FFmpeg mestimate's epzs
# (issue 19), dense EPE, 16x16, integer pel, forward, on every flow
# sequence of the shared data, at search ranges 16 and 64: FFmpeg's figures
# from bench/ffmpeg-accuracy.sh, ours from tools/flow-accuracy (the CPU
# backend; the other backends give the same vectors). Prints the table and
# checks:
#   - on average over the sequences: predictive <= epzs (both ranges);
#   - on every sequence: predictive <= 1.02 x epzs (the sequences where it
#     is above epzs are named in the output; none since the coarse
#     predictor, docs/blockmatchme.md: the closest is RubberWhale, 0.426
#     against 0.427, so the 2 % are a margin for other FFmpeg builds;
#     before it the bound was 1.06 for chairs-0000004 at range 16, +5.0 %,
#     whose motion is beyond the range).
# Skips (77) without FFmpeg's development files, a C compiler or the data.
#
# Usage: predictive_vs_epzs.sh SOURCE_ROOT FLOW_ACCURACY_BINARY
set -u
src=$1
flow=$2
data=${MATCH_TEST_DATA:-$src/../shared/data}
[ -d "$data/flow" ] || { echo "no flow data in $data: skipped"; exit 77; }
pkg-config --exists libavfilter libavformat libavcodec libavutil 2>/dev/null ||
  { echo "no FFmpeg development files: skipped"; exit 77; }
command -v cc >/dev/null && command -v c++ >/dev/null || { echo "no compiler: skipped"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for range in 16 64; do
  MATCH_TEST_DATA=$data MATCH_FF_ACC_BUILD=$tmp/build \
    sh "$src/bench/ffmpeg-accuracy.sh" --methods epzs --range $range > "$tmp/ff$range.txt" 2>&1 ||
    { echo "ffmpeg-accuracy failed:"; tail -5 "$tmp/ff$range.txt"; exit 1; }
  MATCH_TEST_DATA=$data "$flow" --range $range --files "$src/tests/files" \
    --methods predictive > "$tmp/our$range.txt" 2>&1 ||
    { echo "flow-accuracy failed:"; cat "$tmp/our$range.txt"; exit 1; }
  # FFmpeg: "| name | epe / bad |" rows of the summary; ours: "name int half".
  awk -v range=$range '
    FNR == NR { if ($1 == "|" && $5 == "/" && $2 != "average") epzs[$2] = $4; next }
    /^#/ || $1 == "sequence" || $1 == "average" || /^\(/ || /skipped/ { next }
    ($1 in epzs) {
      n++; se += epzs[$1]; sp += $2
      mark = $2 <= epzs[$1] ? "" : ($2 <= 1.02 * epzs[$1] ? "  above epzs" : "  FAIL: above 1.02 x epzs")
      if ($2 > 1.02 * epzs[$1]) bad++
      printf "%-22s %9.3f %9.3f %8.3f%s\n", $1, epzs[$1], $2, $3, mark
    }
    END {
      if (n == 0) { print "no sequence compared"; exit 1 }
      limit = 1.0
      printf "%-22s %9.3f %9.3f   (%d sequences; bound %.2f x epzs)\n", "average", se / n, sp / n, n, limit
      if (sp / n > limit * se / n) { print "FAIL: average above the bound"; bad++ }
      exit bad ? 1 : 0
    }' <(grep '^| ' "$tmp/ff$range.txt") "$tmp/our$range.txt" > "$tmp/cmp$range.txt"
  rc=$?
  echo "range $range: dense EPE (px), epzs | predictive 2 frames integer | half-pel"
  cat "$tmp/cmp$range.txt"
  echo
  [ $rc -eq 0 ] || fail=1
done
exit $fail
