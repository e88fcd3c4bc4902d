#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The one-command demo: installs what is missing (apt-get), builds in ./build,
# then estimates motion on the bundled clip data/vtest-pedestrians.ogv and
# writes into demo-out/:
#   vtest-arrows.ogv    the clip with one green arrow per moving 16x16 block
#   arrows-NN.png       a few of those frames, one every 2 s
#   vectors.jsonl       every frame's motion field, one JSON line per frame
#   vtest-color.ogv     the clip tinted by direction/speed (colour wheel),
#   color-NN.png        and a few of its frames (skip with DEMO_COLOR=0)
#   vtest-regions.ogv   the moving regions (GstVideoRegionOfInterestMeta,
#   regions-NN.png      drawn by mvoverlay), and events.txt, the
#                       motion-start / motion-stop messages (DEMO_REGIONS=0
#                       skips this)
# and prints a summary of the motion (tools/mvsummary.c).
# Usage: bash tools/demo.sh   (from any directory; safe to run again)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

clip=data/vtest-pedestrians.ogv
out=demo-out
# 16x16 blocks, candidates within +-16 px; threshold=2 reports a block as
# still when it changed by at most 2 grey levels per pixel (noise).
me=(blockmatchme block-size=16 search-range=16 threshold=2)
# One PNG every 2 s. The first frame has no previous frame, hence no
# vectors: it is left out of the PNGs (it is the one flagged DISCONT).
snapshots=(identity drop-buffer-flags=discont ! videorate
  ! "video/x-raw,framerate=1/2" ! videoconvert ! pngenc)

echo "== 1/5 installing missing packages"
bash tools/install-deps.sh
echo "== 2/5 building"
bash tools/build.sh

# Use the plugin just built, not an installed one.
export GST_PLUGIN_PATH="$root/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
for el in blockmatchme mvexport mvoverlay; do
  if ! gst-inspect-1.0 "$el" >/dev/null 2>&1; then
    echo "demo: element $el not found in $root/build/gst" >&2
    exit 1
  fi
done

mkdir -p "$out"
rm -f "$out"/vtest-arrows.ogv "$out"/vtest-color.ogv "$out"/vectors.jsonl \
  "$out"/arrows-*.png "$out"/color-*.png "$out"/vtest-regions.ogv \
  "$out"/regions-*.png "$out"/events.txt

echo "== 3/5 motion estimation with arrows, export and summary"
start=$SECONDS
# mvsummary reads the motion vectors in a pad probe on the element named
# "probe"; mvexport writes them; the tee feeds the video and PNG writers.
build/tools/mvsummary \
  filesrc location="$clip" ! decodebin ! videoconvert \
  ! "${me[@]}" draw=arrows \
  ! identity name=probe \
  ! mvexport format=json location="$out/vectors.jsonl" \
  ! tee name=t \
  t. ! queue ! videoconvert ! theoraenc ! oggmux \
     ! filesink location="$out/vtest-arrows.ogv" \
  t. ! queue ! "${snapshots[@]}" ! multifilesink location="$out/arrows-%02d.png"
echo "(took $((SECONDS - start)) s)"

if [ "${DEMO_COLOR:-1}" != 0 ]; then
  echo "== 4/5 the same with draw=color (hue = direction, saturation = speed)"
  start=$SECONDS
  gst-launch-1.0 -q \
    filesrc location="$clip" ! decodebin ! videoconvert \
    ! "${me[@]}" draw=color \
    ! tee name=t \
    t. ! queue ! videoconvert ! theoraenc ! oggmux \
       ! filesink location="$out/vtest-color.ogv" \
    t. ! queue ! "${snapshots[@]}" ! multifilesink location="$out/color-%02d.png"
  echo "(took $((SECONDS - start)) s)"
else
  echo "== 4/5 colour version skipped (DEMO_COLOR=0)"
fi

if [ "${DEMO_REGIONS:-1}" != 0 ]; then
  echo "== 5/5 moving regions and motion events (regions=true events=true ! mvoverlay)"
  start=$SECONDS
  # Regions: 8-connected moving blocks (>= 1 px, at least 4 blocks), boxed
  # by mvoverlay; events: motion-start / motion-stop after 1 s without
  # motion (docs/motion-events.md). -m prints the bus messages.
  gst-launch-1.0 -m \
    filesrc location="$clip" ! decodebin ! videoconvert \
    ! "${me[@]}" regions=true min-area=4 events=true hold-off=1000000000 \
    ! mvoverlay mode=none regions=true \
    ! tee name=t \
    t. ! queue ! videoconvert ! theoraenc ! oggmux \
       ! filesink location="$out/vtest-regions.ogv" \
    t. ! queue ! "${snapshots[@]}" ! multifilesink location="$out/regions-%02d.png" \
    | grep -E "motion-(start|stop)" > "$out/events.txt" || true
  echo "motion events (element messages):"
  sed 's/^Got message #[0-9]* from element "\([^"]*\)" (element): /  \1: /' "$out/events.txt"
  echo "(took $((SECONDS - start)) s)"
else
  echo "== 5/5 regions and events skipped (DEMO_REGIONS=0)"
fi
echo
echo "Outputs in $root/$out/:"
ls -lh "$out"
cat <<EOF

Look at them with e.g.
  xdg-open $root/$out/arrows-01.png
  gst-play-1.0 $root/$out/vtest-arrows.ogv     (or any video player)
  head -c 600 $root/$out/vectors.jsonl         (format: docs/export.md)
Arrows go from where a block was in the previous frame to where it is now.
Colours: right = red, down = yellow, left = cyan, up = blue; paler = slower.
Red boxes (regions-NN.png): the moving regions attached as ROI metas.
EOF
