#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""OpenCV StereoSGBM, the CPU anchor for our semi-global matching
(../shared/docs/algorithms.md section 3.2; bench_stereo --method sgm).

- Accuracy on Middlebury 2001 Tsukuba and Venus as opencv_stereobm.py
  measures it (integer WTA, no uniqueness, speckle or left-right tests), to
  set next to tests/kernels/test_stereo.cpp MiddleburySgmAccuracy.
- Speed: ms per pair at the given size and disparities (default 1280x720,
  128) for MODE_HH (8 paths), MODE_HH4 (4), MODE_SGBM (5) and MODE_SGBM_3WAY,
  blockSize 3, P1 72, P2 288, on Tsukuba resampled bilinearly (as opencv_stereobm.py),
  with --threads threads (cv2.setNumThreads; default OpenCV's choice).

Usage: bench/opencv_sgbm.py [--data DIR] [--size WxH] [--disparities N]
                            [--runs N] [--threads N] [--modes HH,HH4,...]
Run with /usr/bin/python3 (python3-opencv).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opencv_stereobm import HERE, SCENES, cv2, load_scene, metrics  # noqa: E402

MODES = {"HH": cv2.STEREO_SGBM_MODE_HH, "HH4": cv2.STEREO_SGBM_MODE_HH4,
         "SGBM": cv2.STEREO_SGBM_MODE_SGBM, "3WAY": cv2.STEREO_SGBM_MODE_SGBM_3WAY}


def make_sgbm(num, mode):
    # P1, P2: OpenCV's documented choice for one channel, 8 and 32 x
    # blockSize^2 (its defaults, 0 and 0, turn the smoothing off).
    return cv2.StereoSGBM_create(minDisparity=0, numDisparities=num, blockSize=3,
                                 P1=8 * 9, P2=32 * 9, mode=MODES[mode])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--disparities", type=int, default=128)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--modes", default="HH,HH4,SGBM,3WAY")
    a = ap.parse_args()
    if a.threads > 0:
        cv2.setNumThreads(a.threads)
    modes = a.modes.split(",")
    scenes = [s for s in (load_scene(a.data, n, g) for n, g in SCENES) if s]
    if not scenes:
        sys.exit("no Middlebury 2001 data under " + a.data)
    print("OpenCV %s StereoSGBM, blockSize 3, %d threads" % (cv2.__version__, cv2.getNumThreads()))
    print("\nAccuracy (integer WTA, no tests; B(t) %, no estimate = bad)")
    cols = ("B1 nonocc", "B2 nonocc", "B1 all", "dens all")
    print("  %-8s %-6s " % ("scene", "mode") + " ".join("%10s" % c for c in cols))
    for sc in scenes:
        num = (sc["levels"] + 1 + 15) // 16 * 16
        for mode in modes:
            sg = make_sgbm(num, mode)
            sg.setUniquenessRatio(0)
            sg.setSpeckleWindowSize(0)
            sg.setDisp12MaxDiff(-1)
            m = metrics(sc, sg.compute(sc["left"], sc["right"]))
            print("  %-8s %-6s " % (sc["name"], mode) + " ".join("%10.2f" % m[c] for c in cols))

    w, h = (int(v) for v in a.size.split("x"))
    tsu = scenes[0]
    l = cv2.resize(tsu["left"], (w, h), interpolation=cv2.INTER_LINEAR)
    r = cv2.resize(tsu["right"], (w, h), interpolation=cv2.INTER_LINEAR)
    print("\nSpeed, %dx%d, %d disparities (%s resampled; median of %d runs)"
          % (w, h, a.disparities, tsu["name"], a.runs))
    for mode in modes:
        sg = make_sgbm(a.disparities, mode)
        sg.compute(l, r)  # warm-up
        ts = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            sg.compute(l, r)
            ts.append(1e3 * (time.perf_counter() - t0))
        print("  %-6s %9.1f ms/pair" % (mode, float(np.median(ts))))


if __name__ == "__main__":
    main()
