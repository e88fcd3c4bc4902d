#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Size of mvmetastream's JSON per frame (docs/many-cameras.md): a clip
# scaled to 1280x720 and 1920x1080, blockmatchme with its default settings
# plus events=true regions=true, and one mvmetastream per vectors= mode
# (all, moving, none) behind a tee, each into a file; then the mean,
# median, 95th percentile and largest frame object, the events, and the
# bytes per second at the clip's frame rate.
# Usage: [BM_PROPS="threshold=2 min-area=4"] bench/mvstream-bandwidth.sh [CLIP] [FRAMES]
# (BM_PROPS: extra blockmatchme properties; default none.)
# (GST_PLUGIN_PATH must reach the built plugin, e.g. build/gst.)
set -euo pipefail
clip="${1:-$(dirname "$0")/../../shared/data/video/vtest.avi}"
frames="${2:-300}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for size in 1280x720 1920x1080; do
  w=${size%x*}; h=${size#*x}
  start=$(date +%s.%N)
  gst-launch-1.0 -q filesrc location="$clip" ! decodebin ! videoconvert ! \
    videoscale ! video/x-raw,width="$w",height="$h" ! identity eos-after="$frames" ! \
    blockmatchme events=true regions=true ${BM_PROPS:-} ! tee name=t \
    t. ! queue ! mvmetastream camera-id=cam-0001 vectors=all ! filesink location="$out/$size-all.jsonl" \
    t. ! queue ! mvmetastream camera-id=cam-0001 vectors=moving ! filesink location="$out/$size-moving.jsonl" \
    t. ! queue ! mvmetastream camera-id=cam-0001 vectors=none ! filesink location="$out/$size-none.jsonl"
  end=$(date +%s.%N)
  echo "# $size: $(echo "$end - $start" | bc) s for $frames frames"
done

echo "# blockmatchme ${BM_PROPS:-(defaults)} events=true regions=true"
fps=$(gst-discoverer-1.0 "$clip" 2>/dev/null | sed -n 's/.*Frame rate: \([0-9/]*\).*/\1/p' | head -1)
python3 - "$out" "${fps:-10/1}" <<'PY'
import json, sys, os, statistics
out, fps = sys.argv[1], sys.argv[2]
n, d = (int(x) for x in fps.split('/')) if '/' in fps else (float(fps), 1)
rate = n / d
print(f"clip frame rate {rate:g} fps")
print("| size | vectors | frames | mean B/frame | median | p95 | max | events (mean B) | kB/s at {:g} fps | kB/s at 25 fps |".format(rate))
print("|---|---|---|---|---|---|---|---|---|---|")
for size in ("1280x720", "1920x1080"):
    for mode in ("all", "moving", "none"):
        fr, ev = [], []
        for line in open(os.path.join(out, f"{size}-{mode}.jsonl"), "rb"):
            o = json.loads(line)
            (fr if o["type"] == "frame" else ev).append(len(line))
        fr.sort()
        mean = statistics.mean(fr)
        p95 = fr[min(len(fr) - 1, int(0.95 * len(fr)))]
        evs = f"{len(ev)} ({statistics.mean(ev):.0f})" if ev else "0"
        print(f"| {size} | {mode} | {len(fr)} | {mean:.0f} | {statistics.median(fr):.0f} | {p95} | {fr[-1]} | {evs} | {mean * rate / 1000:.1f} | {mean * 25 / 1000:.1f} |")
PY
