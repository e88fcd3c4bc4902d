#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""stereo_sgm_model.py: a numpy model of stereodisparity's SGM pipeline
(kernels/include/match/stereo.h: census, census-ad, the cost window, 4/8
paths with P1/P2 and the edge-aware P2, winner-take-all, the parabola
sub-pixel fit, the left-right check from the same S, the 3x3 median), left
reference, min-disparity 0, in integers, so that its maps equal the
element's bit for bit (--check runs the element through gst-launch-1.0 and
counts differing pixels). Variants the element does not have can be tried
here first, scored with bench/stereo_accuracy.py's metrics on the shared
scenes next to OpenCV StereoSGBM MODE_HH (about 5 to 15 s per KITTI pair):

  /usr/bin/python3 bench/stereo_sgm_model.py [--data DIR] [--scenes all]
      [--config "cost_window=3"] [--config "cost_window=3,p2_edge=16"] ...
  /usr/bin/python3 bench/stereo_sgm_model.py --check [--build build]

A configuration is keyword=value pairs of model() (below). Variants beyond
the element's (docs/stereodisparity.md, "Tried and not kept"):
census_mode="mean" (bits against the window mean), census_threshold=t (a
bit only when darker by more than t), census_step=2 (even offsets only),
smooth="x121" / "b3" (a [1 2 1] row filter or 3x3 binomial before the
census), subpix="equiangular" / "none". Refinements after the median
(refine(); docs/design/stereodisparity.md, "Choosing the defaults"): speckle_size /
speckle_range (the element's speckle filter), fill=2/8/16 (invalid-pixel
interpolation: the row's lower neighbour value, or Hirschmueller 2008's
8/16 directions with fill_occ / fill_mis / occ_tol / fill_median),
wmedian=r with wmedian_tau=t (a joint median: the lower median over the
(2r+1)^2 square of the pixels whose luma is within t). --scenes derived
adds mirrored (right-reference) and gain-changed Middlebury scenes;
--cache DIR keeps the S volumes between runs.
"""
import argparse
import hashlib
import inspect
import os
import sys
import tempfile
import time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stereo_accuracy as sa  # noqa: E402 (the scenes, metrics and OpenCV runs)

M1, M2 = np.uint64(0x5555555555555555), np.uint64(0x3333333333333333)
M4, H01 = np.uint64(0x0f0f0f0f0f0f0f0f), np.uint64(0x0101010101010101)
DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def popcount64(x):
    x = x - ((x >> np.uint64(1)) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return ((x * H01) >> np.uint64(56)).astype(np.int32)


def smooth_image(i, how):
    if how == "x121":
        p = np.pad(i, ((0, 0), (1, 1)), mode="edge")
        return (p[:, :-2] + 2 * p[:, 1:-1] + p[:, 2:] + 2) >> 2
    if how == "b3":
        p = np.pad(i, 1, mode="edge")
        k = [(0, 0, 1), (0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 1, 4), (1, 2, 2),
             (2, 0, 1), (2, 1, 2), (2, 2, 1)]
        h, w = i.shape
        return (sum(wt * p[j:j + h, q:q + w] for j, q, wt in k) + 8) >> 4
    return i


def census(img, cw, ch, mode="centre", threshold=0, step=1, smooth=None):
    """The census strings as uint64 (bit order is irrelevant to Hamming)."""
    h, w = img.shape
    i = smooth_image(img.astype(np.int32), smooth)
    hw, hh = cw // 2 * step, ch // 2 * step
    p = np.pad(i, ((hh, hh), (hw, hw)), mode="edge")
    offs = [(j, q) for j in range(0, 2 * hh + 1, step) for q in range(0, 2 * hw + 1, step)]
    if mode == "mean":
        centre = sum(p[j:j + h, q:q + w] for j, q in offs) // len(offs)
    else:
        centre = i - threshold
    v = np.zeros((h, w), np.uint64)
    k = 0
    for j, q in offs:
        if (j, q) == (hh, hw) and mode != "mean":
            continue
        v |= (p[j:j + h, q:q + w] < centre).astype(np.uint64) << np.uint64(k)
        k += 1
    return v


def pixel_costs(left, right, n, cost="census", census_w=9, census_h=7, **cv):
    """c(x, y, d), (H, W, n) int32; the other view read clamped."""
    h, w = left.shape
    bl, br = census(left, census_w, census_h, **cv), census(right, census_w, census_h, **cv)
    c = np.zeros((h, w, n), np.int32)
    xs = np.arange(w)
    lu, ru = left.astype(np.int32), right.astype(np.int32)
    for d in range(n):
        xo = np.clip(xs - d, 0, w - 1)
        c[:, :, d] = popcount64(bl ^ br[:, xo])
        if cost == "census-ad":
            c[:, :, d] += np.minimum(np.abs(lu - ru[:, xo]), 31) >> 1
    return c


def window_mean(c, b):
    """cb: the rounded mean over the b x b square, read clamped."""
    if b == 1:
        return c
    r = b // 2
    p = np.pad(c, ((r, r), (r, r), (0, 0)), mode="edge").astype(np.int64)
    cs = np.pad(np.cumsum(np.cumsum(p, 0), 1), ((1, 0), (1, 0), (0, 0)))
    s = cs[b:, b:] - cs[:-b, b:] - cs[b:, :-b] + cs[:-b, :-b]
    return ((s + b * b // 2) // (b * b)).astype(np.int32)


def sgm(c, ref, paths=8, p1=10, p2=120, p2_edge=0):
    """S = the sum over the paths of L_r (match/stereo.h's recurrence)."""
    h, w, n = c.shape
    s = np.zeros_like(c)
    lum = ref.astype(np.int32)

    def step(prev, cur_c, grad):
        m = prev.min(1, keepdims=True)
        pen = np.full(grad.shape, p2, np.int32) if p2_edge == 0 else \
            np.maximum(p1, p2 * p2_edge // (p2_edge + grad))
        best = np.minimum(prev, m + pen[:, None])
        best[:, 1:] = np.minimum(best[:, 1:], prev[:, :-1] + p1)
        best[:, :-1] = np.minimum(best[:, :-1], prev[:, 1:] + p1)
        return cur_c + best - m

    for dx, dy in DIRS[:paths]:
        if dy == 0:  # along x, a (H, n) state per column
            ct = np.ascontiguousarray(c.transpose(1, 0, 2))
            lt = np.empty_like(ct)
            order = range(w) if dx > 0 else range(w - 1, -1, -1)
            prev = None
            for x in order:
                lt[x] = ct[x] if prev is None else step(prev, ct[x], np.abs(lum[:, x] - lum[:, x - dx]))
                prev = lt[x]
            s += lt.transpose(1, 0, 2)
            continue
        order = range(h) if dy > 0 else range(h - 1, -1, -1)
        prev = None
        for y in order:
            if prev is None:
                cur = c[y].copy()
            else:
                if dx == 0:
                    q, qx = prev, np.arange(w)
                elif dx == 1:
                    q, qx = np.concatenate([prev[:1], prev[:-1]]), np.arange(w) - 1
                else:
                    q, qx = np.concatenate([prev[1:], prev[-1:]]), np.arange(w) + 1
                inside = (qx >= 0) & (qx < w)
                grad = np.abs(lum[y] - lum[y - dy, np.clip(qx, 0, w - 1)])
                cur = np.where(inside[:, None], step(q, c[y], grad), c[y])
            s[y] += cur
            prev = cur
    return s


def finish(s, subpixel=True, subpix="parabola", lr=2, median=True, **post):
    """WTA, sub-pixel (x16), left-right check, 3x3 lower median, then
    refine()'s variants (post: its keywords)."""
    h, w, n = s.shape
    kb = s.argmin(2)
    val = 16 * kb
    if subpixel and subpix != "none":
        g = lambda k: np.take_along_axis(s, k[..., None], 2)[..., 0].astype(np.int64)
        k0 = np.clip(kb, 1, max(1, n - 2))
        c0, cm, cp = g(kb), g(np.clip(k0 - 1, 0, n - 1)), g(np.clip(k0 + 1, 0, n - 1))
        den = cm + cp - 2 * c0 if subpix == "parabola" else np.maximum(cm, cp) - c0
        ok = (kb > 0) & (kb < n - 1) & (den > 0)
        dd = np.where(ok, den, 1)
        frac = np.clip(np.floor_divide(16 * (cm - cp) + dd, 2 * dd), -8, 8)
        val = val + np.where(ok, frac, 0)
    valid = np.ones((h, w), bool)
    if lr >= 0:
        big = np.iinfo(np.int64).max
        keys = np.full((h, w, n), big, np.int64)
        for d in range(min(n, w)):
            keys[:, :w - d, d] = s[:, d:, d]
        dprime, has = keys.argmin(2), keys.min(2) < big
        xp = np.arange(w)[None, :] - kb
        xpc = np.clip(xp, 0, w - 1)
        ys = np.arange(h)[:, None]
        valid = (xp >= 0) & has[ys, xpc] & (np.abs(dprime[ys, xpc] - kb) <= lr)
    else:
        dprime, has = None, None
    if median:
        val = median3(val, valid)
    return refine(val, valid, dprime, has, **post)


def median3(val, valid, where=None):
    """The element's 3x3 lower median of the valid values, at the valid
    pixels (or at `where`, a subset of them)."""
    h, w = val.shape
    inv = 1 << 30
    p = np.pad(np.where(valid, val, inv), 1, constant_values=inv)
    st = np.sort(np.stack([p[j:j + h, i:i + w] for j in range(3) for i in range(3)], -1), -1)
    idx = (np.maximum((st < inv).sum(-1), 1) - 1) // 2
    return np.where(valid if where is None else where,
                    np.take_along_axis(st, idx[..., None], -1)[..., 0], val)


def speckle(val, valid, size, rng):
    """The element's speckle filter (4-connected regions of valid values
    that differ by at most 16 rng; regions of fewer than size pixels become
    invalid): OpenCV's filterSpeckles removes regions of at most its
    maxSpeckleSize pixels with the same joining rule."""
    m = np.where(valid, val, -1).astype(np.int16)
    cv2.filterSpeckles(m, -1, size - 1, 16 * rng)
    return valid & (m != -1)


DIRS16 = DIRS + [(2, 1), (-2, 1), (2, -1), (-2, -1), (1, 2), (-1, 2), (1, -2), (-1, -2)]


def nearest_valid(val, valid, dx, dy):
    """For each pixel p, the value of the first valid pixel p + k (dx, dy),
    k >= 1, inside the image; INV where there is none."""
    h, w = val.shape
    inv = 1 << 30
    src = np.where(valid, val, inv)
    out = np.full((h, w), inv, np.int64)
    if dy == 0:  # along the row: columns from the far end
        xs = range(w - 1 - dx, -1, -1) if dx > 0 else range(-dx, w)
        for x in xs:
            nb = x + dx
            out[:, x] = np.where(src[:, nb] < inv, src[:, nb], out[:, nb])
        return out
    ys = range(h - 1 - dy, -1, -1) if dy > 0 else range(-dy, h)
    xq = np.arange(w) + dx
    inside = (xq >= 0) & (xq < w)
    xqc = np.clip(xq, 0, w - 1)
    for y in ys:
        nb = y + dy
        v = np.where(src[nb, xqc] < inv, src[nb, xqc], out[nb, xqc])
        out[y] = np.where(inside, v, inv)
    return out


def refine(val, valid, dprime, has, ref=None, speckle_size=0, speckle_range=1, fill=0,
           fill_occ="second", fill_mis="median", occ_tol=0, fill_median=False,
           speckle_after=False, wmedian=0, wmedian_tau=8):
    """Variants after the median (none by default; the element has the
    speckle filter). speckle_size/speckle_range: the element's speckle
    filter. fill = 2, 8 or 16: Hirschmueller 2008's discontinuity-preserving
    interpolation of the invalid pixels: from each invalid pixel p, the first
    valid value (of the map before filling) along each of `fill` directions
    (2: the row; 8: the 8 neighbours' directions; 16: with the knight's
    moves); p is a mismatch when some right-view pixel x' of its row has
    |x' + D'(x') - x| <= occ_tol (the epipolar line of p meets the other
    view's disparity map, D' integer, as for the left-right check), else
    occluded. An occluded pixel takes fill_occ ("lowest", "second": the
    second lowest when there are two or more values, else the lowest; or
    "median") of the values found, a mismatch fill_mis ("median": the lower
    median, rank (m - 1) / 2 of the m found, or "lowest"); a pixel with no
    value found stays invalid. fill_median: then the element's 3x3 median at
    the filled pixels. speckle_after: the speckle filter after the filling
    (then filling again). wmedian = r > 0: last, a joint (binary-weight)
    median: each valid pixel p takes the lower median of the valid values of
    the pixels q of the (2r+1) x (2r+1) square around it (inside the image)
    whose reference luma is within wmedian_tau of p's, |I(q) - I(p)| <=
    wmedian_tau (p itself always counts)."""
    h, w = val.shape
    if speckle_size > 0 and not speckle_after:
        valid = speckle(val, valid, speckle_size, speckle_range)
    if fill:
        val, valid = fill_invalid(val, valid, dprime, has, fill, fill_occ, fill_mis,
                                  occ_tol, fill_median)
        if speckle_size > 0 and speckle_after:
            valid = speckle(val, valid, speckle_size, speckle_range)
            val, valid = fill_invalid(val, valid, dprime, has, fill, fill_occ, fill_mis,
                                      occ_tol, fill_median)
    if wmedian:
        val = joint_median(val, valid, ref, wmedian, wmedian_tau)
    return val, valid


def joint_median(val, valid, ref, r, tau):
    h, w = val.shape
    inv = 1 << 30
    lum = ref.astype(np.int32)
    pv = np.pad(np.where(valid, val, inv), r, constant_values=inv)
    pl = np.pad(lum, r, constant_values=-1 << 20)
    out = val.copy()
    for y0 in range(0, h, 64):  # in bands of rows (memory)
        y1 = min(h, y0 + 64)
        c = lum[y0:y1]
        st = np.stack([np.where(np.abs(pl[y0 + j:y1 + j, i:i + w] - c) <= tau,
                                pv[y0 + j:y1 + j, i:i + w], inv)
                       for j in range(2 * r + 1) for i in range(2 * r + 1)], -1)
        st.sort(-1)
        idx = (np.maximum((st < inv).sum(-1), 1) - 1) // 2
        out[y0:y1] = np.where(valid[y0:y1], np.take_along_axis(st, idx[..., None], -1)[..., 0],
                              val[y0:y1])
    return out


def fill_invalid(val, valid, dprime, has, fill, fill_occ, fill_mis, occ_tol, fill_median):
    h, w = val.shape
    inv = 1 << 30
    dirs = {2: [(1, 0), (-1, 0)], 8: DIRS, 16: DIRS16}[fill]
    found = np.sort(np.stack([nearest_valid(val, valid, dx, dy) for dx, dy in dirs], -1), -1)
    m = (found < inv).sum(-1)
    # occluded: no x' with |x' + D'(x') - x| <= occ_tol
    hit = np.zeros((h, w), bool) if has is not None else np.ones((h, w), bool)
    xs = np.arange(w)
    for y in range(h if has is not None else 0):
        t = xs[has[y]] + dprime[y][has[y]]
        cnt = np.zeros(w + 1, np.int32)
        lo, hi = np.clip(t - occ_tol, 0, w), np.clip(t + occ_tol + 1, 0, w)
        np.add.at(cnt, lo, 1)
        np.add.at(cnt, hi, -1)
        hit[y] = np.cumsum(cnt)[:w] > 0
    pick = {"lowest": np.zeros_like(m), "second": np.where(m >= 2, 1, 0),
            "median": np.maximum(m - 1, 0) // 2}
    rank = np.where(hit, pick[fill_mis], pick[fill_occ])
    v = np.take_along_axis(found, rank[..., None], -1)[..., 0]
    todo = ~valid & (m > 0)
    val = np.where(todo, v, val)
    nvalid = valid | todo
    if fill_median:
        val = median3(val, nvalid, where=todo)
    return val, nvalid


def model(left, right, n, cost="census", census_w=9, census_h=7, census_mode="centre",
          census_threshold=0, census_step=1, smooth=None, cost_window=3, paths=8, p1=10,
          p2=120, p2_edge=0, subpixel=True, subpix="parabola", lr=2, median=True,
          cache=None, **post):
    """The element's defaults unless told; returns (value x 16, valid).
    post: refine()'s keywords. cache: a file for S (uint16), made when
    missing (the caller names it by scene and the keywords that make S)."""
    if cache and os.path.exists(cache):
        s = np.load(cache).astype(np.int32)
    else:
        c = pixel_costs(left, right, n, cost, census_w, census_h, mode=census_mode,
                        threshold=census_threshold, step=census_step, smooth=smooth)
        s = sgm(window_mean(c, cost_window), left, paths, p1, p2, p2_edge)
        if cache:
            assert s.max() < 65536
            np.save(cache + ".tmp.npy", s.astype(np.uint16))
            os.replace(cache + ".tmp.npy", cache)
    return finish(s, subpixel, subpix, lr, median, ref=left, **post)


S_KEYS = ("cost", "census_w", "census_h", "census_mode", "census_threshold", "census_step",
          "smooth", "cost_window", "paths", "p1", "p2", "p2_edge")


def cache_name(cache_dir, scene, kw):
    """The file of S for a scene and the keywords that make S (defaults as
    model()'s)."""
    sig = inspect.signature(model).parameters
    key = ",".join("%s=%r" % (k, kw.get(k, sig[k].default)) for k in S_KEYS)
    return os.path.join(cache_dir, "%s-%s.npy" % (scene, hashlib.sha1(key.encode()).hexdigest()[:12]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get(
        "MATCH_TEST_DATA", os.path.join(HERE, "..", "..", "shared", "data")))
    ap.add_argument("--scenes", default="all")
    ap.add_argument("--config", action="append", default=[], metavar="K=V,...")
    ap.add_argument("--check", action="store_true",
                    help="compare the model's maps with the element's (cost windows 1 and 3)")
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--cache", metavar="DIR",
                    help="keep each scene's S volume here (uint16 .npy, up to 120 MB a KITTI pair) "
                         "and reuse it for configurations that differ only after S")
    a = ap.parse_args()
    names = pick_scenes(a.scenes)
    scenes = [load_scene(a.data, s) for s in names]
    if a.check:
        env = dict(os.environ)
        env["GST_PLUGIN_PATH"] = env["GST_PLUGIN_PATH_1_0"] = os.path.abspath(
            os.path.join(a.build, "gst"))
        tmp = tempfile.mkdtemp()
        bad = 0
        for sc in scenes:
            for cw in (1, 3):
                disp, valid, _, err = sa.run_ours("cost-window=%d" % cw, sc, tmp, env, "cpu", 300)
                if err:
                    sys.exit(err)
                el = np.where(valid, np.rint(disp * 16), 65535)
                v, ok = model(sc["left"], sc["right"], sc["ndisp"], cost_window=cw)
                diff = int((el != np.where(ok, v, 65535)).sum())
                bad += diff
                print("%-14s cost-window %d: %d pixels differ" % (sc["name"], cw, diff), flush=True)
        sys.exit(1 if bad else 0)
    hh = []
    for sc in scenes:
        d, v, _ = sa.run_opencv("hh", sc["left"], sc["right"], sc["ndisp"], 3)
        hh.append(score(sc, d * 16, v))
    print("%-36s " % "B(1) nonocc / KITTI D1 (density)" + " ".join("%12s" % s[:12] for s in names))
    print("%-36s " % "cv-HH" + " ".join("%5.2f (%4.1f)" % r for r in hh), flush=True)
    for cfg in a.config or [""]:
        kw = eval("dict(%s)" % cfg)  # a developer's tool: the configuration is Python
        t0 = time.time()
        if a.cache:
            os.makedirs(a.cache, exist_ok=True)
        row = [score(sc, *model(sc["left"], sc["right"], sc["ndisp"], **dict(
            kw, cache=cache_name(a.cache, sc["name"], kw) if a.cache else None)))
            for sc in scenes]
        wins = sum(b <= hb and d >= hd for (b, d), (hb, hd) in zip(row, hh))
        mb = [b for (b, _), sc in zip(row, scenes) if sc["group"] != "kitti"]
        ki = [b for (b, _), sc in zip(row, scenes) if sc["group"] == "kitti"]
        print("%-36s " % (cfg or "(defaults)") + " ".join("%5.2f (%4.1f)" % r for r in row)
              + " | Middlebury %s KITTI %s | at or below cv-HH on %d/%d (%.0f s)"
              % ("%.2f" % np.mean(mb) if mb else "-", "%.2f" % np.mean(ki) if ki else "-",
                 wins, len(row), time.time() - t0), flush=True)


MB2005 = ("art", "books", "dolls", "laundry")
DERIVED = [n + "-mirror" for n in MB2005] + [n + "-gain" for n in ("tsukuba", "venus") + MB2005]


def pick_scenes(spec):
    """stereo_accuracy's scene names, plus the derived scenes: "derived"
    (all of them), NAME-mirror (a 2005 scene with the right view as the
    reference: both views mirrored and swapped, scored on disp5) and
    NAME-gain (a Middlebury scene whose right view is 0.85 I + 15, rounded:
    a gain and offset between the cameras)."""
    parts = [p.strip().lower() for p in spec.split(",") if p.strip()]
    out = []
    for p in parts:
        if p == "derived":
            out += DERIVED
        elif p in DERIVED:
            out.append(p)
        else:
            out += sa.pick_scenes(p)
    return out


def load_scene(data, name):
    if name not in DERIVED:
        return sa.load_scene(data, name)
    base, how = name.rsplit("-", 1)
    if how == "gain":
        sc = dict(sa.load_scene(data, base), name=name)
        sc["right"] = np.clip((sc["right"].astype(np.int32) * 85 + 1550) // 100, 0, 255).astype(np.uint8)
        return sc
    sc = sa.load_scene(data, base)
    d = sc["dir"]
    d1 = cv2.imread(os.path.join(d, "disp1.png"), cv2.IMREAD_UNCHANGED).astype(np.float64) / 3.0
    d5 = cv2.imread(os.path.join(d, "disp5.png"), cv2.IMREAD_UNCHANGED).astype(np.float64) / 3.0
    h, w = d5.shape
    # view5(x) ~ view1(x + d5(x)); nonocc: both GTs known and agreeing within 1
    xl = np.rint(np.arange(w)[None, :] + d5).astype(np.int64)
    inside = (xl >= 0) & (xl < w)
    ys = np.repeat(np.arange(h)[:, None], w, axis=1)
    other = np.where(inside, d1[ys, np.clip(xl, 0, w - 1)], 0.0)
    nonocc = (d5 > 0) & inside & (other > 0) & (np.abs(d5 - other) <= 1.0)
    f = lambda a: np.ascontiguousarray(a[:, ::-1])
    return {"name": name, "group": "mb2005", "ndisp": sc["ndisp"], "dir": d,
            "left": f(sc["right"]), "right": f(sc["left"]), "gt": f(d5),
            "masks": {"nonocc": f(nonocc), "all": f(d5 > 0)}}


def score(sc, val16, valid):
    m = sa.metrics(sc, val16 / 16.0, valid)
    return (m["D1"], m["dens"]) if sc["group"] == "kitti" else (m["B1 nonocc"], m["dens nonocc"])


if __name__ == "__main__":
    main()
