#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""OpenCV's phaseCorrelate applied per window, the comparison of the pocme
issue: accuracy on the flow data with ground truth and speed on the paper
cases, with the same geometry as pocme (kernels/ref/poc_ref.cpp):

- one vector per spacing x spacing block tiling the frame from its top-left
  pixel; the block's point p = ((x0 + x1) // 2, (y0 + y1) // 2);
- an N x N window covering [p - N/2, p - N/2 + N) on each axis in BOTH
  frames (OpenCV has no hierarchy: single-layer POC), clamp-to-edge outside
  the frame (cv2.copyMakeBorder with BORDER_REPLICATE);
- each window's mean removed, then cv2.createHanningWindow passed as the
  window (float32 throughout);
- OpenCV 4.6's phaseCorrelate multiplies its inputs by the window in place
  for 32 and 64 px windows, so it gets copies.

Forward direction (the GT's): blocks tile the earlier frame and
phaseCorrelate(earlier window, later window) is the vector v with
earlier(x) ~ later(x + v) (checked on a synthetic shift at start-up).
Metrics: dense EPE, block EPE and bad blocks as in
docs/accuracy.md (tests/common/flowmetrics.h).

Usage: bench/opencv_poc.py [--data DIR] [--frames-dir DIR] [--speed-frames N]
Needs python3-opencv (Debian: apt-get install python3-opencv) and numpy.
"""
import argparse
import os
import struct
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("opencv_poc.py: needs python3-opencv (apt-get install -y python3-opencv)")

HERE = os.path.dirname(os.path.abspath(__file__))


def read_flo(path):
    with open(path, "rb") as f:
        magic, w, h = struct.unpack("<fii", f.read(12))
        if abs(magic - 202021.25) > 1e-3:
            raise ValueError(path + ": not a .flo file")
        uv = np.frombuffer(f.read(8 * w * h), dtype="<f4").reshape(h, w, 2)
    return uv


def poc_field(a, b, n, spacing, win):
    """Per-block phaseCorrelate; returns dx, dy arrays (rows x cols)."""
    h, w = a.shape
    pad = n
    pa = cv2.copyMakeBorder(a, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    pb = cv2.copyMakeBorder(b, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    cols, rows = (w + spacing - 1) // spacing, (h + spacing - 1) // spacing
    dx = np.zeros((rows, cols), np.float32)
    dy = np.zeros((rows, cols), np.float32)
    half = n // 2
    for r in range(rows):
        y0 = r * spacing
        py = (y0 + min(y0 + spacing, h)) // 2
        ys = py - half + pad
        for c in range(cols):
            x0 = c * spacing
            px = (x0 + min(x0 + spacing, w)) // 2
            xs = px - half + pad
            fa = pa[ys:ys + n, xs:xs + n]
            fb = pb[ys:ys + n, xs:xs + n]
            fa = fa - fa.mean()  # new arrays: phaseCorrelate may write them
            fb = fb - fb.mean()
            (sx, sy), _ = cv2.phaseCorrelate(fa, fb, win.copy())
            dx[r, c] = sx
            dy[r, c] = sy
    return dx, dy


def metrics(dx, dy, gt, spacing):
    """dense EPE, block EPE, bad blocks % (docs/accuracy.md)."""
    h, w = gt.shape[:2]
    u, v = gt[..., 0], gt[..., 1]
    known = np.isfinite(u) & np.isfinite(v) & (np.abs(u) <= 1e9) & (np.abs(v) <= 1e9)
    ex = np.repeat(np.repeat(dx, spacing, 0), spacing, 1)[:h, :w]
    ey = np.repeat(np.repeat(dy, spacing, 0), spacing, 1)[:h, :w]
    err = np.hypot(ex - np.where(known, u, 0), ey - np.where(known, v, 0))
    dense = float(err[known].mean())
    bepe = []
    rows, cols = dx.shape
    for r in range(rows):
        for c in range(cols):
            sl = (slice(r * spacing, min((r + 1) * spacing, h)),
                  slice(c * spacing, min((c + 1) * spacing, w)))
            k = known[sl]
            if k.sum() * 2 < k.size:
                continue
            mu, mv = u[sl][k].mean(), v[sl][k].mean()
            bepe.append(np.hypot(dx[r, c] - mu, dy[r, c] - mv))
    bepe = np.array(bepe)
    return dense, float(bepe.mean()), float(100.0 * (bepe > 1.0).mean())


def gray(path):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise FileNotFoundError(path)
    return img.astype(np.float32)


def self_check(n, win):
    """Sign convention: content moving by +d gives +d (forward)."""
    rng = np.random.default_rng(1)
    base = cv2.GaussianBlur(rng.uniform(0, 255, (n + 16, n + 16)).astype(np.float32), (0, 0), 2)
    a = base[8:8 + n, 8:8 + n]
    b = base[8 - 1:8 - 1 + n, 8 - 3:8 - 3 + n]  # later(x) = earlier(x - (3, 1))
    (sx, sy), _ = cv2.phaseCorrelate(a - a.mean(), b - b.mean(), win.copy())
    if abs(sx - 3) > 0.2 or abs(sy - 1) > 0.2:
        sys.exit("opencv_poc.py: unexpected phaseCorrelate sign: (%.2f, %.2f) for (3, 1)"
                 % (sx, sy))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--frames-dir", default=os.environ.get(
        "MATCH_BENCH_FRAMES", os.path.join(os.environ.get("TMPDIR") or "/tmp",
                                           "gst-motion-bench-frames")))
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument("--spacing", type=int, default=16)
    ap.add_argument("--speed-frames", type=int, default=3,
                    help="timed frame pairs per speed case (default 3)")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-accuracy", action="store_true")
    o = ap.parse_args()

    print("OpenCV %s, cv2.getNumThreads() = %d, os.cpu_count() = %d"
          % (cv2.__version__, cv2.getNumThreads(), os.cpu_count()))
    n, s = o.window, o.spacing
    win = cv2.createHanningWindow((n, n), cv2.CV_32F)
    self_check(n, win)

    if not o.no_accuracy:
        seqs = []
        for name in ("RubberWhale", "Dimetrodon", "Venus"):
            d = os.path.join(o.data, "flow", "middlebury", name)
            seqs.append((name, os.path.join(d, "frame10.png"), os.path.join(d, "frame11.png"),
                         os.path.join(d, "flow10.flo")))
        d = os.path.join(o.data, "flow", "sintel", "alley_1")
        for p in ("clean", "final"):
            seqs.append(("alley_1 " + p, os.path.join(d, p, "frame_0002.png"),
                         os.path.join(d, p, "frame_0003.png"),
                         os.path.join(d, "clean", "gt", "frame_0002.flo")))
        print("\nAccuracy: phaseCorrelate per %dx%d block, %d px Hanning window, mean "
              "removed, forward" % (s, s, n))
        print("%-16s %9s %9s %7s %9s" % ("sequence", "denseEPE", "blockEPE", "bad%", "ms/frame"))
        for name, f0, f1, flo in seqs:
            if not (os.path.exists(f0) and os.path.exists(f1) and os.path.exists(flo)):
                print("%-16s (missing under %s)" % (name, o.data))
                continue
            a, b, gt = gray(f0), gray(f1), read_flo(flo)
            t0 = time.perf_counter()
            dx, dy = poc_field(a, b, n, s, win)
            ms = 1e3 * (time.perf_counter() - t0)
            dense, bepe, bad = metrics(dx, dy, gt, s)
            print("%-16s %9.3f %9.3f %7.1f %9.1f" % (name, dense, bepe, bad, ms))
            sys.stdout.flush()

    if not o.no_speed:
        cases = [("E-720-256", 1280, 720, 256, 32), ("1080-64", 1920, 1080, 64, 16)]
        print("\nSpeed: per-window phaseCorrelate (single layer; window extraction and "
              "mean removal included,\nPython loop over the blocks), %d timed frame pairs "
              "of the bench clips" % o.speed_frames)
        print("%-10s %-9s %-5s %7s %10s %8s  %s" % ("case", "frame", "N/s", "blocks",
                                                   "ms/frame", "fps", "frames"))
        for cid, w, h, cn, cs in cases:
            path = os.path.join(o.frames_dir, "vtest_%dx%d.gray" % (w, h))
            frames, origin = None, "synthetic noise"
            if os.path.exists(path):
                raw = np.fromfile(path, np.uint8)
                k = raw.size // (w * h)
                if k >= 2:
                    frames = raw[:k * w * h].reshape(k, h, w).astype(np.float32)
                    origin = path
            if frames is None:
                rng = np.random.default_rng(3)
                frames = rng.uniform(0, 255, (o.speed_frames + 1, h, w)).astype(np.float32)
            cw = cv2.createHanningWindow((cn, cn), cv2.CV_32F)
            poc_field(frames[0], frames[1], cn, cs, cw)  # warm-up
            times = []
            for i in range(o.speed_frames):
                a = frames[i % len(frames)]
                b = frames[(i + 1) % len(frames)]
                t0 = time.perf_counter()
                poc_field(a, b, cn, cs, cw)
                times.append(time.perf_counter() - t0)
            ms = 1e3 * float(np.median(times))
            blocks = ((w + cs - 1) // cs) * ((h + cs - 1) // cs)
            print("%-10s %-9s %-5s %7d %10.1f %8.2f  %s" % (cid, "%dx%d" % (w, h),
                                                          "%d/%d" % (cn, cs), blocks, ms,
                                                          1e3 / ms, origin))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
