#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Motion episodes and boxes of h264mvdec against blockmatchme's on the same
H.264 stream (docs/codec-vectors.md, "Accuracy").

  GST_PLUGIN_PATH=build/gst python3 bench/codec_surveillance.py [DATA_DIR]

Each clip is encoded like a camera's stream by ffmpeg's libx264 (veryfast,
P frames only, one reference, GOP of 1 s); then, at the element defaults
with regions=true events=true,
  A: filesrc ! qtdemux ! h264parse ! h264mvdec
  B: filesrc ! qtdemux ! h264parse ! avdec_h264 ! blockmatchme
each into mvmetastream. Printed per clip: the motion episodes of each
(motion-start .. motion-stop, from the in-band events), their overlap in
time (intersection over union), the frames with regions (A, B, both),
and where the clip has CDnet ground truth, the boxes' pixel precision,
recall and F (bench/survscore.py's definitions: the union of a frame's
boxes against the 255 pixels, 85 and 170 ignored).
Needs numpy (survscore).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import survscore as S  # noqa: E402

PIPES = {
    "h264mvdec": "h264mvdec regions=true events=true",
    "blockmatchme": "avdec_h264 ! blockmatchme regions=true events=true",
}


def run(mp4, tail, fps):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "s.jsonl")
        cmd = ("gst-launch-1.0 -q filesrc location=%s ! qtdemux ! h264parse ! "
               "%s ! mvmetastream ! filesink location=%s sync=false"
               % (mp4, tail, out))
        subprocess.run(cmd.split(), check=True, capture_output=True)
        with open(out) as f:
            lines = f.readlines()
    frames, _starts, _grid = S.parse_stream(lines, fps)
    episodes = []
    for line in lines:
        o = json.loads(line)
        if o.get("type") == "event" and o.get("event") == "motion-stop":
            end = o.get("running_time", o.get("pts")) / 1e9
            episodes.append((end - o.get("duration", 0) / 1e9, end))
    return frames, episodes


def overlap(a, b):
    def total(iv):
        return sum(e - s for s, e in iv)
    inter = sum(max(0.0, min(e1, e2) - max(s1, s2))
                for s1, e1 in a for s2, e2 in b)
    union = total(a) + total(b) - inter
    return inter / union if union > 0 else float("nan")


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
        "data")
    hw = os.path.join(data, "surveillance", "cdnet2014", "baseline", "highway")
    clips = [("CDnet highway (320x240, 30 fps, frames 1050-1350)", 30,
              ["-framerate", "30", "-start_number", "1050", "-i",
               os.path.join(hw, "input", "in%06d.jpg")], hw, 1050),
             ("vtest.avi (768x576, 10 fps, 795 frames)", 10,
              ["-i", os.path.join(data, "video", "vtest.avi")], None, 0)]
    tmp = tempfile.mkdtemp()
    for name, fps, inp, gt_dir, first in clips:
        mp4 = os.path.join(tmp, "clip.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y"] + inp +
                       ["-c:v", "libx264", "-preset", "veryfast", "-bf", "0",
                        "-refs", "1", "-g", str(fps), "-pix_fmt", "yuv420p",
                        mp4], check=True)
        res = {k: run(mp4, v, fps) for k, v in PIPES.items()}
        print(name)
        for k, (frames, eps) in res.items():
            print("  %-13s %d episode(s): %s" % (
                k, len(eps), ", ".join("%.1f-%.1f s" % e for e in eps)))
        fa, ea = res["h264mvdec"]
        fb, eb = res["blockmatchme"]
        ra = {i for i, f in fa.items() if f["regions"]}
        rb = {i for i, f in fb.items() if f["regions"]}
        print("  episode overlap (time IoU) %.3f; frames with regions: "
              "h264mvdec %d, blockmatchme %d, both %d, of %d"
              % (overlap(ea, eb), len(ra), len(rb), len(ra & rb),
                 max(len(fa), len(fb))))
        if gt_dir:
            for k, (frames, _eps) in res.items():
                c = S.Counts()
                for idx, f in frames.items():
                    gt_path = os.path.join(gt_dir, "groundtruth",
                                           "gt%06d.png" % (first + idx))
                    if not os.path.exists(gt_path):
                        continue
                    gt = S.read_grey(gt_path)
                    pred = S.boxes_mask(gt.shape,
                                        [r[:4] for r in f["regions"]])
                    c.add(*S.pixel_counts(pred, gt))
                p, r, fm = c.prf()
                print("  %-13s boxes against the ground truth: P %.3f R %.3f "
                      "F %.3f" % (k, p, r, fm))


if __name__ == "__main__":
    main()
