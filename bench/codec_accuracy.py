#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Accuracy of the H.264 codec field against ground-truth flow, next to
blockmatchme's (docs/codec-vectors.md, "Accuracy").

  python3 bench/codec_accuracy.py BUILD_DIR [DATA_DIR] [--presets veryfast,medium]

For each shared pair (frame0 -> frame1 with the true flow of frame0):
- the pair is encoded by ffmpeg's libx264 as a 2-frame stream in REVERSE
  order, frame1 (I) then frame0 (P, one reference): the P frame's backward
  field then tiles frame0 and points into frame1, frame0(x) ~ frame1(x +
  d), which is the forward flow the ground truth gives; h264mvdec
  block-size=16 decodes it (BUILD_DIR/tests/mvdump);
- blockmatchme runs on the same pair of images (BUILD_DIR/tools/mv-eval,
  backend=cpu block-size=16 search-range=16 subpixel=quarter, forward);
- both fields are measured here with docs/accuracy.md's metrics (dense EPE
  over pixels with an estimate, block EPE, bad blocks with a block without
  an estimate counted bad), plus the share of blocks with an estimate.
  The blockmatchme figures are checked against mv-eval's own printout.
No numpy: plain Python (the pairs are small).
"""
import argparse
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile


def read_flo(path):
    with open(path, "rb") as f:
        magic, w, h = struct.unpack("<fii", f.read(12))
        assert abs(magic - 202021.25) < 1e-3
        data = struct.unpack("<%df" % (2 * w * h), f.read(8 * w * h))
    return w, h, data


def known(u, v):
    return (abs(u) <= 1e9 and abs(v) <= 1e9 and not math.isnan(u)
            and not math.isnan(v) and not math.isinf(u) and not math.isinf(v))


def metrics(gt, field):
    """field: (cols, rows, bw, bh, [(dx, dy, estimated)])."""
    w, h, uv = gt
    cols, rows, bw, bh, vecs = field
    dense = 0.0
    dense_n = 0
    blocks = []
    bad = 0
    skipped = 0
    for r in range(rows):
        for c in range(cols):
            dx, dy, est = vecs[r * cols + c]
            su = sv = 0.0
            n = area = 0
            err = 0.0
            for y in range(r * bh, min((r + 1) * bh, h)):
                for x in range(c * bw, min((c + 1) * bw, w)):
                    area += 1
                    u, v = uv[2 * (y * w + x)], uv[2 * (y * w + x) + 1]
                    if not known(u, v):
                        continue
                    n += 1
                    su += u
                    sv += v
                    if est:
                        err += math.hypot(dx - u, dy - v)
            if est:
                dense += err
                dense_n += n
            if n * 2 < area:
                skipped += 1
                continue
            if not est:
                bad += 1
                continue
            e = math.hypot(dx - su / n, dy - sv / n)
            blocks.append(e)
            if e > 1.0:
                bad += 1
    evaluated = len(blocks) + bad - sum(1 for e in blocks if e > 1.0)
    estimated = sum(1 for v in vecs if v[2])
    return {
        "dense": dense / dense_n if dense_n else float("nan"),
        "block": sum(blocks) / len(blocks) if blocks else float("nan"),
        "bad": 100.0 * bad / max(evaluated, 1),
        "coverage": 100.0 * estimated / len(vecs),
    }


def read_mvdump(path, index):
    frames = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                kv = dict(p.split("=") for p in line[1:].split())
                frames.append([int(kv["pts"]), int(kv["columns"]),
                               int(kv["rows"]), []])
            elif line.strip():
                dx, dy, _c, _q, fl = line.split()
                frames[-1][3].append((float(dx), float(dy),
                                      not (int(fl) & 2)))
    frames.sort()
    return frames[index]


def pairs(data):
    mb = os.path.join(data, "flow", "middlebury")
    for name in ("Dimetrodon", "RubberWhale", "Venus"):
        d = os.path.join(mb, name)
        yield name, d + "/frame10.png", d + "/frame11.png", d + "/flow10.flo"
    for seq in ("alley_1", "ambush_2", "cave_4", "temple_3"):
        d = os.path.join(data, "flow", "sintel", seq)
        for p in ("clean", "final"):
            f0 = os.path.join(d, p, "frame_0002.png")
            gt = os.path.join(d, "clean", "gt", "frame_0002.flo")
            if not os.path.exists(gt):
                gt = os.path.join(d, "gt", "frame_0002.flo")
            if os.path.exists(f0) and os.path.exists(gt):
                yield ("%s/%s" % (seq, p), f0,
                       os.path.join(d, p, "frame_0003.png"), gt)
    fc = os.path.join(data, "flow", "flyingchairs")
    for n in ("0000004", "0000005", "0000006", "0000007"):
        yield ("chairs " + n, "%s/%s_img1.ppm" % (fc, n),
               "%s/%s_img2.ppm" % (fc, n), "%s/%s_flow.flo" % (fc, n))
    y = os.path.join(data, "video", "yosemite")
    yield "Yosemite", y + "/yos9.png", y + "/yos10.png", y + "/correct_yos.flo"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("data", nargs="?", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
        "data"))
    ap.add_argument("--presets", default="veryfast,medium")
    a = ap.parse_args()
    env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(a.build, "gst"),
               LD_LIBRARY_PATH=os.path.join(a.build, "gst", "motionvectors"))
    tmp = tempfile.mkdtemp()
    presets = a.presets.split(",")
    print("%-22s %-28s %-28s" % ("pair", "blockmatchme (16, +-16, qpel)",
                                 " / ".join("h264 " + p for p in presets)))
    print("%-22s %-28s %s" % ("", "dense block bad% cover%",
                              "dense block bad% cover%"))
    sums = {}
    for name, f0, f1, gtpath in pairs(a.data):
        if not all(os.path.exists(p) for p in (f0, f1, gtpath)):
            continue
        gt = read_flo(gtpath)
        # Grey PNGs for both (mv-eval reads PGM or what GStreamer decodes).
        for i, src in enumerate((f1, f0)):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src,
                            os.path.join(tmp, "img%03d.png" % i)], check=True)
        out = subprocess.run(
            [os.path.join(a.build, "tools", "mv-eval"), "-p", "backend=cpu",
             "-p", "block-size=16", "-p", "search-range=16", "-p",
             "subpixel=quarter", "--no-header", "--dump",
             os.path.join(tmp, "bm.txt"), os.path.join(tmp, "img001.png"),
             os.path.join(tmp, "img000.png"), gtpath],
            env=env, capture_output=True, text=True, check=True).stdout
        with open(os.path.join(tmp, "bm.txt")) as f:
            cols, rows, bw, bh = (int(x) for x in f.readline().split())
            vecs = []
            for line in f:
                dx, dy, _c, _q, fl = line.split()
                vecs.append((float(dx), float(dy), not (int(fl) & 2)))
        bm = metrics(gt, (cols, rows, bw, bh, vecs))
        own = out.split()
        if abs(float(own[2]) - bm["dense"]) > 0.002:
            sys.exit("metrics differ from mv-eval's: %s vs %s" % (own, bm))
        row = "%-22s %5.2f %5.2f %5.1f %5.1f   " % (
            name, bm["dense"], bm["block"], bm["bad"], bm["coverage"])
        sums.setdefault("bm", []).append(bm)
        for p in presets:
            mp4 = os.path.join(tmp, "pair.mp4")
            subprocess.run(
                ["ffmpeg", "-v", "error", "-y", "-framerate", "15", "-i",
                 os.path.join(tmp, "img%03d.png"), "-c:v", "libx264",
                 "-preset", p, "-bf", "0", "-refs", "1", "-pix_fmt",
                 "yuv420p", mp4], check=True)
            dump = os.path.join(tmp, "h264.txt")
            subprocess.run(
                [os.path.join(a.build, "tests", "mvdump"),
                 "filesrc location=%s ! qtdemux ! h264mvdec name=me "
                 "block-size=16 ! fakesink" % mp4, "2", dump],
                env=env, capture_output=True, check=True)
            _pts, cols, rows, vecs = read_mvdump(dump, 1)
            m = metrics(gt, (cols, rows, 16, 16, vecs))
            sums.setdefault(p, []).append(m)
            row += " %5.2f %5.2f %5.1f %5.1f  " % (
                m["dense"], m["block"], m["bad"], m["coverage"])
        print(row, flush=True)
    row = "%-22s" % "mean"
    for k in ["bm"] + presets:
        ms = sums.get(k, [])
        if ms:
            row += " %5.2f %5.2f %5.1f %5.1f  " % tuple(
                sum(m[f] for m in ms) / len(ms)
                for f in ("dense", "block", "bad", "coverage"))
    print(row)
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
