#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""OpenCV StereoBM next to our SAD stereo (bench/bench_stereo,
tests/kernels/test_stereo.cpp): same 7x7 window, same disparity range.

- Accuracy on Middlebury 2001 Tsukuba and Venus (left view, GT for it),
  with the metrics of docs/accuracy.md: B(1), B(2) on
  the nonocc and all masks (unknown GT excluded, no estimate = bad) and the
  density. StereoBM always pre-filters (normalised response, cap 31) and
  leaves the left border (about num_disparities + 3 columns) without
  estimates; its numDisparities must be a multiple of 16, so Venus (0..19,
  info.txt line 2 = 19) runs with 32 where ours searches 20. Two settings: "dense" (texture and
  uniqueness tests off, as our plain WTA) and OpenCV's defaults
  (textureThreshold 10, uniquenessRatio 15).
- Speed: ms per frame pair at 1280x720 and 1920x1080, 128 and 256
  disparities, on Tsukuba resampled bilinearly to those sizes, with
  OpenCV's own threads (cv2.getNumThreads()).

--export DIR writes Tsukuba's grey views as DIR/tsukuba_{L,R}.pgm so that
bench_stereo --left/--right times our matcher on the same pair.

Usage: bench/opencv_stereobm.py [--data DIR] [--export DIR] [--runs N]
                                [--threads N] [--window S]
Needs python3-opencv (Debian: apt-get install -y python3-opencv) and numpy;
run with the system interpreter (/usr/bin/python3) where that is the one
that has them.
"""
import argparse
import os
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("opencv_stereobm.py: needs python3-opencv (apt-get install -y python3-opencv)")

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = (("tsukuba", "disp3.pgm"), ("venus", "disp2.pgm"))


def load_scene(data, name, gt_file):
    d = os.path.join(data, "stereo", "middlebury2001", name)
    if not os.path.isdir(d):
        return None
    with open(os.path.join(d, "info.txt")) as f:
        scale, levels = (int(v) for v in f.read().split()[:2])
    gray = lambda f: cv2.imread(os.path.join(d, f), cv2.IMREAD_GRAYSCALE)
    # The masks and GT are palette/plain images; IMREAD_GRAYSCALE decodes
    # the palette (255 stays 255).
    return {"name": name, "left": gray("imL.png"), "right": gray("imR.png"),
            "gt": gray(gt_file).astype(np.float64) / scale,
            "gt_known": gray(gt_file) > 0,
            "nonocc": gray("nonocc.png") > 127, "all": gray("all.png") > 127,
            "scale": scale, "levels": levels}


def metrics(sc, disp16):
    valid = disp16 >= 0
    err = np.where(valid, np.abs(disp16.astype(np.float64) / 16.0 - sc["gt"]), 1e9)
    out = {}
    for mask in ("nonocc", "all"):
        m = sc[mask] & sc["gt_known"]
        n = m.sum()
        out["B1 " + mask] = 100.0 * (err[m] > 1).sum() / n
        out["B2 " + mask] = 100.0 * (err[m] > 2).sum() / n
        out["dens " + mask] = 100.0 * valid[m].sum() / n
    m = sc["nonocc"] & sc["gt_known"] & valid
    out["B1 kept"] = 100.0 * (err[m] > 1).sum() / max(1, m.sum())
    return out


def make_bm(num, block, dense):
    bm = cv2.StereoBM_create(numDisparities=num, blockSize=block)
    bm.setMinDisparity(0)
    bm.setSpeckleWindowSize(0)
    bm.setSpeckleRange(0)
    bm.setDisp12MaxDiff(-1)
    if dense:
        bm.setTextureThreshold(0)
        bm.setUniquenessRatio(0)
    return bm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--export", help="write tsukuba_{L,R}.pgm here")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--window", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0,
                    help="cv2.setNumThreads (default: OpenCV's own choice)")
    a = ap.parse_args()
    if a.threads > 0:
        cv2.setNumThreads(a.threads)

    scenes = [s for s in (load_scene(a.data, n, g) for n, g in SCENES) if s]
    if not scenes:
        sys.exit("no Middlebury 2001 data under " + a.data)
    print("OpenCV %s StereoBM, %dx%d window, %d threads (cv2.getNumThreads)"
          % (cv2.__version__, a.window, a.window, cv2.getNumThreads()))
    print("\nAccuracy (B(t) %, no estimate = bad; density %)")
    cols = ("B1 nonocc", "B2 nonocc", "B1 all", "B2 all", "dens all",
            "B1 kept", "dens nonocc")
    print("  %-8s %-22s " % ("scene", "setting") + " ".join("%11s" % c for c in cols))
    for sc in scenes:
        # info.txt line 2 is the largest disparity (15, 19): 16 and 20
        # values, rounded up to StereoBM's multiple of 16.
        num = (sc["levels"] + 1 + 15) // 16 * 16
        for label, dense in (("dense (tex 0, uniq 0)", True), ("defaults (10, 15)", False)):
            disp = make_bm(num, a.window, dense).compute(sc["left"], sc["right"])
            m = metrics(sc, disp)
            print("  %-8s %-22s " % (sc["name"], label + (" n%d" % num if num != sc["levels"] + 1 else ""))
                  + " ".join("%11.2f" % m[c.replace("dens nonocc", "dens nonocc")] for c in cols))

    tsu = scenes[0]
    if a.export:
        os.makedirs(a.export, exist_ok=True)
        for side, img in (("L", tsu["left"]), ("R", tsu["right"])):
            cv2.imwrite(os.path.join(a.export, "tsukuba_%s.pgm" % side), img)
        print("\nwrote %s/tsukuba_{L,R}.pgm" % a.export)

    print("\nSpeed (%s resampled bilinearly; median of %d runs)" % (tsu["name"], a.runs))
    print("  %-10s %5s %10s %8s %10s" % ("size", "disp", "ms/frame", "fps", "Mdisp/s"))
    for w, h in ((1280, 720), (1920, 1080)):
        l = cv2.resize(tsu["left"], (w, h), interpolation=cv2.INTER_LINEAR)
        r = cv2.resize(tsu["right"], (w, h), interpolation=cv2.INTER_LINEAR)
        for num in (128, 256):
            bm = make_bm(num, a.window, True)
            bm.compute(l, r)  # warm-up
            ts = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                bm.compute(l, r)
                ts.append(1e3 * (time.perf_counter() - t0))
            ms = float(np.median(ts))
            print("  %-10s %5d %10.1f %8.2f %10.0f"
                  % ("%dx%d" % (w, h), num, ms, 1e3 / ms, w * h * num / (ms * 1e3)))


if __name__ == "__main__":
    main()
