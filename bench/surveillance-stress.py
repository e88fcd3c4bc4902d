#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Stress clips for bench/surveillance.py (issue 32), in CDnet format.

    bench/surveillance-stress.py /tmp/stress                 # every clip
    bench/surveillance-stress.py /tmp/stress --only hw-shake,comp-windy
    bench/surveillance-stress.py --list

Each clip is a folder OUT/<name>/ with input/inNNNNNN.jpg, groundtruth/
gtNNNNNN.png (where GT is defined), temporalROI.txt (all frames, or from
--score-from on, as CDnet scores its clips after a start-up) and
info.json (what was done, the parameters and "fps": 30 for the hw- and
comp- clips, 10 for the vt- ones; bench/surveillance.py takes its frame
rate from there unless --fps is given). Everything is
deterministic for a given --seed. Nothing is written into the repository.

Perturbed CDnet clip (--cdnet, default the shared highway clip; 320x240,
its first --frames frames, GT = the clip's own, moved where the image moves):
  hw-bright-step  +--step-delta grey levels (clipped) from frame --step-at:
                  a global change that is not motion; GT unchanged.
  hw-bright-ramp  an offset growing linearly from 0 to --ramp-delta over the
                  clip (dusk/dawn, auto-exposure drift); GT unchanged.
  hw-ir           day/night switch at --ir-at: grey, gain --ir-gain, Gaussian
                  noise sigma --ir-noise from then on; GT unchanged.
  hw-noise        Gaussian sensor noise sigma --noise on every frame.
  hw-rain         --rain-streaks short bright streaks per frame (rain/snow)
                  at random places; GT unchanged (streaks are not objects).
  hw-snow         --snow-flakes soft white flakes (radius 0.8 to 2.2 px)
                  falling 0.8 to 3 px a frame, drifting, kept from frame to
                  frame (unlike hw-rain's streaks): precipitation that moves
                  coherently; GT unchanged.
  hw-shake        camera shake: per frame a random translation of
                  --shake-min..--shake-max px (random direction) and a
                  rotation within +-shake-rot degrees about the centre; GT
                  warped alike (nearest), pixels from outside the image 85.
  hw-pan          a slow pan: a crop window moving --pan-speed px/frame
                  (sub-pixel, bilinear) right and a quarter of that down; the
                  output is the window's size; GT cropped alike (nearest).
Invariance sets on vtest.avi (--video, 768x576 10 fps, scaled to 384x288;
no GT: compare the element's regions and starts with vt-clean's):
  vt-clean, vt-bright-step, vt-ir, vt-noise, vt-rain, vt-shake, vt-snow
Composites with GT by construction (--frames-comp frames, 30 fps, on a 384x288 static background = per-pixel temporal median of vtest.avi
frames; objects are textured patches cut from the shared Middlebury/Sintel
images, with soft elliptic alpha; GT 255 where alpha >= 0.5, 170 (unknown)
on the soft rim, 0 elsewhere; light sensor noise sigma 2 on every frame):
  comp-slow       two small distant objects drifting at --slow-speeds px/frame
                  (default 0.15 and 0.4; sub-pixel, bilinear) from frame 0:
                  motion of less than a pixel per frame that must be found.
  comp-pair       after --quiet frames of nothing, two objects enter side by
                  side (4 px apart) from the bottom edge, one going up-left,
                  one up-right, 1.5 px/frame: regions must split, one
                  motion-start at their entry.
  comp-windy      a textured "tree" sways from frame 0 (smooth oscillating
                  warp, amplitude --sway px, period --sway-period frames; GT 0,
                  its area saved as tree_mask.png for a dedicated count) and,
                  after --quiet frames, an object crosses elsewhere at 1 px/
                  frame: the sway must give neither regions nor a start.
  comp-shake      comp-pair's objects under hw-shake's camera shake (the
                  --shake-* options; GT warped alike, 85 outside): slow
                  objects whose motion is a fraction of the camera's.
  comp-windy-shake  comp-windy under the same shake: a tree swaying and a
                  smooth object crossing at 1 px/frame, the camera shaking.
  comp-slow-shake  comp-slow under the same shake: objects moving a fraction
                  of a pixel a frame, the camera moving pixels.
  comp-van        after --quiet frames, a van of one colour (110 x 46, a dark
                  windscreen and wheels, a faint gradient) crosses from the
                  left at --van-speed px/frame: its side neither matches nor
                  changes, so the field sees its front and back edges only,
                  and one box must still cover it.
Light that is not motion, on comp-pair's objects (which enter --light-at +
--light-gap frames in, the clip that much longer than comp-pair): one
motion-start at their entry and none from the light; GT = the objects':
  comp-lamp       a lamp lights a soft disc a third of the frame wide at
                  --light-at (gain 1.5 and +30 grey levels at its centre,
                  none at its rim) and stays on.
  comp-headlights a car's headlights (a soft cone, gain 1.6 and +40 at its
                  centre) sweep across the scene from --light-at, leaving it
                  as the objects come: light that moves.
  comp-cloud      a cloud's shadow (soft, 45 % darker at its centre, about
                  the frame's size) drifts 1.5 px a frame all along.
  comp-flicker    the camera's gain hunts, +-12 % at random every frame, all
                  along, and from --light-at until the objects come a lamp
                  (comp-lamp's, gain 1.4) flickers on for 7 frames in 21.
"""

import argparse
import json
import os
import sys

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("surveillance-stress.py: needs OpenCV's Python module (python3-opencv)")

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data"))
CLIPS = ["hw-bright-step", "hw-bright-ramp", "hw-ir", "hw-noise", "hw-rain", "hw-shake", "hw-pan",
         "vt-clean", "vt-bright-step", "vt-ir", "vt-noise", "vt-rain", "vt-shake",
         "comp-slow", "comp-pair", "comp-windy", "hw-snow", "vt-snow",
         "comp-lamp", "comp-headlights", "comp-cloud", "comp-flicker", "comp-shake",
         "comp-windy-shake", "comp-van", "comp-slow-shake"]
TEXTURES = ["flow/middlebury/RubberWhale/frame10.png", "flow/sintel/alley_1/clean/frame_0001.png",
            "stereo/middlebury2005_2006/Dolls/view1.png", "stereo/middlebury2005_2006/Art/view1.png"]


class Fail(Exception):
    pass


# ------------------------------------------------------------ writing

class Writer:
    def __init__(self, root, name, first, info, score_from=0):
        self.dir = os.path.join(root, name)
        self.score_from = score_from
        os.makedirs(os.path.join(self.dir, "input"), exist_ok=True)
        os.makedirs(os.path.join(self.dir, "groundtruth"), exist_ok=True)
        self.first, self.n, self.info = first, 0, info

    def add(self, img, gt=None):
        num = self.first + self.n
        cv2.imwrite(os.path.join(self.dir, "input", "in%06d.jpg" % num), img,
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        if gt is not None:
            cv2.imwrite(os.path.join(self.dir, "groundtruth", "gt%06d.png" % num), gt)
        self.n += 1

    def close(self):
        with open(os.path.join(self.dir, "temporalROI.txt"), "w") as f:
            start = min(self.first + self.score_from, self.first + self.n - 1)
            f.write(f"{start} {self.first + self.n - 1}\n")
        with open(os.path.join(self.dir, "info.json"), "w") as f:
            json.dump(self.info, f, indent=1)
        if not os.listdir(os.path.join(self.dir, "groundtruth")):
            os.rmdir(os.path.join(self.dir, "groundtruth"))
        print(f"{self.dir}: {self.n} frames")


# ------------------------------------------------------------ sources

def cdnet_frames(folder, n):
    """[(number, BGR, GT or None)] of the first n frames of a CDnet clip."""
    d = os.path.join(folder, "input")
    if not os.path.isdir(d):
        raise Fail(f"{folder}: no input/ folder")
    names = sorted(f for f in os.listdir(d) if f.startswith("in") and f[-4:] in (".jpg", ".png"))[:n]
    if not names:
        raise Fail(f"{d}: no frames")
    out = []
    for name in names:
        num = int(name[2:-4])
        img = cv2.imread(os.path.join(d, name))
        g = os.path.join(folder, "groundtruth", "gt%06d.png" % num)
        gt = cv2.imread(g, cv2.IMREAD_GRAYSCALE) if os.path.isfile(g) else None
        if img is None:
            raise Fail(f"{d}/{name}: unreadable")
        out.append((num, img, gt))
    return out


def video_frames(path, start, n, size):
    cap = cv2.VideoCapture(path)
    if not cap.isOpened():
        raise Fail(f"{path}: cannot open")
    out, i = [], 0
    while len(out) < n:
        ok, img = cap.read()
        if not ok:
            break
        if i >= start:
            out.append(cv2.resize(img, size, interpolation=cv2.INTER_AREA))
        i += 1
    if not out:
        raise Fail(f"{path}: no frames from {start}")
    return out


def median_background(path, size, step=10, count=40):
    """Per-pixel temporal median of every step-th frame: the static scene."""
    frames = video_frames(path, 0, step * count, size)[::step]
    return np.median(np.stack(frames), axis=0).astype(np.uint8)


# ------------------------------------------------------------ perturbations

def clip8(a):
    return np.clip(a, 0, 255).astype(np.uint8)


def ir_look(img, gain, sigma, rng):
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    g = g * gain + rng.normal(0, sigma, g.shape)
    return cv2.cvtColor(clip8(g), cv2.COLOR_GRAY2BGR)


def rain(img, count, rng):
    out = img.astype(np.int16)
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.uint8)
    for _ in range(count):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        ln = int(rng.integers(5, 16))
        ang = np.deg2rad(rng.uniform(-15, 15))
        x2, y2 = int(x + ln * np.sin(ang)), int(y + ln * np.cos(ang))
        cv2.line(layer, (x, y), (x2, y2), int(rng.integers(60, 120)), 1, cv2.LINE_AA)
    return clip8(out + layer[:, :, None])


class Snow:
    """Flakes that persist and fall (hw-snow): each a soft disc."""

    def __init__(self, count, w, h, rng):
        self.rng, self.w, self.h = rng, w, h
        self.x, self.y = rng.uniform(0, w, count), rng.uniform(0, h, count)
        self.r = rng.uniform(0.8, 2.2, count)
        self.vx, self.vy = rng.uniform(-0.6, 0.6, count), rng.uniform(0.8, 3.0, count)
        self.a = rng.uniform(0.5, 0.95, count)

    def apply(self, img):
        h, w = self.h, self.w
        alpha = np.zeros((h, w), np.float32)
        for x, y, r, a in zip(self.x, self.y, self.r, self.a):
            R = int(r + 2)
            x0, x1 = max(0, int(x) - R), min(w, int(x) + R + 1)
            y0, y1 = max(0, int(y) - R), min(h, int(y) + R + 1)
            if x0 >= x1 or y0 >= y1:
                continue
            yy, xx = np.mgrid[y0:y1, x0:x1]
            d = np.sqrt((xx - x) ** 2 + (yy - y) ** 2)
            alpha[y0:y1, x0:x1] = np.maximum(alpha[y0:y1, x0:x1],
                                             a * np.clip(1.0 - d / (r + 0.5), 0, 1))
        out = img.astype(np.float32) * (1 - alpha[..., None]) + 245 * alpha[..., None]
        n = len(self.x)
        self.x = (self.x + self.vx + self.rng.normal(0, 0.2, n)) % w
        self.y += self.vy
        gone = self.y > h + 3
        self.y[gone] = -3
        self.x[gone] = self.rng.uniform(0, w, int(gone.sum()))
        return clip8(out)


def shake_matrices(n, w, h, args, rng):
    mats = []
    for _ in range(n):
        mag = rng.uniform(args.shake_min, args.shake_max)
        ang = rng.uniform(0, 2 * np.pi)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-args.shake_rot, args.shake_rot), 1.0)
        m[:, 2] += (mag * np.cos(ang), mag * np.sin(ang))
        mats.append(m)
    return mats


def warp_pair(img, gt, m, size):
    out = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    g = None
    if gt is not None:
        g = cv2.warpAffine(gt, m, size, flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                           borderValue=85)
    return out, g


def shaken(frames, args, rng):
    """Yield the (img, gt, extra) of `frames` under hw-shake's shake."""
    frames = list(frames)
    h, w = frames[0][0].shape[:2]
    for m, (img, gt, extra) in zip(shake_matrices(len(frames), w, h, args, rng), frames):
        out, g = warp_pair(img, gt, m, (w, h))
        yield out, g, extra


def perturbed(kind, frames, args, rng):
    """Yield (img, gt) of a perturbation of [(img, gt)]."""
    n = len(frames)
    h, w = frames[0][0].shape[:2]
    mats = shake_matrices(n, w, h, args, rng) if kind == "shake" else None
    snow = Snow(args.snow_flakes, w, h, rng) if kind == "snow" else None
    for i, (img, gt) in enumerate(frames):
        if kind == "clean":
            yield img, gt
        elif kind == "bright-step":
            yield (clip8(img.astype(np.int16) + args.step_delta) if i >= args.step_at else img), gt
        elif kind == "bright-ramp":
            yield clip8(img.astype(np.float32) + args.ramp_delta * i / max(1, n - 1)), gt
        elif kind == "ir":
            yield (ir_look(img, args.ir_gain, args.ir_noise, rng) if i >= args.ir_at else img), gt
        elif kind == "noise":
            yield clip8(img.astype(np.float32) + rng.normal(0, args.noise, img.shape)), gt
        elif kind == "rain":
            yield rain(img, args.rain_streaks, rng), gt
        elif kind == "snow":
            yield snow.apply(img), gt
        elif kind == "shake":
            yield warp_pair(img, gt, mats[i], (w, h))
        elif kind == "pan":
            span = args.pan_speed * (n - 1)
            ow, oh = w - int(np.ceil(span)), h - int(np.ceil(span / 4))
            if ow < 32 or oh < 32:
                raise Fail(f"hw-pan: {n} frames at {args.pan_speed} px/frame leave no window")
            m = np.float32([[1, 0, -args.pan_speed * i], [0, 1, -args.pan_speed * i / 4]])
            yield warp_pair(img, gt, m, (ow, oh))
        else:
            raise Fail(f"unknown perturbation {kind}")


# ------------------------------------------------------------ composites

def texture_patch(rng, size):
    """A (BGR float, alpha float) patch cut from a real image, elliptic
    alpha with an anti-aliased rim."""
    w, h = size
    for rel in rng.permutation(TEXTURES):
        img = cv2.imread(os.path.join(DATA, rel))
        if img is not None and img.shape[0] > h and img.shape[1] > w:
            break
    else:
        raise Fail(f"no texture image found under {DATA}")
    y = int(rng.integers(0, img.shape[0] - h))
    x = int(rng.integers(0, img.shape[1] - w))
    patch = img[y:y + h, x:x + w].astype(np.float32)
    big = np.zeros((h * 4, w * 4), np.uint8)
    cv2.ellipse(big, (w * 2, h * 2), (w * 2 - 4, h * 2 - 4), 0, 0, 360, 255, -1)
    alpha = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    return patch, alpha


def paste(frame, gtacc, patch, alpha, x, y):
    """Composite a patch at sub-pixel (x, y) (bilinear), premultiplied."""
    h, w = frame.shape[:2]
    m = np.float32([[1, 0, x], [0, 1, y]])
    a = cv2.warpAffine(alpha, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    pm = cv2.warpAffine(patch * alpha[:, :, None], m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    frame[:] = frame * (1 - a[:, :, None]) + pm
    np.maximum(gtacc, a, out=gtacc)


def gt_from_alpha(a):
    g = np.zeros(a.shape, np.uint8)
    g[a > 0.02] = 170
    g[a >= 0.5] = 255
    return g


LIGHTS = ("lamp", "headlights", "cloud", "flicker")


def lighting(kind, w, h, args, rng):
    """light (i, frame): comp-lamp/-headlights/-cloud/-flicker's light on
    frame i (float BGR, in place)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    at, come = args.light_at, args.light_at + args.light_gap
    cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    disc = np.clip(1.2 - np.hypot(xx - cx, yy - cy) / (0.35 * w), 0, 1) ** 1.5
    ang = rng.uniform(0, 2 * np.pi)
    vx, vy = 1.5 * np.cos(ang), 1.5 * np.sin(ang)
    speed = (w + 160) / max(1, args.light_gap)  # gone as the objects come

    def relight(frame, m, gain, offset):
        frame *= 1 + gain * m[..., None]
        frame += offset * m[..., None]

    def light(i, frame):
        if kind == "lamp" and i >= at:
            relight(frame, disc, 0.5, 30)
        elif kind == "headlights" and at <= i < come:
            x0 = -80 + speed * (i - at)
            cone = np.clip(1 - np.hypot((xx - x0) / 70, (yy - 0.6 * h) / 50), 0, 1) ** 1.2
            relight(frame, cone, 0.6, 40)
        elif kind == "cloud":
            t = i - at - 30
            shadow = np.exp(-(((xx - w / 2 - vx * t) / (0.35 * w)) ** 2
                              + ((yy - h / 2 - vy * t) / (0.25 * w)) ** 2))
            frame *= 1 - 0.45 * shadow[..., None]
        elif kind == "flicker":
            frame *= 1 + 0.12 * rng.uniform(-1, 1)
            if at <= i < come and (i - at) % 21 < 7:
                relight(frame, disc, 0.4, 20)
    return light


def composite(kind, bg, args, rng):
    """Yield (img, gt, extra) for comp-slow/-pair/-windy and the lights."""
    h, w = bg.shape[:2]
    n = args.frames_comp
    objs = []  # (patch, alpha, x0, y0, vx, vy, first frame)
    tree = None
    light = None
    if kind in LIGHTS:
        light = lighting(kind, w, h, args, rng)
        quiet = args.light_at + args.light_gap
        n += quiet - args.quiet
        kind = "pair"
    else:
        quiet = args.quiet
    if kind == "slow":
        for k, v in enumerate(args.slow_speeds):
            p, a = texture_patch(rng, (28, 20))
            ang = rng.uniform(0, 2 * np.pi)
            objs.append((p, a, w * (0.3 + 0.4 * k), h * 0.3, v * np.cos(ang), v * np.sin(ang), 0))
    elif kind == "pair":
        for k, vx in enumerate((-0.8, 0.8)):
            p, a = texture_patch(rng, (36, 60))
            x0 = w / 2 - 40 + k * 40  # 36 px wide, 4 px apart
            objs.append((p, a, x0, h + 1, vx, -1.3, quiet))
    elif kind == "windy":
        tw, th = 120, 100
        tree_patch, _ = texture_patch(rng, (tw, th))
        tree = (tree_patch, 20, 20, tw, th)
        p, a = texture_patch(rng, (40, 56))
        objs.append((p, a, -41, h * 0.5, 1.0, 0.0, args.quiet))
    elif kind == "van":
        vw, vh = 110, 46
        colour = rng.uniform(60, 200, 3).astype(np.float32)
        p = np.ones((vh, vw, 3), np.float32) * colour
        p += np.linspace(-8, 8, vw, dtype=np.float32)[None, :, None]
        p[4:18, vw - 26:vw - 6] = 30  # windscreen
        p[vh - 8:, 10:26] = 25  # wheels
        p[vh - 8:, vw - 30:vw - 14] = 25
        a = np.ones((vh, vw), np.float32)
        a[[0, -1], :] = a[:, [0, -1]] = 0.5
        objs.append((p, a, -vw, rng.uniform(0.45, 0.6) * h, args.van_speed, 0.0, quiet))
    else:
        raise Fail(f"unknown composite {kind}")
    for i in range(n):
        frame = bg.astype(np.float32).copy()
        extra = None
        if tree is not None:
            tp, tx, ty, tw, th = tree
            yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32)
            # Smooth sway: amplitude tapers to 0 at the trunk (bottom) and
            # the edges, so the warp stays continuous with the background.
            taper = np.sin(np.pi * xx / (tw - 1)) * (1 - yy / (th - 1))
            phase = 2 * np.pi * i / args.sway_period + 0.05 * xx + 0.03 * yy
            mx = xx + args.sway * taper * np.sin(phase)
            my = yy + 0.5 * args.sway * taper * np.cos(phase)
            frame[ty:ty + th, tx:tx + tw] = cv2.remap(tp, mx, my, cv2.INTER_LINEAR,
                                                      borderMode=cv2.BORDER_REFLECT)
            extra = np.zeros((h, w), np.uint8)
            extra[ty:ty + th, tx:tx + tw] = 255
        acc = np.zeros((h, w), np.float32)
        for p, a, x0, y0, vx, vy, f0 in objs:
            if i >= f0:
                t = i - f0
                paste(frame, acc, p, a, x0 + vx * t, y0 + vy * t)
        if light is not None:
            light(i, frame)
        frame += rng.normal(0, 2.0, frame.shape)
        yield clip8(frame), gt_from_alpha(acc), extra


# ------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", help="output directory (not the repository)")
    ap.add_argument("--list", action="store_true", help="print the clips and what they test")
    ap.add_argument("--only", help="comma-separated clip names")
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--cdnet", default=os.path.join(DATA, "surveillance/cdnet2014/baseline/highway"))
    ap.add_argument("--video", default=os.path.join(DATA, "video/vtest.avi"))
    ap.add_argument("--frames", type=int, default=200, help="frames of the hw- and vt- clips")
    ap.add_argument("--frames-comp", type=int, default=150)
    ap.add_argument("--step-at", type=int, default=100)
    ap.add_argument("--step-delta", type=int, default=60)
    ap.add_argument("--ramp-delta", type=float, default=-80)
    ap.add_argument("--ir-at", type=int, default=100)
    ap.add_argument("--ir-gain", type=float, default=1.6)
    ap.add_argument("--ir-noise", type=float, default=8)
    ap.add_argument("--noise", type=float, default=10)
    ap.add_argument("--rain-streaks", type=int, default=60)
    ap.add_argument("--snow-flakes", type=int, default=250)
    ap.add_argument("--shake-min", type=float, default=1)
    ap.add_argument("--shake-max", type=float, default=8)
    ap.add_argument("--shake-rot", type=float, default=0.5)
    ap.add_argument("--pan-speed", type=float, default=0.5)
    ap.add_argument("--slow-speeds", type=lambda s: [float(v) for v in s.split(",")], default=[0.15, 0.4])
    ap.add_argument("--quiet", type=int, default=45, help="composite frames before the object comes")
    ap.add_argument("--van-speed", type=float, default=1.5)
    ap.add_argument("--sway", type=float, default=3.0)
    ap.add_argument("--sway-period", type=float, default=40)
    ap.add_argument("--light-at", type=int, default=30, help="the lights' clips: frame the light comes")
    ap.add_argument("--light-gap", type=int, default=60, help="frames from the light to the objects")
    ap.add_argument("--score-from", type=int, default=0,
                    help="temporalROI.txt starts at this frame of each clip (0: every frame)")
    args = ap.parse_args()

    if args.list:
        print(__doc__)
        return 0
    if not args.out:
        ap.error("give an output directory (or --list)")
    names = args.only.split(",") if args.only else CLIPS
    bad = [n for n in names if n not in CLIPS]
    if bad:
        ap.error(f"unknown clip(s) {bad}; --list shows them")
    if min(args.frames, args.frames_comp) < 2:
        ap.error("--frames and --frames-comp must be >= 2")
    params = {k: v for k, v in vars(args).items() if k not in ("out", "list", "only")}
    try:
        hw = vt = bg = None
        for name in names:
            # One generator per clip: a clip does not change when others are added.
            rng = np.random.default_rng([args.seed, CLIPS.index(name)])
            fam, kind = name.split("-", 1)
            info = {"clip": name, "fps": 10 if fam == "vt" else 30, "params": params,
                    "doc": "bench/surveillance-stress.py --list"}
            if fam == "hw":
                hw = hw or cdnet_frames(args.cdnet, args.frames)
                wr = Writer(args.out, name, hw[0][0], info, args.score_from)
                for img, gt in perturbed(kind, [(f, g) for _, f, g in hw], args, rng):
                    wr.add(img, gt)
            elif fam == "vt":
                vt = vt or video_frames(args.video, 100, args.frames, (384, 288))
                wr = Writer(args.out, name, 1, info, args.score_from)
                for img, _ in perturbed(kind, [(f, None) for f in vt], args, rng):
                    wr.add(img)
            else:
                if bg is None:
                    bg = median_background(args.video, (384, 288))
                wr = Writer(args.out, name, 1, info, args.score_from)
                base = kind[:-len("shake")].rstrip("-") if kind.endswith("shake") else kind
                frames = composite(base or "pair", bg, args, rng)
                if base != kind:
                    frames = shaken(frames, args, rng)
                for img, gt, extra in frames:
                    wr.add(img, gt)
                    if extra is not None and wr.n == 1:
                        cv2.imwrite(os.path.join(wr.dir, "tree_mask.png"), extra)
            wr.close()
    except Fail as e:
        print(f"surveillance-stress.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
