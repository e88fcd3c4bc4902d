#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Synthetic flow pairs with exact ground truth: textured layers moving
differently over a moving background (issue 38's stress set).

The shared flow pairs are either small, smooth motions (Middlebury,
alley_1, Yosemite) or motions far beyond a 64 px window (Sintel's ambush,
KITTI); the scenes where a block estimator's window spans two motions of a
few to twenty pixels (trees before a background, objects over a moving
camera's scene) have no pair of their own. This script composes them from
real textures (the shared stereo images, which hold no flow), so that a
change is judged where the failures of unseen sequences are.

Each pair: a background crop moving by a small affine motion (a pan, a
zoom or a rotation of a camera), and one to four foreground layers in
front of it, each a texture cut by a mask and translated by its own motion:
- "objects": ellipses and polygons, 2-14 px a frame;
- "branches": a tree of thick lines with blobs of leaves, 1-8 px a frame,
  over a background moving 0-2 px (a grove before its backdrop);
- "large": a background panning 4-12 px with objects 8-24 px (a street).
Frame 1 is rendered by sampling every layer at its own backward motion
(bilinear, masks anti-aliased), with sensor noise (sigma 1.5 grey levels).
The ground truth of a frame-0 pixel is the motion of the front-most layer
covering it (alpha > 0.5); as in Middlebury's, occluded pixels keep theirs.

Output: DIR/<kind>-<k>/frame10.png, frame11.png, flow10.flo (Middlebury's
.flo), the layout bench/poc_accuracy.py --extra reads, and frame09.png,
the frame before (every layer one step back along its motion), for
estimators that also look back.

Usage: bench/flow-composite.py OUT [--count N] [--seed S] [--size WxH]
  [--data DIR]   (default ../shared/data, MATCH_TEST_DATA)
"""
import argparse
import glob
import os
import struct
import sys

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("flow-composite.py: needs python3-opencv (apt-get install -y python3-opencv)")

KINDS = ("objects", "branches", "large")


def textures(data):
    """Grey images of real scenes with no flow of their own."""
    paths = sorted(glob.glob(os.path.join(data, "stereo", "middlebury2005_2006", "*", "view*.png")))
    paths += sorted(glob.glob(os.path.join(data, "stereo", "middlebury2001", "*", "im*.p?m")))
    paths += sorted(glob.glob(os.path.join(data, "stereo", "kitti2012", "*", "[lr]*.png")))
    out = []
    for p in paths:
        img = cv2.imread(p, cv2.IMREAD_GRAYSCALE)
        if img is not None and img.shape[0] >= 200 and img.shape[1] >= 200:
            out.append(img.astype(np.float32))
    if len(out) < 2:
        sys.exit("flow-composite.py: no stereo images under %s/stereo" % data)
    return out


def crop(rng, tex, w, h):
    """A w x h crop of a random texture, resized up when it is smaller."""
    img = tex[rng.integers(len(tex))]
    s = max(w / img.shape[1], h / img.shape[0], 1.0) * rng.uniform(1.0, 1.4)
    if s > 1.0:
        img = cv2.resize(img, (int(np.ceil(img.shape[1] * s)), int(np.ceil(img.shape[0] * s))),
                         interpolation=cv2.INTER_LINEAR)
    x = rng.integers(img.shape[1] - w + 1)
    y = rng.integers(img.shape[0] - h + 1)
    return img[y:y + h, x:x + w].copy()


def warp(img, a, w, h, border):
    """Frame-1 image of a layer moving by the affine a (2x3, frame 0 ->
    frame 1): img sampled at a^-1(x) (warpAffine inverts the map itself)."""
    return cv2.warpAffine(img, a, (w, h), flags=cv2.INTER_LINEAR, borderMode=border)


def object_mask(rng, w, h, kind):
    m = np.zeros((h, w), np.uint8)
    cx, cy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
    if kind == "branches":
        # a trunk and its branches: thick lines, with blobs at the ends
        stack = [(cx, h + 10.0, -np.pi / 2 + rng.uniform(-0.3, 0.3), rng.uniform(10, 18), 0)]
        while stack:
            x, y, ang, width, depth = stack.pop()
            length = rng.uniform(0.15, 0.35) * h * (0.8 ** depth)
            x2, y2 = x + length * np.cos(ang), y + length * np.sin(ang)
            cv2.line(m, (int(x), int(y)), (int(x2), int(y2)), 255, max(2, int(width)),
                     cv2.LINE_AA)
            if depth < 4:
                for _ in range(rng.integers(2, 4)):
                    stack.append((x2, y2, ang + rng.uniform(-0.9, 0.9), width * 0.65, depth + 1))
            else:
                for _ in range(rng.integers(2, 6)):
                    bx = x2 + rng.normal(0, 10)
                    by = y2 + rng.normal(0, 10)
                    cv2.ellipse(m, (int(bx), int(by)),
                                (int(rng.uniform(5, 16)), int(rng.uniform(4, 12))),
                                rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
    elif rng.random() < 0.5:
        axes = (int(rng.uniform(0.06, 0.22) * w), int(rng.uniform(0.06, 0.22) * h))
        cv2.ellipse(m, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 255, -1,
                    cv2.LINE_AA)
    else:
        n = rng.integers(4, 8)
        r = rng.uniform(0.06, 0.2) * min(w, h)
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        pts = np.stack([cx + r * rng.uniform(0.6, 1.4, n) * np.cos(ang),
                        cy + r * rng.uniform(0.6, 1.4, n) * np.sin(ang)], 1)
        cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def translation(rng, lo, hi):
    mag = rng.uniform(lo, hi)
    ang = rng.uniform(0, 2 * np.pi)
    return mag * np.cos(ang), mag * np.sin(ang)


def background_motion(rng, w, h, lo, hi):
    """A camera's small affine motion: a pan plus a zoom or a rotation."""
    tx, ty = translation(rng, lo, hi)
    s = 1.0 + (rng.uniform(-0.02, 0.02) if rng.random() < 0.5 else 0.0)
    th = rng.uniform(-0.01, 0.01) if rng.random() < 0.5 else 0.0
    c, sn = s * np.cos(th), s * np.sin(th)
    cx, cy = w / 2.0, h / 2.0
    return np.array([[c, -sn, cx - c * cx + sn * cy + tx],
                     [sn, c, cy - sn * cx - c * cy + ty]], np.float64)


def compose(rng, rng_before, tex, w, h, kind):
    """the frame before frame 0, frame 0, frame 1 (float grey) and the
    frame-0 flow (h, w, 2). rng_before draws the first one's noise only, so
    that frames 0 and 1 of a seed do not depend on it."""
    if kind == "large":
        bg_a = background_motion(rng, w, h, 4, 12)
        n_obj, obj_lo, obj_hi = rng.integers(1, 4), 8, 24
    elif kind == "branches":
        bg_a = background_motion(rng, w, h, 0, 2)
        n_obj, obj_lo, obj_hi = rng.integers(1, 3), 1, 8
    else:
        bg_a = background_motion(rng, w, h, 0, 3)
        n_obj, obj_lo, obj_hi = rng.integers(2, 5), 2, 14
    bg = crop(rng, tex, w, h)
    f0 = bg.copy()
    f1 = warp(bg, bg_a, w, h, cv2.BORDER_REFLECT)
    # the frame before frame 0: every layer one step back along its motion
    bg_inv = cv2.invertAffineTransform(bg_a)
    fm = warp(bg, bg_inv, w, h, cv2.BORDER_REFLECT)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    flow = np.dstack([bg_a[0, 0] * xs + bg_a[0, 1] * ys + bg_a[0, 2] - xs,
                      bg_a[1, 0] * xs + bg_a[1, 1] * ys + bg_a[1, 2] - ys]).astype(np.float32)
    for _ in range(n_obj):
        t = crop(rng, tex, w, h)
        # a layer of its own: another contrast, so that edges are visible
        t = np.clip((t - t.mean()) * rng.uniform(0.7, 1.3) + rng.uniform(60, 190), 0, 255)
        m = object_mask(rng, w, h, kind)
        tx, ty = translation(rng, obj_lo, obj_hi)
        a = np.array([[1, 0, tx], [0, 1, ty]], np.float64)
        m1 = warp(m, a, w, h, cv2.BORDER_CONSTANT)
        t1 = warp(t, a, w, h, cv2.BORDER_REFLECT)
        b = np.array([[1, 0, -tx], [0, 1, -ty]], np.float64)
        mm = warp(m, b, w, h, cv2.BORDER_CONSTANT)
        tm = warp(t, b, w, h, cv2.BORDER_REFLECT)
        f0 = f0 * (1 - m) + t * m
        f1 = f1 * (1 - m1) + t1 * m1
        fm = fm * (1 - mm) + tm * mm
        front = m > 0.5
        flow[front, 0] = tx
        flow[front, 1] = ty
    noise = 1.5
    f0 = np.clip(f0 + rng.normal(0, noise, f0.shape), 0, 255)
    f1 = np.clip(f1 + rng.normal(0, noise, f1.shape), 0, 255)
    fm = np.clip(fm + rng_before.normal(0, noise, fm.shape), 0, 255)
    return fm, f0, f1, flow


def write_flo(path, uv):
    h, w = uv.shape[:2]
    with open(path, "wb") as f:
        f.write(struct.pack("<fii", 202021.25, w, h))
        f.write(uv.astype("<f4").tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=4, help="pairs per kind (4)")
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "shared", "data")))
    o = ap.parse_args()
    w, h = (int(v) for v in o.size.split("x"))
    rng = np.random.default_rng(o.seed)
    rng_before = np.random.default_rng(o.seed + 1000003)
    tex = textures(o.data)
    for kind in KINDS:
        for k in range(o.count):
            fm, f0, f1, flow = compose(rng, rng_before, tex, w, h, kind)
            d = os.path.join(o.out, "%s-%d" % (kind, k))
            os.makedirs(d, exist_ok=True)
            cv2.imwrite(os.path.join(d, "frame09.png"), np.round(fm).astype(np.uint8))
            cv2.imwrite(os.path.join(d, "frame10.png"), np.round(f0).astype(np.uint8))
            cv2.imwrite(os.path.join(d, "frame11.png"), np.round(f1).astype(np.uint8))
            write_flo(os.path.join(d, "flow10.flo"), flow)
            print(d, "max |flow| %.1f px" % np.hypot(flow[..., 0], flow[..., 1]).max())


if __name__ == "__main__":
    main()
