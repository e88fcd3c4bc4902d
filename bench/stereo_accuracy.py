#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""stereodisparity against OpenCV StereoBM and StereoSGBM (MODE_SGBM,
MODE_HH) on the shared stereo data: bad-pixel rates and density per scene,
one table per metric (rows = scenes, columns = methods), plus an average.

Scenes (the shared data set, ../shared/data or MATCH_TEST_DATA; metrics of
docs/accuracy.md):
- Middlebury 2001 tsukuba, venus: GT = disp3.pgm / 16, disp2.pgm / 8
  (info.txt), 0 = unknown; masks nonocc.png and all.png (palette PNGs).
- Middlebury 2005 Art, Books, Dolls, Laundry (third size): GT = disp1 / 3,
  0 = unknown; "all" = every known pixel, "nonocc" = known pixels whose left
  GT and right GT (disp5 at x - d) agree within 1 px.
  Middlebury metrics: B(1), B(2) on nonocc and on all, density.
- KITTI 2012 000004, 000023, 000042, 000060: GT = disp_noc / 256, 0 = no GT
  (sparse, non-occluded only). Metrics over the GT pixels: B(3) (error > 3 px)
  and KITTI's D1 (error > 3 px AND > 5 % of the true disparity), density.
Everywhere a pixel without an estimate (invalid) counts as bad; density = %
of the evaluated pixels that have an estimate.

Disparity range, the same for every method (min-disparity 0; OpenCV wants a
multiple of 16):
- tsukuba 16 (GT 0..14, info.txt: 15 levels)
- venus 32 (GT 0..19.75; 16 would cut it, OpenCV needs a multiple of 16)
- Middlebury 2005 80 (GT up to 77.3 px in Laundry; the README says search
  0..80)
- KITTI 128 (the usual setting, libSGM's and the speed figures'). GT
  reaches 65.5-71.8 px in 000004/000023/000060, but 169.3 px in 000042,
  where 1.1 % of the GT pixels (968) are >= 128 px: out of reach of every
  method, so bad for all. A wider range costs OpenCV its left border (it
  leaves the first num-disparities columns invalid: 6-7 % of KITTI's GT
  pixels at 128, 10-12 % at 192). --ndisp kitti=192 to change it.

Methods:
- ours: the stereodisparity element through gst-launch-1.0 (GST_PLUGIN_PATH
  = BUILD/gst), output=disparity (GRAY16_LE, disparity x 16, 65535 =
  invalid), once per named configuration: free-form element properties
  "prop=value ..." (built-in list: --list-configs; --configs picks, --config
  NAME=PROPS adds). num-disparities, min-disparity=0 and backend (--backend)
  come first, so a configuration may override them. "prop?=value" sets a
  property only where the element has it (gst-inspect-1.0): block-sad
  says "method?=block cost?=sad", as elements with those properties
  default to sgm/census and older ones have neither. A configuration the
  element cannot take (unknown property or value, failed pipeline) gives
  "n/a" in the tables and its gst error in the JSON and on stderr. A map
  bit-identical to an earlier configuration's on the same scene is marked
  "=" in the tables and "same_output_as" in the JSON: the element accepted
  settings it does not act on.
- cv-BM: cv2.StereoBM, blockSize 7 (our window), OpenCV's defaults for the
  rest (x-Sobel pre-filter, cap 31, size 9; textureThreshold 10;
  uniquenessRatio 15; no speckle filter; no left-right check).
- cv-SGBM / cv-HH: cv2.StereoSGBM MODE_SGBM (5 directions) / MODE_HH
  (8 directions), blockSize 3 (--sgbm-block), P1 = 8 * blockSize^2,
  P2 = 32 * blockSize^2 (one channel), uniquenessRatio 10,
  speckleWindowSize 100, speckleRange 2 (px), disp12MaxDiff 1,
  preFilterCap 63: the typical settings of OpenCV's stereo_match sample.
  blockSize 3 is that sample's default; measured here (OpenCV 4.6) it gives
  the lower B(1) on Middlebury (averages nonocc 15.3 % HH / 16.0 % SGBM,
  against 16.2 / 16.8 with 5) and 5 the lower D1 on KITTI (19.9 / 18.1
  against 20.8 / 18.8 with 3).
All methods see the same 8-bit grey views (cv2 IMREAD_GRAYSCALE, BT.601;
the element gets them as grey PNGs, so its input is byte-identical).

--speed instead times, at 1280x720 with 128 disparities (KITTI 000004
resized bilinearly; tsukuba if KITTI is absent), OpenCV StereoSGBM MODE_HH
and MODE_SGBM with --threads threads (cv2.setNumThreads; default all cores)
after a warm-up, median of --runs; and with --bench-stereo PATH (our
build/bench/bench_stereo) ours on the same pair: each selected
configuration's properties become bench_stereo flags (window-width ->
--window, subpixel -> --subpixel 0|1, lr-max-diff -> --lr,
uniqueness-ratio -> --uniqueness, texture-threshold -> --texture, any other
prop -> --prop value, e.g. method -> --method; "prop?=value" only where
its --help lists the flag); a flag it does not know gives "n/a". It prints ms, fps and the ratio ours / SGBM-HH.

Usage (repository root, after a build; numpy and python3-opencv, so the
system interpreter):
  /usr/bin/python3 bench/stereo_accuracy.py [--build build] [--data DIR]
      [--scenes tsukuba,kitti-000004|mb2001|mb2005|kitti|all]
      [--configs block-sad,sgm-census-8] [--config 'NAME=prop=v prop=v']
      [--opencv bm,sgbm,hh|none] [--backend auto|cpu|cuda] [--json FILE]
  /usr/bin/python3 bench/stereo_accuracy.py --speed [--threads 2] [--runs 5]
      [--bench-stereo build/bench/bench_stereo] [--configs ...]
"""
import argparse
import collections
import csv as csvmod
import datetime
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("stereo_accuracy.py: needs python3-opencv (apt-get install -y python3-opencv)")

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (group, directory under stereo/, number of disparities)
SCENES = collections.OrderedDict([
    ("tsukuba", ("mb2001", "middlebury2001/tsukuba", 16)),
    ("venus", ("mb2001", "middlebury2001/venus", 32)),
    ("art", ("mb2005", "middlebury2005_2006/Art", 80)),
    ("books", ("mb2005", "middlebury2005_2006/Books", 80)),
    ("dolls", ("mb2005", "middlebury2005_2006/Dolls", 80)),
    ("laundry", ("mb2005", "middlebury2005_2006/Laundry", 80)),
    ("kitti-000004", ("kitti", "kitti2012/000004", 128)),
    ("kitti-000023", ("kitti", "kitti2012/000023", 128)),
    ("kitti-000042", ("kitti", "kitti2012/000042", 128)),
    ("kitti-000060", ("kitti", "kitti2012/000060", 128)),
])

# Our element's named configurations: (name, properties, description).
# "prop?=value" sets prop only where the element has it: block-sad is block
# matching with SAD both on elements that have `method`/`cost` (whose
# default is sgm/census) and on older ones (block SAD only, no such
# properties).
# The refinements the element runs by default since 2026-11-27, off (the
# block configurations keep what they measured before; "?=": also on
# elements without them).
NO_REFINEMENTS = " p2-edge?=0 fill-invalid?=false joint-median?=0"
CONFIGS = [
    ("block-sad", "method?=block cost?=sad window-width=7 window-height=7 subpixel=true "
     "lr-max-diff=1 median?=false" + NO_REFINEMENTS,
     "7x7 SAD WTA, sub-pixel, LR check 1 (paper [D])"),
    ("block-sad-u15", "method?=block cost?=sad window-width=7 window-height=7 subpixel=true "
     "lr-max-diff=1 uniqueness-ratio=15 median?=false" + NO_REFINEMENTS,
     "block-sad + uniqueness 15 % (StereoBM's default ratio)"),
    ("block-sobel", "method=block cost=sobel window-width=7 window-height=7 lr-max-diff=2"
     + NO_REFINEMENTS,
     "7x7 SAD of the clipped x-Sobel (StereoBM-like pre-filter), median, LR 2"),
    ("block-census", "method=block cost=census census-width=9 census-height=7 "
     "window-width=7 window-height=7 lr-max-diff=2" + NO_REFINEMENTS,
     "7x7 sum of 9x7 census Hamming costs, median, LR 2"),
    ("sgm-census-8-plain", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window?=1 median=false lr-max-diff=1" + NO_REFINEMENTS,
     "SGM, 9x7 census per pixel, 8 paths, P1/P2 10/120, LR check 1, no median"),
    ("sgm-census-8-pixel", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window?=1 lr-max-diff=2" + NO_REFINEMENTS,
     "sgm-census-8-basic on the per-pixel costs (cost-window 1: the defaults before "
     "2026-11-27)"),
    ("sgm-census-8-basic", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window?=3 lr-max-diff=2" + NO_REFINEMENTS,
     "the earlier defaults: SGM, 9x7 census averaged over 3x3, 8 paths, P1/P2 "
     "10/120, 3x3 median, LR check 2, no refinements"),
    ("sgm-census-4", "method=sgm cost=census census-width=9 census-height=7 paths=4 "
     "cost-window?=3", "the element's defaults with 4 paths (libSGM's setting)"),
    ("sgm-census-8", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window?=3", "the element's defaults: sgm-census-8-basic + edge-aware P2 32, LR "
     "check 1, row fill, 7x7 joint median (luma within 16)"),
    ("sgm-census-ad-8", "method=sgm cost=census-ad census-width=9 census-height=7 paths=8 "
     "cost-window?=3", "sgm-census-8 with the census + AD cost (census + min(|AD|, 31) / 2)"),
    ("sgm-census-8-filt", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window?=3 uniqueness-ratio=10 speckle-size=100 speckle-range=2",
     "sgm-census-8 + uniqueness 10, speckle 100/2 px (SGBM's post-filters)"),
    ("sgm-census-8-refined", "method=sgm cost=census census-width=9 census-height=7 paths=8 "
     "cost-window=3 p2-edge=32 lr-max-diff=1 speckle-size=100 speckle-range=2 "
     "fill-invalid=true joint-median=3 joint-median-range=16",
     "sgm-census-8 + speckle 100/2 (the filters after it run on the host with CUDA): "
     "docs/design/stereodisparity.md, Choosing the defaults"),
]
DEFAULT_CONFIGS = [c[0] for c in CONFIGS]
OPENCV_METHODS = collections.OrderedDict([("bm", "cv-BM"), ("sgbm", "cv-SGBM"), ("hh", "cv-HH")])

# Errors that mean "the element cannot take this configuration at all":
# later scenes would fail the same way, so they are not tried again.
CONFIG_ERRORS = ("no property", "could not set property", "erroneous pipeline",
                 "No such element")


# ---------------------------------------------------------------- data

def gray(path):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)  # also decodes palette PNGs
    if img is None:
        raise IOError("cannot read " + path)
    return img


def load_scene(data, name):
    group, sub, ndisp = SCENES[name]
    d = os.path.join(data, "stereo", sub)
    sc = {"name": name, "group": group, "ndisp": ndisp, "dir": d}
    if group == "mb2001":
        with open(os.path.join(d, "info.txt")) as f:
            scale = int(f.read().split()[0])
        gtfile = {"tsukuba": "disp3.pgm", "venus": "disp2.pgm"}[name]
        raw = gray(os.path.join(d, gtfile))
        sc["left"], sc["right"] = gray(os.path.join(d, "imL.png")), gray(os.path.join(d, "imR.png"))
        sc["gt"] = raw.astype(np.float64) / scale
        known = raw > 0
        sc["masks"] = {"nonocc": known & (gray(os.path.join(d, "nonocc.png")) > 127),
                       "all": known & (gray(os.path.join(d, "all.png")) > 127)}
    elif group == "mb2005":
        sc["left"], sc["right"] = gray(os.path.join(d, "view1.png")), gray(os.path.join(d, "view5.png"))
        d1 = cv2.imread(os.path.join(d, "disp1.png"), cv2.IMREAD_UNCHANGED).astype(np.float64)
        d5 = cv2.imread(os.path.join(d, "disp5.png"), cv2.IMREAD_UNCHANGED).astype(np.float64)
        known = d1 > 0
        h, w = d1.shape
        g1, g5 = d1 / 3.0, d5 / 3.0
        # Left-right check of the GT: view1(x) ~ view5(x - d1(x)).
        xr = np.rint(np.arange(w)[None, :] - g1).astype(np.int64)
        inside = (xr >= 0) & (xr < w)
        ys = np.repeat(np.arange(h)[:, None], w, axis=1)
        other = np.where(inside, g5[ys, np.clip(xr, 0, w - 1)], 0.0)
        nonocc = known & inside & (other > 0) & (np.abs(g1 - other) <= 1.0)
        sc["gt"] = g1
        sc["masks"] = {"nonocc": nonocc, "all": known}
    else:
        sc["left"], sc["right"] = gray(os.path.join(d, "left.png")), gray(os.path.join(d, "right.png"))
        raw = cv2.imread(os.path.join(d, "disp_noc.png"), cv2.IMREAD_UNCHANGED)
        if raw is None or raw.dtype != np.uint16:
            raise IOError("disp_noc.png is not a 16-bit PNG in " + d)
        sc["gt"] = raw.astype(np.float64) / 256.0
        sc["masks"] = {"noc": raw > 0}
    return sc


def metric_names(group):
    if group == "kitti":
        return ["B3", "D1", "dens"]
    return ["B1 nonocc", "B2 nonocc", "B1 all", "B2 all", "dens nonocc", "dens all"]


def metrics(sc, disp, valid):
    """disp: float disparity in pixels; valid: bool map of estimates."""
    err = np.where(valid, np.abs(disp - sc["gt"]), np.inf)
    out = {}
    if sc["group"] == "kitti":
        m = sc["masks"]["noc"]
        n = float(m.sum())
        e = err[m]
        out["B3"] = 100.0 * (e > 3.0).sum() / n
        out["D1"] = 100.0 * ((e > 3.0) & (e > 0.05 * sc["gt"][m])).sum() / n
        out["dens"] = 100.0 * valid[m].sum() / n
        return out
    for mk in ("nonocc", "all"):
        m = sc["masks"][mk]
        n = float(m.sum())
        e = err[m]
        out["B1 " + mk] = 100.0 * (e > 1.0).sum() / n
        out["B2 " + mk] = 100.0 * (e > 2.0).sum() / n
        out["dens " + mk] = 100.0 * valid[m].sum() / n
    return out


# ---------------------------------------------------------------- methods

def sgbm_params(block, num, mode):
    return dict(minDisparity=0, numDisparities=num, blockSize=block,
                P1=8 * block * block, P2=32 * block * block, disp12MaxDiff=1,
                preFilterCap=63, uniquenessRatio=10, speckleWindowSize=100,
                speckleRange=2, mode=mode)


def run_opencv(which, left, right, num, sgbm_block):
    if which == "bm":
        m = cv2.StereoBM_create(numDisparities=num, blockSize=7)
    else:
        mode = cv2.STEREO_SGBM_MODE_HH if which == "hh" else cv2.STEREO_SGBM_MODE_SGBM
        m = cv2.StereoSGBM_create(**sgbm_params(sgbm_block, num, mode))
    t0 = time.perf_counter()
    d16 = m.compute(left, right)
    dt = time.perf_counter() - t0
    valid = d16 >= 0  # invalid = (minDisparity - 1) * 16
    return d16.astype(np.float64) / 16.0, valid, dt


def gst_pair_args(lpng, rpng):
    out = []
    for path, pad in ((lpng, "s.sink_left"), (rpng, "s.sink_right")):
        out += ["filesrc", "location=" + path, "!", "pngdec", "!", "videoconvert", "!",
                "video/x-raw,format=GRAY8", "!", pad]
    return out


_ELEMENT_PROPS = {}


def element_props(env):
    """The stereodisparity property names (gst-inspect-1.0), None if unknown."""
    key = env.get("GST_PLUGIN_PATH")
    if key not in _ELEMENT_PROPS:
        names = None
        try:
            r = subprocess.run(["gst-inspect-1.0", "stereodisparity"], env=env,
                               capture_output=True, text=True, timeout=60)
            if r.returncode == 0:
                body = r.stdout.split("Element Properties:", 1)[-1]
                names = set()
                for line in body.splitlines():
                    if line.startswith("  ") and not line.startswith("   ") and " : " in line:
                        names.add(line.split(":", 1)[0].strip())
                    elif line and not line.startswith(" "):
                        break
        except (OSError, subprocess.TimeoutExpired):
            pass
        _ELEMENT_PROPS[key] = names
    return _ELEMENT_PROPS[key]


def resolve_props(props, known):
    """Splits "a=1 b?=2" into gst-launch words; "b?=2" is kept only when the
    element has b (known: set of names, or None when gst-inspect failed,
    then kept). Returns (words, dropped)."""
    words, dropped = [], []
    for tok in shlex.split(props):
        k, sep, v = tok.partition("?=")
        if sep and "=" not in k:
            if known is not None and k not in known:
                dropped.append(tok)
                continue
            tok = k + "=" + v
        words.append(tok)
    return words, dropped


def run_ours(props, sc, tmp, env, backend, timeout):
    """Returns (disp, valid, seconds, None) or (None, None, None, error)."""
    h, w = sc["left"].shape
    lpng = os.path.join(tmp, sc["name"] + "_L.png")
    rpng = os.path.join(tmp, sc["name"] + "_R.png")
    if not os.path.exists(lpng):
        cv2.imwrite(lpng, sc["left"])
        cv2.imwrite(rpng, sc["right"])
    out = os.path.join(tmp, "out.gray16")
    if os.path.exists(out):
        os.unlink(out)
    el = ["stereodisparity", "name=s", "output=disparity", "min-disparity=0",
          "num-disparities=%d" % sc["ndisp"]]
    if backend:
        el.append("backend=" + backend)
    el += resolve_props(props, element_props(env))[0]
    cmd = (["gst-launch-1.0", "-q"] + el + ["!", "video/x-raw,format=GRAY16_LE", "!",
                                            "filesink", "location=" + out] + gst_pair_args(lpng, rpng))
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, None, "gst-launch-1.0 timed out after %d s" % timeout
    dt = time.perf_counter() - t0
    msg = (r.stderr.strip() or r.stdout.strip()).replace("\n", " | ")
    if r.returncode != 0:
        return None, None, None, "gst-launch-1.0 exit %d: %s" % (r.returncode, msg[-600:])
    stride = (2 * w + 3) // 4 * 4  # GRAY16 rows are 4-byte aligned
    size = os.path.getsize(out) if os.path.exists(out) else 0
    if size < stride * h or size % (stride * h):
        return None, None, None, ("output is %d bytes, not a multiple of %d x %d (stride x height): %s"
                                  % (size, stride, h, msg[-300:]))
    raw = np.fromfile(out, "<u2", count=stride // 2 * h).reshape(h, stride // 2)[:, :w]
    valid = raw != 0xFFFF
    return raw.astype(np.float64) / 16.0, valid, dt, None


# ---------------------------------------------------------------- output

def fmt(v):
    return "n/a" if v is None else "%.2f" % v


def print_table(title, scenes, cols, results, key):
    print("\n" + title)
    w0 = max(8, max(len(s) for s in scenes))
    widths = [max(7, len(c)) for c in cols]
    print("  " + "scene".ljust(w0) + " " + " ".join(c.rjust(wd) for c, wd in zip(cols, widths)))
    sums = []
    for s in scenes:
        cells = [results[s][c]["metrics"].get(key) if results[s][c]["status"] == "ok" else None
                 for c in cols]
        sums.append(cells)
        marks = ["=" if results[s][c].get("same_output_as") else "" for c in cols]
        print("  " + s.ljust(w0) + " " + " ".join((fmt(v) + m).rjust(wd)
                                                  for v, m, wd in zip(cells, marks, widths)))
    avg = []
    for i in range(len(cols)):
        vals = [row[i] for row in sums]
        avg.append(None if any(v is None for v in vals) else sum(vals) / len(vals))
    print("  " + "average".ljust(w0) + " " + " ".join(fmt(v).rjust(wd) for v, wd in zip(avg, widths)))
    return dict(zip(cols, avg))


# ---------------------------------------------------------------- speed

# props -> bench_stereo flags. bench_stereo starts from match::StereoRuntime's
# defaults, not the element's: the element's defaults that differ (3x3
# median on, lr-max-diff 1, edge-aware P2 32, the fill, the 7x7 joint
# median) are given first, so that a configuration times what the element
# runs.
ELEMENT_DEFAULTS = "median=true lr-max-diff=1 p2-edge=32 fill-invalid=true joint-median=3"


def bench_flags(props, backend, helptext):
    flags = []
    win = None
    census = {}
    settings = {}
    for tok in shlex.split(ELEMENT_DEFAULTS) + shlex.split(props):
        if "=" not in tok:
            return None, "not prop=value: " + tok
        k, v = tok.split("=", 1)
        if k.endswith("?"):  # optional: only where bench_stereo has the flag
            k = k[:-1]
            flag = {"window-width": "--window", "window-height": "--window", "lr-max-diff": "--lr",
                    "uniqueness-ratio": "--uniqueness", "texture-threshold": "--texture",
                    "census-width": "--census", "census-height": "--census",
                    "speckle-size": "--speckle", "fill-invalid": "--fill"}.get(k, "--" + k)
            if flag not in helptext:
                continue
        settings[k] = v  # later settings override the defaults
    for k, v in settings.items():
        vl = v.lower()
        if vl in ("true", "false"):
            v = "1" if vl == "true" else "0"
        if k in ("window-width", "window-height"):
            if win is not None and win != v:
                return None, "bench_stereo takes square windows only"
            win = v
        elif k in ("num-disparities", "min-disparity", "output", "n-threads"):
            continue
        elif k in ("census-width", "census-height"):
            census[k] = v
        elif k == "median":
            if v == "1":
                flags.append("--median")
        elif k == "fill-invalid":
            if v == "1":
                flags.append("--fill")
        elif k == "speckle-size":
            flags += ["--speckle", v]
        elif k == "lr-max-diff":
            flags += ["--lr", v]
        elif k == "uniqueness-ratio":
            flags += ["--uniqueness", v]
        elif k == "texture-threshold":
            flags += ["--texture", v]
        elif k == "backend":
            backend = v
        else:
            flags += ["--" + k, v]
    if census:
        flags += ["--census", "%sx%s" % (census.get("census-width", "9"),
                                         census.get("census-height", "7"))]
    if backend and backend != "auto":
        flags += ["--backend", backend]
    return (flags, win or "7"), None


def speed(a, data, configs):
    cv2.setNumThreads(a.threads)
    w, h, num = 1280, 720, 128
    kd = os.path.join(data, "stereo", "kitti2012", "000004")
    td = os.path.join(data, "stereo", "middlebury2001", "tsukuba")
    if os.path.isdir(kd):
        L, R, origin = gray(os.path.join(kd, "left.png")), gray(os.path.join(kd, "right.png")), \
            "KITTI 2012 000004 (1241x376)"
    elif os.path.isdir(td):
        L, R, origin = gray(os.path.join(td, "imL.png")), gray(os.path.join(td, "imR.png")), \
            "Middlebury tsukuba (384x288)"
    else:
        sys.exit("no KITTI 000004 or tsukuba under " + data)
    L = cv2.resize(L, (w, h), interpolation=cv2.INTER_LINEAR)
    R = cv2.resize(R, (w, h), interpolation=cv2.INTER_LINEAR)
    print("Speed at %dx%d, %d disparities: %s resized bilinearly; %d threads "
          "(cv2.getNumThreads %d, %d cores); OpenCV %s; median of %d runs after a warm-up"
          % (w, h, num, origin, a.threads, cv2.getNumThreads(), os.cpu_count(), cv2.__version__, a.runs))
    load = os.getloadavg()
    print("  load average before: %.2f %.2f %.2f (timings are only as good as an idle machine)" % load)
    print("  %-34s %10s %8s %10s" % ("method", "ms/pair", "fps", "vs cv-HH"))
    res = collections.OrderedDict()
    for which, mode in (("cv-HH", cv2.STEREO_SGBM_MODE_HH), ("cv-SGBM", cv2.STEREO_SGBM_MODE_SGBM)):
        m = cv2.StereoSGBM_create(**sgbm_params(a.sgbm_block, num, mode))
        m.compute(L, R)
        ts = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            m.compute(L, R)
            ts.append(1e3 * (time.perf_counter() - t0))
        res[which] = {"ms": float(np.median(ts)), "runs_ms": ts,
                      "settings": "blockSize %d, P1 %d, P2 %d" % (a.sgbm_block, 8 * a.sgbm_block ** 2,
                                                                   32 * a.sgbm_block ** 2)}
    hh = res["cv-HH"]["ms"]
    for k, v in res.items():
        print("  %-34s %10.1f %8.2f %10.2f" % (k + " (blockSize %d)" % a.sgbm_block, v["ms"], 1e3 / v["ms"],
                                                v["ms"] / hh))
    sys.stdout.flush()
    if a.bench_stereo:
        try:
            hr = subprocess.run([a.bench_stereo, "--help"], capture_output=True, text=True, timeout=30)
            helptext = hr.stdout + hr.stderr
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit("cannot run %s: %s" % (a.bench_stereo, e))
        with tempfile.TemporaryDirectory() as tmp:
            lp, rp = os.path.join(tmp, "L.pgm"), os.path.join(tmp, "R.pgm")
            cv2.imwrite(lp, L)
            cv2.imwrite(rp, R)
            for name, props in configs:
                fl, err = bench_flags(props, a.backend, helptext)
                row = {"props": props}
                if fl is not None:
                    flags, win = fl
                    csv = os.path.join(tmp, "b.csv")
                    cmd = [a.bench_stereo, "--left", lp, "--right", rp, "--size", "%dx%d" % (w, h),
                           "--disparities", str(num), "--window", win, "--threads", str(a.threads),
                           "--frames", str(a.bench_frames), "--runs", str(a.runs), "--csv", csv] + flags
                    row["command"] = " ".join(shlex.quote(c) for c in cmd)
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode != 0:
                        err = "bench_stereo exit %d: %s" % (r.returncode,
                                                           (r.stderr.strip() or r.stdout.strip())
                                                           .replace("\n", " | ")[-400:])
                    else:
                        with open(csv) as f:
                            rows = list(csvmod.DictReader(f))
                        if not rows:
                            err = "bench_stereo wrote no row: " + r.stdout.strip()[-300:]
                        else:
                            row["ms"] = float(rows[0]["ms_per_frame"])
                            row["description"] = rows[0]["description"]
                            row["backend"] = rows[0]["backend"]
                if err:
                    row["error"] = err
                    print("  %-34s %10s %8s %10s   (%s)" % ("ours " + name, "n/a", "", "", err))
                else:
                    print("  %-34s %10.1f %8.2f %10.2f   (%s, %s)"
                          % ("ours " + name, row["ms"], 1e3 / row["ms"], row["ms"] / hh,
                             row["backend"], row["description"]))
                sys.stdout.flush()
                res["ours " + name] = row
    return {"size": [w, h], "disparities": num, "threads": a.threads, "data": origin,
            "loadavg_before": load, "loadavg_after": os.getloadavg(),
            "opencv": cv2.__version__, "methods": res}


# ---------------------------------------------------------------- main

def pick_scenes(spec):
    out = []
    for s in spec.split(","):
        s = s.strip().lower()
        if not s:
            continue
        if s == "all":
            out += list(SCENES)
        elif s in ("mb2001", "mb2005", "kitti"):
            out += [n for n, v in SCENES.items() if v[0] == s]
        elif s in SCENES:
            out.append(s)
        elif "kitti-" + s in SCENES:
            out.append("kitti-" + s)
        else:
            sys.exit("unknown scene %r (known: %s, mb2001, mb2005, kitti, all)" % (s, ", ".join(SCENES)))
    return list(collections.OrderedDict.fromkeys(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                    help="build directory whose gst/ holds the plugin (default ../build)")
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--scenes", default="all")
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                    help="built-in configurations of ours, comma-separated ('' or none: none)")
    ap.add_argument("--config", action="append", default=[], metavar="NAME=PROPS",
                    help="one more configuration, e.g. 'sgm-p2=method=sgm cost=census p2=200'")
    ap.add_argument("--list-configs", action="store_true")
    ap.add_argument("--opencv", default="bm,sgbm,hh", help="subset of bm,sgbm,hh, or none")
    ap.add_argument("--backend", default="auto", help="ours: auto|cpu|cuda (default auto)")
    ap.add_argument("--sgbm-block", type=int, default=3,
                    help="StereoSGBM blockSize (default 3, OpenCV stereo_match sample)")
    ap.add_argument("--ndisp", action="append", default=[], metavar="SCENE|GROUP=N",
                    help="override a disparity range, e.g. kitti=192")
    ap.add_argument("--timeout", type=int, default=120, help="per gst-launch-1.0 run, s")
    ap.add_argument("--json", help="write every number to this file")
    ap.add_argument("--target", default="cv-HH",
                    help="column the summary compares ours with (default cv-HH)")
    ap.add_argument("--speed", action="store_true", help="time at 720p/128 instead (see above)")
    ap.add_argument("--bench-stereo", help="--speed: our build/bench/bench_stereo")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bench-frames", type=int, default=3, help="--speed: pairs per bench_stereo run")
    a = ap.parse_args()

    known = {n: p for n, p, _ in CONFIGS}
    if a.list_configs:
        for n, p, d in CONFIGS:
            print("%-18s %s\n%-18s   %s" % (n, d, "", p))
        return 0
    configs = []
    sel = [] if a.configs.strip().lower() in ("", "none") else a.configs.split(",")
    for n in sel:
        n = n.strip()
        if n not in known:
            sys.exit("unknown configuration %r (--list-configs)" % n)
        configs.append((n, known[n]))
    for c in a.config:
        if "=" not in c:
            sys.exit("--config wants NAME=PROPS, got %r" % c)
        n, p = c.split("=", 1)
        configs = [x for x in configs if x[0] != n] + [(n, p)]

    if a.speed:
        out = speed(a, a.data, configs)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"speed": out}, f, indent=1)
        return 0

    scenes = pick_scenes(a.scenes)
    for o in a.ndisp:
        k, v = o.split("=")
        for s in SCENES:
            if s == k or SCENES[s][0] == k:
                SCENES[s] = SCENES[s][:2] + (int(v),)
    loaded = []
    for s in scenes:
        d = os.path.join(a.data, "stereo", SCENES[s][1])
        if not os.path.isdir(d):
            print("skipping %s: no %s" % (s, d), file=sys.stderr)
            continue
        loaded.append(load_scene(a.data, s))
    if not loaded:
        sys.exit("no stereo data under " + a.data)
    cv_sel = [] if a.opencv.strip().lower() in ("", "none") else [x.strip() for x in a.opencv.split(",")]
    for c in cv_sel:
        if c not in OPENCV_METHODS:
            sys.exit("--opencv: unknown %r (bm, sgbm, hh)" % c)

    env = dict(os.environ)
    plugdir = os.path.abspath(os.path.join(a.build, "gst"))
    env["GST_PLUGIN_PATH"] = plugdir
    env.setdefault("GST_PLUGIN_PATH_1_0", plugdir)
    cols = [n for n, _ in configs] + [OPENCV_METHODS[c] for c in cv_sel]
    results = collections.OrderedDict()
    broken = {}  # config -> error that will repeat on every scene
    print("stereodisparity (%s, backend=%s) vs OpenCV %s (%d threads); invalid = bad"
          % (plugdir, a.backend, cv2.__version__, cv2.getNumThreads()))
    known_props = element_props(env)
    if known_props is None:
        print("  (gst-inspect-1.0 stereodisparity failed: optional prop?=value settings are all kept)")
    for n, p in configs:
        words, dropped = resolve_props(p, known_props)
        print("  %-18s %s%s" % (n, " ".join(words) or "(element defaults)",
                                "  [not in this element, left out: %s]" % " ".join(dropped) if dropped else ""))
    print("  cv-BM: StereoBM 7x7, OpenCV defaults; cv-SGBM/cv-HH: blockSize %d, P1 %d, P2 %d, "
          "uniqueness 10, speckle 100/2, disp12MaxDiff 1, preFilterCap 63"
          % (a.sgbm_block, 8 * a.sgbm_block ** 2, 32 * a.sgbm_block ** 2))
    with tempfile.TemporaryDirectory() as tmp:
        for sc in loaded:
            r = results[sc["name"]] = collections.OrderedDict()
            seen = {}  # output digest -> first configuration that gave it
            for n, p in configs:
                if n in broken:
                    r[n] = {"status": "n/a", "props": p, "error": broken[n]}
                    continue
                disp, valid, dt, err = run_ours(p, sc, tmp, env, a.backend, a.timeout)
                if err:
                    r[n] = {"status": "n/a", "props": p, "error": err}
                    print("  %s on %s: n/a: %s" % (n, sc["name"], err), file=sys.stderr)
                    if any(e in err for e in CONFIG_ERRORS):
                        broken[n] = err
                else:
                    r[n] = {"status": "ok", "props": p, "seconds_gst_launch": dt,
                            "props_dropped": resolve_props(p, known_props)[1],
                            "metrics": metrics(sc, disp, valid)}
                    # Different settings, the very same map: the element
                    # most likely accepted a property it does not act on.
                    digest = hashlib.sha1(np.where(valid, disp, -1.0).tobytes()).hexdigest()
                    if digest in seen:
                        r[n]["same_output_as"] = seen[digest]
                    else:
                        seen[digest] = n
            for c in cv_sel:
                disp, valid, dt = run_opencv(c, sc["left"], sc["right"], sc["ndisp"], a.sgbm_block)
                r[OPENCV_METHODS[c]] = {"status": "ok", "seconds": dt, "metrics": metrics(sc, disp, valid)}

    names = [sc["name"] for sc in loaded]
    print("\nDisparities searched: " + ", ".join("%s %d" % (sc["name"], sc["ndisp"]) for sc in loaded))
    averages = {}
    titles = {"B1 nonocc": "B(1) %, Middlebury nonocc", "B2 nonocc": "B(2) %, Middlebury nonocc",
              "B1 all": "B(1) %, Middlebury all", "B2 all": "B(2) %, Middlebury all",
              "dens nonocc": "density %, Middlebury nonocc", "dens all": "density %, Middlebury all",
              "B3": "B(3) %, KITTI disp_noc", "D1": "D1 % (> 3 px and > 5 %), KITTI disp_noc",
              "dens": "density %, KITTI disp_noc"}
    for group, keys in (("mb", metric_names("mb2001")), ("kitti", metric_names("kitti"))):
        sub = [s for s in names if (SCENES[s][0] == "kitti") == (group == "kitti")]
        if not sub:
            continue
        for k in keys:
            averages[k] = print_table(titles[k], sub, cols, results, k)

    same = collections.OrderedDict()
    for s in names:
        for n, _ in configs:
            o = results[s][n].get("same_output_as")
            if o:
                same.setdefault((n, o), []).append(s)
    if same:
        print("\n= the map is bit-identical to another configuration's: the element took settings "
              "it does not act on?")
        for (n, o), ss in same.items():
            print("  %s = %s on %s" % (n, o, ", ".join(ss)))

    # Target summary: ours against --target on the main metric (B1 nonocc,
    # KITTI D1) at equal or higher density.
    summary = {}
    if a.target in cols:
        print("\nAgainst %s (B(1) nonocc / KITTI D1 at least as low, density at least as high):" % a.target)
        for n, _ in configs:
            if all(results[s][n]["status"] != "ok" for s in names):
                err = results[names[0]][n]["error"]
                summary[n] = {"scenes_met": None, "scenes": len(names), "misses": [], "error": err}
                print("  %-18s n/a (%s)" % (n, err[:100]))
                continue
            ok, fails = 0, []
            for s in names:
                mine, ref = results[s][n], results[s][a.target]
                if mine["status"] != "ok":
                    fails.append(s + " n/a")
                    continue
                bk, dk = ("D1", "dens") if SCENES[s][0] == "kitti" else ("B1 nonocc", "dens nonocc")
                mm, rm = mine["metrics"], ref["metrics"]
                if mm[bk] <= rm[bk] and mm[dk] >= rm[dk]:
                    ok += 1
                else:
                    fails.append("%s %.2f/%.1f%% vs %.2f/%.1f%%" % (s, mm[bk], mm[dk], rm[bk], rm[dk]))
            twins = sorted(set(results[s][n]["same_output_as"] for s in names
                               if results[s][n].get("same_output_as")))
            summary[n] = {"scenes_met": ok, "scenes": len(names), "misses": fails, "same_output_as": twins}
            print("  %-18s %d/%d scenes%s%s" % (n, ok, len(names),
                                               " (same maps as %s)" % ", ".join(twins) if twins else "",
                                               (": misses " + "; ".join(fails)) if fails else ""))

    if a.json:
        doc = {"date": datetime.datetime.utcnow().isoformat() + "Z", "opencv": cv2.__version__,
               "opencv_threads": cv2.getNumThreads(), "plugin_path": plugdir, "backend": a.backend,
               "sgbm": {k: v for k, v in sgbm_params(a.sgbm_block, 0, 0).items()
                        if k not in ("numDisparities", "mode")},
               "bm": {"blockSize": 7, "others": "OpenCV defaults"},
               "configs": collections.OrderedDict(configs),
               "ndisp": {sc["name"]: sc["ndisp"] for sc in loaded},
               "scenes": results, "averages": averages, "target": a.target, "summary": summary}
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
        print("\nwrote " + a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
