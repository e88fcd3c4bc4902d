#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""CPU cost of the codec motion vectors (docs/codec-vectors.md, "Cost").

  GST_PLUGIN_PATH=build/gst python3 bench/codec_bench.py [--runs 7]
      [--clip FILE] [--realtime N,N,...] [--bm-frames 60]

FILE: an H.264 .mp4 (default: made with ffmpeg from the shared vtest.avi:
1920x1080 at 15 fps, 300 frames = 20 s, libx264 veryfast zerolatency, P
frames only, one reference, a GOP of 30, 4 Mbit/s: a camera's stream).

1. CPU time: each pipeline (filesrc ! qtdemux ! h264parse ! X ! fakesink)
   runs --runs times, the configurations interleaved (run 1 of each, then
   run 2 of each, ...), in one process each; user + system CPU seconds of
   the process (os.wait4) over the frames: ms a frame, startup included.
   Printed: the median and the spread, and the extra CPU time over
   avdec_h264 (max-threads=1), the median of the per-run ratios (each run
   against the avdec_h264 run next to it). blockmatchme runs on the first
   --bm-frames frames only (it is that much slower).
2. Cameras per core from the medians: 1000 / (15 x ms a frame).
3. Real time (--realtime N,...): N copies of the pipeline at once, each
   paced by the clock (fakesink sync=true); real time when every copy
   ends within the clip's duration + 1 s. On the shared 2-core machine
   the figure depends on what else runs: it is the run's.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

SRC = "filesrc location={clip} ! qtdemux ! h264parse"
CONFIGS = [
    ("demux+parse only", "fakesink"),
    ("avdec_h264", "avdec_h264 max-threads=1 ! fakesink"),
    ("h264mvdec", "h264mvdec n-threads=1 ! fakesink"),
    ("h264mvdec regions+events",
     "h264mvdec n-threads=1 regions=true events=true ! fakesink"),
    ("h264mvextract (no loop filter)", "h264mvextract ! fakesink"),
    ("h264mvextract skip-loop-filter=false",
     "h264mvextract skip-loop-filter=false ! fakesink"),
    ("h264mvextract regions+events",
     "h264mvextract regions=true events=true ! fakesink"),
    ("avdec_h264 ! blockmatchme regions+events",
     "avdec_h264 max-threads=1 ! identity eos-after={bm} ! blockmatchme "
     "backend=cpu n-threads=1 regions=true events=true ! fakesink"),
    ("avdec_h264 ! blockmatchme method=hierarchical regions+events",
     "avdec_h264 max-threads=1 ! identity eos-after={bm} ! blockmatchme "
     "backend=cpu n-threads=1 method=hierarchical regions=true events=true ! "
     "fakesink"),
]


def make_clip(path):
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "..", "shared", "data", "video", "vtest.avi")
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", src,
         "-vf", "setpts=PTS*2/3,scale=1920:1080", "-r", "15",
         "-frames:v", "300", "-c:v", "libx264", "-preset", "veryfast",
         "-tune", "zerolatency", "-bf", "0", "-refs", "1", "-g", "30",
         "-b:v", "4M", "-pix_fmt", "yuv420p", path], check=True)


def cpu_seconds(pipeline):
    p = subprocess.Popen(["gst-launch-1.0", "-q"] + shlex.split(pipeline),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    if status != 0 or "ERROR" in err:
        sys.exit("failed: %s\n%s" % (pipeline, err))
    return ru.ru_utime + ru.ru_stime


def realtime(pipeline, n, duration):
    start = time.monotonic()
    procs = [subprocess.Popen(["gst-launch-1.0", "-q"] +
                              shlex.split(pipeline),
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for _ in range(n)]
    ends = []
    for p in procs:
        p.wait()
        ends.append(time.monotonic() - start)
    return max(ends), all(e <= duration + 1.0 for e in ends)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--clip", default="/tmp/gst-motion-cam1080p15.mp4")
    ap.add_argument("--realtime", default="")
    ap.add_argument("--bm-frames", type=int, default=60)
    ap.add_argument("--frames", type=int, default=300,
                    help="frames in the clip")
    ap.add_argument("--skip-cpu", action="store_true",
                    help="only the real-time runs")
    ap.add_argument("--realtime-bm", default="",
                    help="N,... for avdec_h264 ! blockmatchme "
                    "method=hierarchical regions+events, paced")
    a = ap.parse_args()
    if not os.path.exists(a.clip):
        make_clip(a.clip)
    src = SRC.format(clip=a.clip)
    times = {name: [] for name, _ in CONFIGS}
    for r in range(0 if a.skip_cpu else a.runs):
        for name, tail in CONFIGS:
            if "blockmatchme" in name and r >= 3:
                continue
            times[name].append(cpu_seconds(src + " ! " +
                                           tail.format(bm=a.bm_frames)))
    print("clip %s, %d frames; CPU ms a frame, median of %d runs "
          "(min..max); blockmatchme: %d frames, 3 runs"
          % (a.clip, a.frames, a.runs, a.bm_frames))
    ref = times["avdec_h264"]
    med = {}
    for name, _ in ([] if a.skip_cpu else CONFIGS):
        frames = a.bm_frames if "blockmatchme" in name else a.frames
        ms = [t * 1000.0 / frames for t in times[name]]
        med[name] = statistics.median(ms)
        extra = ""
        if name.startswith("h264mv"):
            ratios = [t / r - 1.0 for t, r in zip(times[name], ref)]
            extra = ", %+.1f %% over avdec_h264" % (
                100.0 * statistics.median(ratios))
        print("  %-58s %7.2f ms (%.2f..%.2f)%s, %.1f cameras/core at 15 fps"
              % (name, med[name], min(ms), max(ms), extra,
                 1000.0 / (15.0 * med[name])))
    runs = [(int(x), n) for x in a.realtime.split(",") if x
            for n in ("h264mvdec regions+events",
                      "h264mvextract regions+events")]
    runs += [(int(x), "avdec_h264 ! blockmatchme method=hierarchical "
              "regions+events") for x in a.realtime_bm.split(",") if x]
    for n, name in runs:
        if True:
            tail = dict(CONFIGS)[name].format(bm=-1).replace(
                "fakesink", "fakesink sync=true")
            wall, ok = realtime(src + " ! " + tail, n, a.frames / 15.0)
            print("  real time, %d x %s: slowest ended after %.1f s of %.1f: "
                  "%s" % (n, name, wall, a.frames / 15.0,
                          "kept up" if ok else "fell behind"))


if __name__ == "__main__":
    main()
