#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# h264mvdec's field against FFmpeg's own doc/examples/extract_mvs on five
# x264 streams (docs/codec-vectors.md, "Identical to FFmpeg's"). Needs
# ffmpeg (with libx264), the libav* development files, apt-get (for
# Debian's ffmpeg-doc, which holds extract_mvs.c) and the shared data.
#   bash bench/codec-identity.sh BUILD_DIR [DATA_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
data=${2:-$root/../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download -q ffmpeg-doc >/dev/null
dpkg-deb -x ffmpeg-doc_*.deb doc
cc -O2 -o extract_mvs doc/usr/share/doc/ffmpeg/examples/extract_mvs.c \
  $(pkg-config --cflags --libs libavformat libavcodec libavutil)
enc() { ffmpeg -hide_banner -loglevel error -y "$@"; }
# 1. the bundled clip, x264's defaults (preset medium: 3 B frames, b-pyramid,
#    3 references)
enc -i "$root/data/vtest-pedestrians.ogv" -frames:v 100 -c:v libx264 -pix_fmt yuv420p pedestrians.mp4
# 2. CDnet highway (JPEG frames), 2 B frames, 1 reference
enc -framerate 30 -start_number 1050 -i "$data/surveillance/cdnet2014/baseline/highway/input/in%06d.jpg" \
  -frames:v 100 -c:v libx264 -bf 2 -refs 1 -pix_fmt yuv420p highway.mp4
# 3. the taxi sequence (PGM), P frames only, preset veryfast
enc -framerate 25 -i "$data/video/taxi/taxi%02d.pgm" -vf crop=256:190:0:0 -c:v libx264 -preset veryfast -bf 0 -pix_fmt yuv420p taxi.mp4
# 4, 5. camera-style 1080p15 from vtest.avi: GOP 30, one reference, 4 Mbit/s,
#    P frames only / with 2 B frames
for bf in 0 2; do
  enc -i "$data/video/vtest.avi" -vf "setpts=PTS*2/3,scale=1920:1080" -r 15 -frames:v 60 \
    -c:v libx264 -preset veryfast -bf $bf -refs 1 -g 30 -b:v 4M -pix_fmt yuv420p cam-bf$bf.mp4
done
export GST_PLUGIN_PATH_1_0="$build/gst" LD_LIBRARY_PATH="$build/gst/motionvectors"
for clip in pedestrians highway taxi cam-bf0 cam-bf2; do
  ./extract_mvs $clip.mp4 > $clip.csv 2>/dev/null
  "$build/tests/mvdump" "filesrc location=$clip.mp4 ! qtdemux ! h264parse ! h264mvdec name=me block-size=8 ! fakesink" \
    1000000 $clip.txt > /dev/null
  echo "$clip: $(python3 "$root/bench/codec_identity.py" $clip.csv $clip.txt | tail -1)"
  "$build/tests/mvdump" "filesrc location=$clip.mp4 ! qtdemux ! h264parse ! h264mvextract name=me block-size=8 ! fakesink" \
    1000000 $clip-x.txt > /dev/null
  echo "$clip (h264mvextract): $(python3 "$root/bench/codec_identity.py" $clip.csv $clip-x.txt | tail -1)"
done
