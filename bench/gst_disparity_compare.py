#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""stereodisparity vs GStreamer's own `disparity` element (gst-plugins-bad,
OpenCV; Debian package gstreamer1.0-opencv): accuracy on Middlebury 2001
Tsukuba and Venus, and speed through gst-launch-1.0 at 1280x720 and
1920x1080, on this machine.

`disparity` has no properties but `method` (sbm: StereoBM 9x9, 32
disparities; sgbm: StereoSGBM MODE_HH, 3x3, 64 disparities from 1), pairs
frames by arrival order and normalises every output frame to 0..255 (min-max)
as RGB, so its output is not metric. Its accuracy is therefore given twice:
"as delivered" (grey value read as a disparity, which is what a downstream
element gets) and after the best affine map a*v + b to the ground truth,
fitted by least squares on the very pixels evaluated (an oracle no user has:
an upper bound of what its output can say).

Metrics: docs/accuracy.md (B(t) on nonocc, invalid
counted as bad; density). Run from the repository root after a build:

    /usr/bin/python3 bench/gst_disparity_compare.py [--build build] [--frames 21] \
        [--backend cpu --backend cuda] [--no-speed]

Needs numpy and cv2 (python3-opencv) for reading PNGs and the metrics;
the pyenv python3 that may come first on PATH lacks them.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

SCENES = {
    # name: (directory, ground-truth file, scale, number of disparities)
    "tsukuba": ("tsukuba", "disp3.pgm", 16, 16),
    "venus": ("venus", "disp2.pgm", 8, 20),
}


def gst(args, env):
    t0 = time.monotonic()
    r = subprocess.run(["gst-launch-1.0", "-q"] + args, env=env,
                       capture_output=True, text=True)
    dt = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("gst-launch-1.0 failed: %s\n%s" % (" ".join(args), r.stderr[-2000:]))
    return dt


def pair_sources(left, right, caps_rgb=True):
    # `disparity` maps its input READWRITE and fails on a shared buffer:
    # the BGR step makes the last videoconvert allocate a fresh RGB buffer.
    conv = (["videoconvert", "!", "video/x-raw,format=BGR", "!", "videoconvert", "!",
             "video/x-raw,format=RGB"] if caps_rgb else ["videoconvert"])
    # Three copies of the pair: `disparity` pairs by arrival order and, fed
    # one frame per pad followed by EOS, outputs nothing (measured: n frames
    # in give n - 1 out); the first output frame is evaluated.
    out = []
    for path, pad in ((left, "s.sink_left"), (right, "s.sink_right")):
        out += ["multifilesrc", "location=" + path, "caps=image/png,framerate=1/1",
                "num-buffers=3", "!", "pngdec", "!"] + conv + ["!", pad]
    return out


def metrics(d, valid, gt, nonocc):
    """B(1), B(2) on nonocc with invalid counted as bad; density."""
    ev = (gt > 0) & nonocc
    err = np.abs(d - gt)
    bad1 = ev & (~valid | (err > 1.0))
    bad2 = ev & (~valid | (err > 2.0))
    n = ev.sum()
    return 100.0 * bad1.sum() / n, 100.0 * bad2.sum() / n, 100.0 * (ev & valid).sum() / n


def affine_fit(v, gt, nonocc):
    """The affine map back to pixels that suits the ground truth best: least
    squares on the evaluated pixels, then again on those within 2 px of the
    first fit (so that invalid pixels, which the min-max normalisation maps
    to the bottom of the range, do not pull it). Generous on purpose."""
    ev = (gt > 0) & nonocc
    # Start robustly: a line through the median grey value of each ground
    # truth level (quantised to 1/4 px) that has enough pixels.
    q = np.round(gt * 4) / 4
    pts = [(np.median(v[ev & (q == g)]), g) for g in np.unique(q[ev]) if (ev & (q == g)).sum() >= 50]
    coef = np.polyfit([p[0] for p in pts], [p[1] for p in pts], 1)
    sel = ev & (np.abs(coef[0] * v + coef[1] - gt) < 2.0)
    for _ in range(3):
        A = np.stack([v[sel], np.ones(sel.sum())], axis=1)
        coef, *_ = np.linalg.lstsq(A, gt[sel], rcond=None)
        sel = ev & (np.abs(coef[0] * v + coef[1] - gt) < 2.0)
    return coef[0] * v + coef[1]


def read_mask(path):
    # Palette PNGs: decode through the palette (cv2 does), 255 = in the mask.
    m = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    return m > 127


def accuracy(data, env, tmp):
    rows = []
    for name, (sub, gtfile, scale, num) in SCENES.items():
        base = os.path.join(data, "stereo", "middlebury2001", sub)
        left, right = os.path.join(base, "imL.png"), os.path.join(base, "imR.png")
        gt = cv2.imread(os.path.join(base, gtfile), cv2.IMREAD_UNCHANGED).astype(np.float64) / scale
        nonocc = read_mask(os.path.join(base, "nonocc.png"))
        h, w = gt.shape
        for method in ("sbm", "sgbm"):
            out = os.path.join(tmp, "gd_%s_%s.gray" % (name, method))
            gst(["disparity", "name=s", "method=" + method, "!", "videoconvert", "!",
                 "video/x-raw,format=GRAY8", "!", "filesink", "location=" + out] +
                pair_sources(left, right), env)
            stride = (w + 3) // 4 * 4  # GStreamer's GRAY8 rows are 4-byte aligned
            v = np.fromfile(out, np.uint8)[: stride * h].reshape(h, stride)[:, :w].astype(np.float64)
            valid = np.ones_like(v, bool)
            rows.append((name, "disparity method=%s, as delivered" % method) + metrics(v, valid, gt, nonocc))
            rows.append((name, "disparity method=%s, oracle affine fit" % method) +
                        metrics(affine_fit(v, gt, nonocc), valid, gt, nonocc))
        for label, props in (("stereodisparity 7x7 plain", ["subpixel=false", "lr-max-diff=-1"]),
                             ("stereodisparity 7x7 defaults (sub-pixel, LR 1)", []),
                             ("stereodisparity 9x9 plain, 32 disparities (disparity's sbm settings)",
                              ["subpixel=false", "lr-max-diff=-1", "window-width=9", "window-height=9"])):
            n = 32 if "32 disparities" in label else num
            out = os.path.join(tmp, "sd_%s.gray16" % name)
            gst(["stereodisparity", "name=s", "num-disparities=%d" % n, "output=disparity"] + props +
                ["!", "filesink", "location=" + out] + pair_sources(left, right, False), env)
            stride = (2 * w + 3) // 4 * 2  # GRAY16 rows: 4-byte aligned, in samples
            raw = np.fromfile(out, "<u2")[: stride * h].reshape(h, stride)[:, :w]
            valid = raw != 0xFFFF
            d = raw.astype(np.float64) / 16.0
            rows.append((name, label) + metrics(d, valid, gt, nonocc))
    print("\nAccuracy, Middlebury 2001 (B(t) % of non-occluded pixels with known GT, invalid = bad)")
    print("| scene | element | B(1) | B(2) | density |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %.2f | %.2f | %.1f |" % r)


def speed(data, env, tmp, frames, backends):
    base = os.path.join(data, "stereo", "middlebury2001", "tsukuba")
    L = cv2.imread(os.path.join(base, "imL.png"))
    R = cv2.imread(os.path.join(base, "imR.png"))
    print("\nSpeed through gst-launch-1.0 (RGB frames from raw files; ms per pair =")
    print("(wall time with %d pairs - wall time with 1 pair) / %d; this machine: %d cores)" %
          (frames, frames - 1, os.cpu_count()))
    print("| size | element | ms per pair | fps |")
    print("|---|---|---|---|")
    for (w, h) in ((1280, 720), (1920, 1080)):
        files = {}
        for side, img in (("l", L), ("r", R)):
            rgb = cv2.cvtColor(cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2RGB)
            path = os.path.join(tmp, "%s_%dx%d.rgb" % (side, w, h))
            with open(path, "wb") as f:
                f.write(rgb.tobytes() * frames)
            files[side] = path

        def src(n):
            out = []
            for side, pad in (("l", "sink_left"), ("r", "sink_right")):
                out += ["filesrc", "location=" + files[side], "blocksize=%d" % (w * h * 3),
                        "num-buffers=%d" % n, "!", "rawvideoparse", "format=rgb",
                        "width=%d" % w, "height=%d" % h, "framerate=30/1", "!", "s." + pad]
            return out

        cases = [("disparity method=sbm (9x9, 32 disparities)", ["disparity", "name=s", "method=sbm"]),
                 ("disparity method=sgbm (3x3, 64 disparities, MODE_HH)", ["disparity", "name=s", "method=sgbm"])]
        for be in backends:
            for num in (128, 256):
                base_el = ["stereodisparity", "name=s", "backend=" + be, "num-disparities=%d" % num]
                cases.append(("stereodisparity backend=%s 7x7, %d disparities, plain" % (be, num),
                              base_el + ["subpixel=false", "lr-max-diff=-1"]))
                cases.append(("stereodisparity backend=%s 7x7, %d disparities, sub-pixel + LR" % (be, num),
                              base_el))
        for label, el in cases:
            try:
                t1 = gst(el + ["!", "fakesink"] + src(1), env)
                tn = gst(el + ["!", "fakesink"] + src(frames), env)
            except RuntimeError as e:
                print("| %dx%d | %s | error: %s | |" % (w, h, label, str(e).splitlines()[0]))
                continue
            ms = 1000.0 * (tn - t1) / (frames - 1)
            print("| %dx%d | %s | %.1f | %.1f |" % (w, h, label, ms, 1000.0 / ms if ms > 0 else 0))
            sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.path.join("..", "shared", "data"))
    ap.add_argument("--frames", type=int, default=11)
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--backend", action="append",
                    help="stereodisparity backend for the speed rows (repeatable; default cpu)")
    a = ap.parse_args()
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = os.path.abspath(os.path.join(a.build, "gst"))
    with tempfile.TemporaryDirectory() as tmp:
        accuracy(a.data, env, tmp)
        if not a.no_speed:
            speed(a.data, env, tmp, a.frames, a.backend or ["cpu"])


if __name__ == "__main__":
    main()
