#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""pocme accuracy on every flow pair with ground truth in ../shared/data/flow,
next to blockmatchme (quarter-pel), OpenCV's DIS (medium preset) and OpenCV's
phaseCorrelate per window (issue 18).

pocme and blockmatchme run through the ELEMENTS (tools/mv-eval, which pushes
the two frames through appsrc ! <element> ! appsink with direction=forward
and dumps the meta's field with --dump), so the figures are the element's.
Frames are converted to grey once by OpenCV (cv2.IMREAD_GRAYSCALE) and
written as PGM; every method gets the same grey frames.

Metrics (docs/accuracy.md, tests/common/flowmetrics.h),
forward field, blocks tile the earlier frame:
- dense EPE: mean over GT-known pixels of |v_block(x) - v_gt(x)|;
- block EPE: mean over blocks with >= 50 % known GT of |v - mean GT|;
- bad: % of those blocks with block EPE > 1 px; >10 / >30: how many blocks
  are more than 10 / 30 px off; |v|max: the longest vector returned.
DIS is dense: its block vector is the mean of its flow over the block (so
its block figures share the grid); "px EPE" is its own per-pixel EPE.

Confidence bins: pocme's meta confidence (the POC peak height) over all
evaluated blocks of all sequences, and the bad-block rate in each bin; a
vector flagged UNRELIABLE is counted in its own row.

Usage: bench/poc_accuracy.py [--build DIR] [--data DIR] [--methods a,b,...]
  [--pocme NAME=PROPS]... [--only NAMES] [--extra DIR] [--two-frames]
  e.g. --pocme "L2=layers=2" --pocme "L0=layers=0"
--extra DIR adds the pairs of bench/flow-composite.py DIR (their mean in a
row of its own; their blocks count in the confidence bins too).
Where the frame before frame0 exists (the file whose name's last number is
one less: frame09.png, frame_0001.png), pocme gets it first, as in a stream
(its layer vote's third frame, forward fields); --two-frames leaves it out.
The pairs that have one are marked "[3]" in the table.
Methods: the pocme configurations given (default: today's defaults and
layers 0, 1, 2), bm (blockmatchme 16x16, +-16 px, quarter-pel, CPU),
dis, pc (phaseCorrelate, 64 px Hann, single layer).
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("poc_accuracy.py: needs python3-opencv (apt-get install -y python3-opencv)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import opencv_poc  # noqa: E402  (phaseCorrelate per window, same geometry)

SPACING = 16
WINDOW = 64
FLAG_NO_ESTIMATE, FLAG_UNRELIABLE = 1, 4


def read_flo(path):
    return opencv_poc.read_flo(path)


def write_flo(path, uv):
    h, w = uv.shape[:2]
    with open(path, "wb") as f:
        f.write(struct.pack("<fii", 202021.25, w, h))
        f.write(uv.astype("<f4").tobytes())


def kitti_flo(png):
    """KITTI 2015 flow_occ PNG -> u, v (unknown = 1e10)."""
    raw = cv2.imread(png, cv2.IMREAD_UNCHANGED)
    if raw is None or raw.dtype != np.uint16:
        raise ValueError(png + ": not a 16-bit PNG")
    u = (raw[..., 2].astype(np.float32) - 32768.0) / 64.0
    v = (raw[..., 1].astype(np.float32) - 32768.0) / 64.0
    valid = raw[..., 0] > 0
    u[~valid] = 1e10
    v[~valid] = 1e10
    return np.dstack([u, v])


def sequences(data, extra=None):
    """(name, frame0, frame1, gt loader, group) of every flow pair, and of
    every pair bench/flow-composite.py wrote under `extra` (group "comp")."""
    fl = os.path.join(data, "flow")
    out = []
    for d in sorted(os.listdir(extra)) if extra else []:
        d = os.path.join(extra, d)
        if os.path.exists(d + "/flow10.flo"):
            out.append((os.path.basename(d), d + "/frame10.png", d + "/frame11.png",
                        lambda d=d: read_flo(d + "/flow10.flo"), "comp"))
    for n in ("RubberWhale", "Dimetrodon", "Venus"):
        d = os.path.join(fl, "middlebury", n)
        out.append((n, d + "/frame10.png", d + "/frame11.png",
                    lambda d=d: read_flo(d + "/flow10.flo"), "mb"))
    d = os.path.join(fl, "sintel", "alley_1")
    for p in ("clean", "final"):
        out.append(("alley_1 " + p, "%s/%s/frame_0002.png" % (d, p),
                    "%s/%s/frame_0003.png" % (d, p),
                    lambda d=d: read_flo(d + "/clean/gt/frame_0002.flo"), "small"))
    for n, a in (("ambush_2", 20), ("temple_3", 22), ("cave_4", 41)):
        d = os.path.join(fl, "sintel", n, "final")
        out.append((n, "%s/frame_%04d.png" % (d, a), "%s/frame_%04d.png" % (d, a + 1),
                    lambda d=d, a=a: read_flo("%s/gt/frame_%04d.flo" % (d, a)), "large"))
    for i in (4, 5, 6, 7):
        b = os.path.join(fl, "flyingchairs", "%07d" % i)
        out.append(("chairs %d" % i, b + "_img1.ppm", b + "_img2.ppm",
                    lambda b=b: read_flo(b + "_flow.flo"), "large"))
    d = os.path.join(data, "video", "yosemite")
    out.append(("Yosemite", d + "/yos9.png", d + "/yos10.png",
                lambda d=d: read_flo(d + "/correct_yos.flo"), "small"))
    d = os.path.join(fl, "kitti2015", "example")
    out.append(("KITTI 2015", d + "/frame10.png", d + "/frame11.png",
                lambda d=d: kitti_flo(d + "/flow_occ.png"), "large"))
    return out


def block_eval(dx, dy, gt, s):
    """Per-block |v - mean GT| (NaN for skipped blocks) and dense EPE."""
    h, w = gt.shape[:2]
    u, v = gt[..., 0], gt[..., 1]
    known = np.isfinite(u) & np.isfinite(v) & (np.abs(u) <= 1e9) & (np.abs(v) <= 1e9)
    ex = np.repeat(np.repeat(dx, s, 0), s, 1)[:h, :w]
    ey = np.repeat(np.repeat(dy, s, 0), s, 1)[:h, :w]
    err = np.hypot(ex - np.where(known, u, 0), ey - np.where(known, v, 0))
    dense = float(err[known].mean())
    rows, cols = dx.shape
    be = np.full((rows, cols), np.nan)
    for r in range(rows):
        for c in range(cols):
            sl = (slice(r * s, min((r + 1) * s, h)), slice(c * s, min((c + 1) * s, w)))
            k = known[sl]
            if k.sum() * 2 < k.size:
                continue
            be[r, c] = np.hypot(dx[r, c] - u[sl][k].mean(), dy[r, c] - v[sl][k].mean())
    return dense, be


def summarise(dense, be, dx, dy):
    b = be[np.isfinite(be)]
    return dict(dense=dense, block=float(b.mean()), bad=float(100.0 * (b > 1).mean()),
                gt10=int((b > 10).sum()), gt30=int((b > 30).sum()), n=int(b.size),
                vmax=float(np.hypot(dx, dy).max()))


def frame_before(f0):
    """The frame before f0 (its name's last number minus one, as wide), or
    None where there is none."""
    d, b = os.path.split(f0)
    m = re.match(r"(.*?)(\d+)(\D*)$", b)
    if not m or int(m.group(2)) == 0:
        return None
    n = "%0*d" % (len(m.group(2)), int(m.group(2)) - 1)
    p = os.path.join(d, m.group(1) + n + m.group(3))
    return p if os.path.exists(p) else None


def run_element(build, element, props, f0, f1, flo, dump, before=None):
    env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(build, "gst"),
               GST_REGISTRY_1_0=os.path.join(build, "poc-accuracy-registry.bin"))
    cmd = [os.path.join(build, "tools", "mv-eval"), "-e", element, "--dump", dump]
    if before:
        cmd += ["--before", before]
    for p in props:
        cmd += ["-p", p]
    cmd += [f0, f1, flo]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    with open(dump) as f:
        cols, rows, bw, bh = map(int, f.readline().split())
        a = np.loadtxt(f, ndmin=2)
    a = a.reshape(rows, cols, 5)
    return a[..., 0], a[..., 1], a[..., 3], a[..., 4].astype(np.uint32), bw


def dis_field(a, b, s):
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    flow = dis.calc(a, b, None)
    h, w = a.shape
    rows, cols = (h + s - 1) // s, (w + s - 1) // s
    dx = np.zeros((rows, cols))
    dy = np.zeros((rows, cols))
    for r in range(rows):
        for c in range(cols):
            blk = flow[r * s:min((r + 1) * s, h), c * s:min((c + 1) * s, w)]
            dx[r, c] = blk[..., 0].mean()
            dy[r, c] = blk[..., 1].mean()
    return dx, dy, flow


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--pocme", action="append", default=None, metavar="LABEL=PROPS",
                    help="a pocme configuration: label=prop=value,prop=value "
                    "(default: 'default=' 'L0=layers=0' 'L1=layers=1' 'L2=layers=2')")
    ap.add_argument("--methods", default="pocme,bm,dis,pc",
                    help="comma-separated subset of pocme,bm,dis,pc")
    ap.add_argument("--only", default=None, help="comma-separated sequence names")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--extra", default=None, metavar="DIR",
                    help="also the pairs bench/flow-composite.py wrote into DIR")
    ap.add_argument("--two-frames", action="store_true",
                    help="never give pocme the frame before frame0")
    o = ap.parse_args()
    methods = o.methods.split(",")
    configs = []
    for spec in (o.pocme or ["default=", "L0=layers=0", "L1=layers=1", "L2=layers=2"]):
        label, _, props = spec.partition("=")
        configs.append((label, [p for p in props.split(",") if p]))

    cols = []
    if "pocme" in methods:
        cols += ["pocme " + c[0] for c in configs]
    if "bm" in methods:
        cols.append("blockmatchme")
    if "dis" in methods:
        cols.append("DIS medium")
    if "pc" in methods:
        cols.append("phaseCorrelate")
    win = cv2.createHanningWindow((WINDOW, WINDOW), cv2.CV_32F)
    opencv_poc.self_check(WINDOW, win)

    results = {c: {} for c in cols}
    conf = {c[0]: [] for c in configs}  # (confidence, flags, block EPE)
    groups = {}
    three = set()  # the pairs pocme got the frame before for
    tmp = tempfile.mkdtemp(prefix="poc-accuracy-")
    seqs = sequences(o.data, o.extra)
    if o.only:
        keep = o.only.split(",")
        seqs = [q for q in seqs if q[0] in keep]
    for name, f0, f1, load, group in seqs:
        if not (os.path.exists(f0) and os.path.exists(f1)):
            print("%-14s missing under %s" % (name, o.data))
            continue
        groups[name] = group
        a8 = cv2.imread(f0, cv2.IMREAD_GRAYSCALE)
        b8 = cv2.imread(f1, cv2.IMREAD_GRAYSCALE)
        gt = load()
        tag = name.replace(" ", "_")
        p0, p1, flo = ["%s/%s%s" % (tmp, tag, e) for e in ("0.pgm", "1.pgm", ".flo")]
        cv2.imwrite(p0, a8)
        cv2.imwrite(p1, b8)
        write_flo(flo, gt)
        before = None if o.two_frames else frame_before(f0)
        if before:
            three.add(name)
            pb = "%s/%sb.pgm" % (tmp, tag)
            cv2.imwrite(pb, cv2.imread(before, cv2.IMREAD_GRAYSCALE))
        line = []
        t0 = time.time()
        if "pocme" in methods:
            for label, props in configs:
                dx, dy, cf, fl, _ = run_element(
                    o.build, "pocme", ["backend=" + o.backend, "window-size=%d" % WINDOW,
                                       "spacing=%d" % SPACING] + props,
                    p0, p1, flo, tmp + "/dump.txt", pb if before else None)
                dense, be = block_eval(dx, dy, gt, SPACING)
                results["pocme " + label][name] = summarise(dense, be, dx, dy)
                m = np.isfinite(be)
                conf[label] += list(zip(cf[m], fl[m], be[m]))
        if "bm" in methods:
            dx, dy, _, _, _ = run_element(
                o.build, "blockmatchme", ["backend=" + o.backend, "block-size=16",
                                          "search-range=16", "subpixel=quarter"],
                p0, p1, flo, tmp + "/dump.txt")
            dense, be = block_eval(dx, dy, gt, SPACING)
            results["blockmatchme"][name] = summarise(dense, be, dx, dy)
        if "dis" in methods:
            dx, dy, flow = dis_field(a8, b8, SPACING)
            dense, be = block_eval(dx, dy, gt, SPACING)
            r = summarise(dense, be, dx, dy)
            u, v = gt[..., 0], gt[..., 1]
            k = (np.abs(u) <= 1e9) & (np.abs(v) <= 1e9)
            r["px"] = float(np.hypot(flow[..., 0] - u, flow[..., 1] - v)[k].mean())
            results["DIS medium"][name] = r
        if "pc" in methods:
            dx, dy = opencv_poc.poc_field(a8.astype(np.float32), b8.astype(np.float32),
                                          WINDOW, SPACING, win)
            dense, be = block_eval(dx, dy, gt, SPACING)
            results["phaseCorrelate"][name] = summarise(dense, be, dx, dy)
        print("# %s done in %.1f s" % (name, time.time() - t0), file=sys.stderr)

    names = [n for n in groups]
    print("pocme: %d px window, %d px grid, forward, backend %s; blockmatchme 16x16 "
          "+-16 px quarter-pel; DIS medium (block = mean of its flow); phaseCorrelate "
          "per window (%d px Hann, single layer)\n" % (WINDOW, SPACING, o.backend, WINDOW))
    print("Cell: dense EPE px / block EPE px / bad blocks % / blocks >10 px / >30 px "
          "off / longest vector px\n")
    print("| sequence | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")

    def cell(r):
        return "%.3f / %.3f / %.1f / %d / %d / %.0f" % (
            r["dense"], r["block"], r["bad"], r["gt10"], r["gt30"], r["vmax"])

    for n in names:
        print("| %s%s | " % (n, " [3]" if n in three else "") +
              " | ".join(cell(results[c][n]) for c in cols) + " |")
    for gname, sel in (("Middlebury mean", "mb"), ("small-motion mean (Middlebury, "
                                                   "alley_1, Yosemite)", "mb,small"),
                       ("large-motion mean (ambush_2, temple_3, cave_4, chairs, KITTI)",
                        "large"), ("all mean", "mb,small,large"),
                       ("composite mean (flow-composite.py)", "comp")):
        ns = [n for n in names if groups[n] in sel.split(",")]
        if not ns:
            continue
        row = []
        for c in cols:
            rs = [results[c][n] for n in ns]
            row.append("%.3f / %.3f / %.1f / %d / %d / %.0f" % (
                np.mean([r["dense"] for r in rs]), np.mean([r["block"] for r in rs]),
                np.mean([r["bad"] for r in rs]), sum(r["gt10"] for r in rs),
                sum(r["gt30"] for r in rs), max(r["vmax"] for r in rs)))
        print("| **%s** | " % gname + " | ".join(row) + " |")
    if "DIS medium" in cols:
        print("\nDIS medium, its own per-pixel dense EPE: " + ", ".join(
            "%s %.3f" % (n, results["DIS medium"][n]["px"]) for n in names))

    bins = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]
    for label, rows in conf.items():
        if not rows:
            continue
        a = np.array(rows, dtype=np.float64)
        cf, fl, be = a[:, 0], a[:, 1].astype(np.uint32), a[:, 2]
        print("\nConfidence bins, pocme %s, all sequences (%d blocks):" % (label, len(be)))
        print("| confidence | blocks | bad % | >10 px % | mean block EPE |")
        print("|---|---|---|---|---|")
        unrel = (fl & FLAG_UNRELIABLE) != 0
        if unrel.any():
            print("| UNRELIABLE | %d | %.1f | %.1f | %.2f |" % (
                unrel.sum(), 100 * (be[unrel] > 1).mean(), 100 * (be[unrel] > 10).mean(),
                be[unrel].mean()))
        for lo, hi in zip(bins[:-1], bins[1:]):
            m = (~unrel) & (cf >= lo) & (cf < hi)
            if m.any():
                print("| %.2f-%.2f | %d | %.1f | %.1f | %.2f |" % (
                    lo, min(hi, 1.0), m.sum(), 100 * (be[m] > 1).mean(),
                    100 * (be[m] > 10).mean(), be[m].mean()))


if __name__ == "__main__":
    main()
