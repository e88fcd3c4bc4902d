#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Surveillance benchmark (issue 32): moving regions, moving blocks and
motion events of our element on CDnet-format clips, next to anchors.

    export GST_PLUGIN_PATH=$PWD/build/gst LD_LIBRARY_PATH=$PWD/build/gst/motionvectors
    bench/surveillance.py ../shared/data/surveillance/cdnet2014/baseline/highway \\
        --element "blockmatchme regions=true events=true" \\
        --element "blockmatchme threshold=2 min-area=4 regions=true events=true" \\
        --ours-label default --ours-label t2-a4 \\
        --methods ours,mog2,knn,framediff,motioncells --json /tmp/surv.json

A clip is a folder with input/inNNNNNN.{jpg,png}, groundtruth/gtNNNNNN.png
and temporalROI.txt (CDnet 2014 layout; bench/surveillance-stress.py makes
more). Frames are numbered from the first input frame (clip frame 0 has
PTS 0, frame i PTS i/fps). Scores are over the frames inside temporalROI
that have a GT file; the definitions are in bench/survscore.py.

Methods:
  ours        the --element string(s) (default "blockmatchme regions=true
              events=true") -> mvmetastream -> JSON lines (schema v2);
              boxes = regions, blocks = moving_vectors (the element's MOVING
              blocks when it made a decision, else mvmetastream's
              motion-threshold), starts = motion-start events.
  mog2, knn   OpenCV BackgroundSubtractorMOG2/KNN, default parameters
              (shadows detected; shadow pixels (127) count as background).
  mog2grey    MOG2 as above on the grey frame, which is all the element
              reads: what colour gives MOG2 (not run unless asked for).
  framediff   |I_t - I_t-1| > 25 on grey.
  motioncells GStreamer's motioncells (gstreamer1.0-opencv), default
              properties plus postallmotion=true; its per-evaluation cell
              lists are read from the bus messages (gst-launch-1.0 -m) and
              held until its next evaluation (it evaluates every few frames).
  frigate     Frigate's motion detector (ImprovedMotionDetector, MIT), run
              from a Frigate source checkout given with --frigate DIR (never
              copied here; needs python3-scipy): its own code, unmodified,
              with its MotionConfig defaults and no mask, on the grey frame
              at Frigate's default detect rate (--frigate-fps, 5: every
              fps/5-th frame, its boxes held until the next one, as
              motioncells'); no boxes while it calibrates (Frigate's
              detect loop ignores them then). Its background average starts
              black and follows the frames slowly (20 s at 5 fps): it first
              sees the clip's first frame for two minutes of its time (600
              evaluations), as MOG2 and KNN start from that frame. Its boxes
              are used as they are (no cleaning); its block F is that of
              their union.
Anchors are boxed alike: 3x3 opening, 8-connected components, those under
--min-blob pixels dropped, the union of their boxes; their block F uses
that cleaned mask on our grid (16x16 when ours is not run); an anchor's
motion-start = first frame with a box after >= hold-off without one.

ms/frame: ours = the whole gst-launch-1.0 run (decode, start-up included)
per frame; anchors = their own per-frame work, decoding excluded.
Exit status: 0 = all ran, 1 = a method failed, 2 = bad input.
"""

import argparse
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import survscore as S  # noqa: E402

try:
    import cv2
except ImportError:
    cv2 = None

ALL_METHODS = ["ours", "mog2", "mog2grey", "knn", "framediff", "motioncells", "frigate"]
DEFAULT_METHODS = [m for m in ALL_METHODS if m != "mog2grey"]
DEFAULT_ELEMENT = "blockmatchme regions=true events=true"


def die(msg, code=2):
    print(f"surveillance.py: {msg}", file=sys.stderr)
    sys.exit(code)


# ------------------------------------------------------------------ clip

class Clip:
    def __init__(self, folder, max_frames):
        self.folder = os.path.abspath(folder)
        self.name = os.path.basename(self.folder.rstrip("/"))
        inputs = S.list_inputs(self.folder)
        if max_frames:
            inputs = inputs[:max_frames]
        nums = [n for n, _ in inputs]
        # multifilesrc needs one printf pattern and consecutive numbers.
        if nums != list(range(nums[0], nums[0] + len(nums))):
            raise S.DataError(f"{self.folder}: input frame numbers are not consecutive")
        self.ext = os.path.splitext(inputs[0][1])[1].lower()
        if any(os.path.splitext(p)[1].lower() != self.ext for _, p in inputs):
            raise S.DataError(f"{self.folder}: mixed input file types")
        self.first = nums[0]
        self.paths = [p for _, p in inputs]
        self.n = len(nums)
        roi = S.read_temporal_roi(self.folder) or (nums[0], nums[-1])
        self.gt = [None] * self.n
        for i, num in enumerate(nums):
            if roi[0] <= num <= roi[1]:
                g = S.gt_file(self.folder, num)
                if g:
                    self.gt[i] = S.read_grey(g)
        self.scored = [i for i in range(self.n) if self.gt[i] is not None]
        img = cv2.imread(self.paths[0]) if cv2 is not None else None
        if img is None and cv2 is not None:
            raise S.DataError(f"{self.paths[0]}: unreadable")
        self.shape = img.shape[:2] if img is not None else self.gt[self.scored[0]].shape
        for i in self.scored:
            if self.gt[i].shape != self.shape:
                raise S.DataError(f"{self.folder}: GT of frame {self.first + i} is "
                                  f"{self.gt[i].shape}, frames are {self.shape}")

    def frames(self):
        for p in self.paths:
            img = cv2.imread(p)
            if img is None:
                raise S.DataError(f"{p}: unreadable")
            yield img


# ------------------------------------------------------------------ ours

def run_ours(clip, element, fps, gst_launch):
    """Run the element; returns (per-frame boxes, per-frame blocks, starts,
    grid, regions per frame, seconds)."""
    dec = {".jpg": ("image/jpeg", "jpegdec"), ".jpeg": ("image/jpeg", "jpegdec"),
           ".png": ("image/png", "pngdec")}[clip.ext]
    pattern = os.path.join(clip.folder, "input", "in%06d" + os.path.splitext(clip.paths[0])[1])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ours.jsonl")
        cmd = ([gst_launch, "-q", "multifilesrc", f"location={pattern}",
                f"start-index={clip.first}", f"stop-index={clip.first + clip.n - 1}",
                f"caps={dec[0]},framerate={fps_fraction(fps)}", "!", dec[1], "!",
                "videoconvert", "!"] + shlex.split(element) +
               ["!", "mvmetastream", "!", "filesink", f"location={out}", "sync=false"])
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.perf_counter() - t0
        if p.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"gst-launch-1.0 failed ({p.returncode}): "
                               f"{(p.stderr or p.stdout).strip()[-600:]}\n  command: {shlex.join(cmd)}")
        with open(out) as f:
            frames, starts, grid = S.parse_stream(f, fps)
    if not frames:
        raise RuntimeError("the element produced no frame objects")
    return frames, starts, grid, secs


def fps_fraction(fps):
    if abs(fps - round(fps)) < 1e-9:
        return f"{int(round(fps))}/1"
    return f"{int(round(fps * 1000))}/1000"


# --------------------------------------------------------------- anchors

def clean_boxes(fg, min_blob):
    """3x3 opening, 8-connected components >= min_blob px: (mask, boxes)."""
    fg = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    keep = np.zeros(n, bool)
    boxes = []
    for k in range(1, n):
        x, y, w, h, a = stats[k]
        if a >= min_blob:
            keep[k] = True
            boxes.append((int(x), int(y), int(w), int(h)))
    return keep[lab], boxes


def run_cv_anchors(clip, methods, min_blob):
    """One decode pass for mog2/mog2grey/knn/framediff: {m: (masks, boxes, secs)}."""
    subs = {}
    if "mog2" in methods:
        subs["mog2"] = cv2.createBackgroundSubtractorMOG2()
    if "mog2grey" in methods:
        subs["mog2grey"] = cv2.createBackgroundSubtractorMOG2()
    if "knn" in methods:
        subs["knn"] = cv2.createBackgroundSubtractorKNN()
    res = {m: ([], [], 0.0) for m in methods}
    prev = None
    for img in clip.frames():
        for m in methods:
            t0 = time.perf_counter()
            if m == "mog2grey":
                fg = subs[m].apply(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)) == 255
            elif m in subs:
                fg = subs[m].apply(img) == 255  # 127 = shadow = background
            else:
                grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
                fg = (np.zeros(grey.shape, bool) if prev is None
                      else cv2.absdiff(grey, prev) > 25)
                prev = grey
            mask, boxes = clean_boxes(fg, min_blob)
            masks, bl, secs = res[m]
            masks.append(mask)
            bl.append(boxes)
            res[m] = (masks, bl, secs + time.perf_counter() - t0)
    return res


MC_LINE = re.compile(r'motion_cells_indices=\(string\)"([^"]*)".*?, (?:motion_begin|motion)=\(guint64\)(\d+)')


def run_motioncells(clip, fps, gst_launch):
    """GStreamer motioncells: per-frame (mask, boxes) and seconds."""
    dec = "jpegdec" if clip.ext in (".jpg", ".jpeg") else "pngdec"
    caps = "image/jpeg" if dec == "jpegdec" else "image/png"
    pattern = os.path.join(clip.folder, "input", "in%06d" + os.path.splitext(clip.paths[0])[1])
    gx, gy = 10, 10  # motioncells' default grid
    cmd = [gst_launch, "-m", "multifilesrc", f"location={pattern}",
           f"start-index={clip.first}", f"stop-index={clip.first + clip.n - 1}",
           f"caps={caps},framerate={fps_fraction(fps)}", "!", dec, "!", "videoconvert", "!",
           "motioncells", "display=false", "postallmotion=true", f"gridx={gx}", f"gridy={gy}",
           "!", "fakesink", "sync=false"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"motioncells run failed: {(p.stderr or p.stdout).strip()[-400:]}")
    h, w = clip.shape
    evals = []
    for line in p.stdout.splitlines():
        if '(element): motion,' not in line:
            continue
        m = MC_LINE.search(line)
        if not m:
            continue
        cells = [tuple(int(v) for v in c.split(":")) for c in m.group(1).replace("\\", "").split(",") if ":" in c]
        evals.append((int(round(int(m.group(2)) * fps / 1e9)), cells))
    # It evaluates every few frames: hold each cell list until the next
    # evaluation (the smallest spacing seen between two of them).
    gaps = [b[0] - a[0] for a, b in zip(evals, evals[1:]) if b[0] > a[0]]
    period = max(1, min(gaps)) if gaps else 1
    masks = [np.zeros((h, w), bool) for _ in range(clip.n)]
    for f, cells in evals:
        m = np.zeros((h, w), bool)
        for r, c in cells:
            m[round(r * h / gy):round((r + 1) * h / gy), round(c * w / gx):round((c + 1) * w / gx)] = True
        for k in range(f, min(clip.n, f + period)):
            masks[k] |= m
    boxes = []
    for m in masks:
        n, lab, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
        boxes.append([tuple(int(v) for v in stats[k][:4]) for k in range(1, n)])
    return masks, boxes, secs, period


def load_frigate(frigate_dir):
    """Frigate's ImprovedMotionDetector class from a source checkout.

    Its module imports Frigate's config, camera and util packages (pydantic
    and more) only for type names and one helper; those few names are given
    here instead, so that the detector's own file runs unmodified."""
    import abc
    import importlib.util
    import types
    path = os.path.join(frigate_dir, "frigate", "motion", "improved_motion.py")
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: not found (--frigate takes a Frigate source checkout)")

    def grab_cv2_contours(cnts):  # as frigate/util/image.py's
        return cnts[0] if len(cnts) == 2 else cnts[1]

    stubs = {
        "frigate": {},
        "frigate.camera": {"PTZMetrics": object},
        "frigate.config": {},
        "frigate.config.config": {"RuntimeMotionConfig": object},
        "frigate.motion": {"MotionDetector": abc.ABC},
        "frigate.util": {},
        "frigate.util.image": {"grab_cv2_contours": grab_cv2_contours},
    }
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        for name, attrs in stubs.items():
            mod = types.ModuleType(name)
            mod.__path__ = []
            mod.__dict__.update(attrs)
            sys.modules[name] = mod
        spec = importlib.util.spec_from_file_location("frigate_improved_motion", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except ImportError as e:
        raise RuntimeError(f"{path}: {e} (it needs numpy, OpenCV and SciPy: "
                           "python3-numpy, python3-opencv, python3-scipy)") from e
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return mod.ImprovedMotionDetector


def run_frigate(clip, fps, frigate_dir, detect_fps):
    """Frigate's motion detector: per-frame (mask, boxes), seconds and the
    frames between its evaluations."""
    import types
    detector_class = load_frigate(frigate_dir)
    h, w = clip.shape
    # frigate/config/camera/motion.py's MotionConfig defaults; no mask (255
    # = looked at).
    config = types.SimpleNamespace(
        enabled=True, threshold=30, lightning_threshold=0.8, skip_motion_threshold=None,
        improve_contrast=True, contour_area=10, delta_alpha=0.2, frame_alpha=0.01,
        frame_height=100, rasterized_mask=np.full((h, w), 255, np.uint8))
    period = max(1, int(round(fps / detect_fps)))
    detector = detector_class((h, w), config, int(round(detect_fps)))
    masks, boxes, secs, held, mask = [], [], 0.0, [], np.zeros((h, w), bool)
    for i, img in enumerate(clip.frames()):
        if i % period == 0:
            grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            if i == 0:
                # Its average frame starts black and, once calibrated,
                # follows the frames at 1 % an evaluation (20 s at 5 fps):
                # a started camera's first minutes, longer than a short clip
                # (on 200 frames it never ended calibrating). It is started
                # from the first frame instead, as MOG2 and KNN are: two
                # minutes of it (600 evaluations, untimed).
                for _ in range(600):
                    detector.detect(grey.copy())
            t0 = time.perf_counter()
            found = detector.detect(grey)
            secs += time.perf_counter() - t0
            held = [] if detector.is_calibrating() else [
                (int(x1), int(y1), int(x2 - x1), int(y2 - y1)) for x1, y1, x2, y2 in found]
            mask = S.boxes_mask((h, w), held)
        masks.append(mask)  # held frames share their evaluation's (read only)
        boxes.append(held)
    return masks, boxes, secs, period


# ---------------------------------------------------------------- scoring

def score(clip, boxes, block_pred, starts_s, args, bw, bh):
    """boxes[i]: list of (x,y,w,h); block_pred(i, cols, rows) -> bool array."""
    px, bl = S.Counts(), S.Counts()
    for i in clip.scored:
        gt = clip.gt[i]
        px.add(*S.pixel_counts(S.boxes_mask(clip.shape, boxes[i]), gt))
        cols, rows = S.grid_shape(clip.shape, bw, bh)
        bl.add(*S.block_counts(block_pred(i, cols, rows), gt, bw, bh))
    min_px = args.min_gt_pixels or S.default_min_gt_pixels(clip.shape)
    flags = [None if g is None else int(np.count_nonzero(g == S.MOVING)) >= min_px for g in clip.gt]
    gts, dc = S.gt_starts(flags, args.fps, args.hold_off)
    window = None
    if clip.scored:
        window = (clip.scored[0] / args.fps, clip.scored[-1] / args.fps)
    ev = S.match_starts([g / args.fps for g in gts], starts_s, args.tol,
                        [d / args.fps for d in dc], window)
    p, r, f = px.prf()
    if not clip.scored:
        # No GT (an invariance clip): only how many starts there were.
        return {"box_P": None, "box_R": None, "box_F": None, "block_F": None,
                "starts_matched": None, "starts_gt": None, "missed_starts": None,
                "false_starts": None, "mean_delay_ms": None, "gt_start_frames": []}
    return {"box_P": p, "box_R": r, "box_F": f, "block_F": bl.prf()[2],
            "starts_matched": ev["matched"], "starts_gt": ev["gt"], "missed_starts": ev["missed"],
            "false_starts": ev["false"],
            "mean_delay_ms": (1000 * sum(ev["delays"]) / len(ev["delays"])) if ev["delays"] else None,
            "gt_start_frames": gts}


def clip_fps(folder):
    try:
        with open(os.path.join(folder, "info.json")) as f:
            v = float(json.load(f).get("fps", 30))
        return v if v > 0 else 30.0
    except (OSError, ValueError, AttributeError):
        return 30.0


def fmt(v, nd=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{nd}f}"


def draw(clip, frames, outdir):
    os.makedirs(outdir, exist_ok=True)
    for i, img in enumerate(clip.frames()):
        if clip.gt[i] is not None:
            cnts, _ = cv2.findContours((clip.gt[i] == 255).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
            cv2.drawContours(img, cnts, -1, (0, 255, 0), 1)
        for x, y, w, h, r in frames.get(i, {}).get("regions", []):
            cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), (0, 0, 255), 1)
            # The track id: v2 {"track": {"id": ...}}, v1 {"track": id}.
            t = r.get("track")
            label = t.get("id") if isinstance(t, dict) else t
            cv2.putText(img, str(label if label is not None else r.get("id", "")), (x + 2, y + 11),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 255), 1)
            if "mean_dx" in r and "mean_dy" in r:
                cx, cy = x + w // 2, y + h // 2
                dx, dy = float(r["mean_dx"]), float(r["mean_dy"])
                # Vectors point where the block came from (backward): the
                # object moves by -v; draw that, scaled to be visible.
                cv2.arrowedLine(img, (cx, cy), (int(cx - 4 * dx), int(cy - 4 * dy)),
                                (255, 255, 0), 1, tipLength=0.3)
        cv2.imwrite(os.path.join(outdir, f"{clip.name}_{clip.first + i:06d}.png"), img)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clips", nargs="+", help="CDnet-format folders")
    ap.add_argument("--element", action="append", help=f'element and properties (repeatable; default "{DEFAULT_ELEMENT}")')
    ap.add_argument("--ours-label", action="append", help="label of each --element (default ours, ours2, ...)")
    ap.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    ap.add_argument("--fps", type=float, default=None,
                    help="frame rate (default: the clip's info.json 'fps' when there, else 30)")
    ap.add_argument("--frames", type=int, default=0, help="only the first N input frames")
    ap.add_argument("--hold-off", type=float, default=1.0, help="seconds (match the element's hold-off)")
    ap.add_argument("--tol", type=float, default=0.5, help="start matching tolerance, seconds")
    ap.add_argument("--min-gt-pixels", type=int, default=0, help="default 0.1%% of the frame, >= 20")
    ap.add_argument("--min-blob", type=int, default=0, help="anchors; default 0.05%% of the frame, >= 15")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--draw", help="write PNGs (GT outline, our boxes) of the first element here")
    ap.add_argument("--gst-launch", default="gst-launch-1.0")
    ap.add_argument("--frigate", metavar="DIR",
                    help="a Frigate source checkout, for the frigate method")
    ap.add_argument("--frigate-fps", type=float, default=5.0,
                    help="Frigate's detect rate (its default 5)")
    args = ap.parse_args()

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    bad = [m for m in methods if m not in ALL_METHODS]
    if bad or not methods:
        die(f"unknown method(s) {bad}; choose from {','.join(ALL_METHODS)}")
    if (args.fps is not None and args.fps <= 0) or args.hold_off < 0 or args.frames < 0:
        die("--fps must be > 0, --hold-off and --frames >= 0")
    if cv2 is None:
        die("needs OpenCV's Python module (python3-opencv) to read frames")
    if "frigate" in methods and not args.frigate:
        die("the frigate method needs --frigate DIR (a Frigate source checkout)")
    if args.frigate_fps <= 0:
        die("--frigate-fps must be > 0")
    elements = args.element or [DEFAULT_ELEMENT]
    labels = args.ours_label or []
    if len(labels) > len(elements):
        die("more --ours-label than --element")
    labels += ["ours" if i == 0 else f"ours{i + 1}" for i in range(len(labels), len(elements))]
    if ("ours" in methods or "motioncells" in methods) and shutil.which(args.gst_launch) is None:
        die(f"{args.gst_launch} not found")

    results, failed = [], False
    for folder in args.clips:
        try:
            clip = Clip(folder, args.frames)
        except (S.DataError, OSError) as e:
            die(str(e))
        # Frame rate: --fps, else the stress generator's info.json, else 30.
        args_fps = args.fps
        if args.fps is None:
            args.fps = clip_fps(clip.folder)
        if not clip.scored:
            print(f"surveillance.py: {clip.name}: no frame inside temporalROI has GT; "
                  "scores are '-'", file=sys.stderr)
        min_blob = args.min_blob or max(15, int(round(0.0005 * clip.shape[0] * clip.shape[1])))
        bw = bh = 16
        rows = []

        def add(label, boxes, block_pred, starts, secs, extra=None):
            r = score(clip, boxes, block_pred, starts, args, bw, bh)
            r.update({"clip": clip.name, "method": label, "frames": clip.n,
                      "scored_frames": len(clip.scored), "ms_per_frame": 1000 * secs / clip.n})
            r.update(extra or {})
            rows.append(r)

        if "ours" in methods:
            for k, (el, lab) in enumerate(zip(elements, labels)):
                try:
                    frames, starts, grid, secs = run_ours(clip, el, args.fps, args.gst_launch)
                except (RuntimeError, S.DataError) as e:
                    print(f"surveillance.py: {clip.name} {lab}: {e}", file=sys.stderr)
                    failed = True
                    continue
                if grid and k == 0:
                    bw, bh = int(grid["block_width"]), int(grid["block_height"])
                gbw, gbh = (int(grid["block_width"]), int(grid["block_height"])) if grid else (bw, bh)
                boxes = [[b[:4] for b in frames.get(i, {}).get("regions", [])] for i in range(clip.n)]
                nreg = sum(len(b) for b in boxes)
                add(lab, boxes,
                    lambda i, c, r, fr=frames: S.list_blocks(fr.get(i, {}).get("blocks", []), c, r),
                    starts, secs, {"element": el, "regions": nreg, "starts": len(starts)})
                if gbw != bw or gbh != bh:
                    # Block F of this element is on its own grid.
                    rows[-1]["block_F"] = None
                    print(f"surveillance.py: {lab}: block size {gbw}x{gbh} differs from the "
                          f"first element's; block F not reported", file=sys.stderr)
                if args.draw and k == 0:
                    draw(clip, frames, args.draw)

        cvm = [m for m in ("mog2", "mog2grey", "knn", "framediff") if m in methods]
        anchors, periods = {}, {}
        if cvm:
            anchors.update(run_cv_anchors(clip, cvm, min_blob))
        if "motioncells" in methods:
            try:
                masks, boxes, secs, period = run_motioncells(clip, args.fps, args.gst_launch)
                anchors["motioncells"] = (masks, boxes, secs)
                periods["motioncells"] = period
            except RuntimeError as e:
                print(f"surveillance.py: {clip.name} motioncells: {e}", file=sys.stderr)
                failed = True
        if "frigate" in methods:
            try:
                masks, boxes, secs, period = run_frigate(clip, args.fps, args.frigate,
                                                         args.frigate_fps)
                anchors["frigate"] = (masks, boxes, secs)
                periods["frigate"] = period
            except RuntimeError as e:
                print(f"surveillance.py: {clip.name} frigate: {e}", file=sys.stderr)
                failed = True
        for m in [m for m in ALL_METHODS if m in anchors]:
            masks, boxes, secs = anchors[m]
            flags = [bool(b) for b in boxes]
            starts = [f / args.fps for f in S.starts_from_flags(flags, args.fps, args.hold_off)]
            add(m, boxes,
                lambda i, c, r, ms=masks: S.mask_blocks(ms[i], clip.gt[i], bw, bh),
                starts, secs, {"regions": sum(len(b) for b in boxes), "starts": len(starts)})
            if m in periods:
                rows[-1][f"{m}_period_frames"] = periods[m]
        for r in rows:
            r["fps"] = args.fps
        results.extend(rows)
        args.fps = args_fps

    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1, default=str)
    return 1 if failed else 0


def starts_cell(r):
    return "-" if r["starts_gt"] is None else f"{r['starts_matched']}/{r['starts_gt']}"


def false_cell(r):
    # Without GT, the number of starts (for invariance: compare with the clean clip).
    return f"({r['starts']} starts, no GT)" if r["false_starts"] is None else str(r["false_starts"])


def print_table(results):
    print("| clip | method | box P | box R | box F | block F | starts matched/GT | "
          "false starts | mean delay ms | ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['clip']} | {r['method']} | {fmt(r['box_P'])} | {fmt(r['box_R'])} | "
              f"{fmt(r['box_F'])} | {fmt(r['block_F'])} | {starts_cell(r)} | "
              f"{false_cell(r)} | {fmt(r['mean_delay_ms'], 0)} | {fmt(r['ms_per_frame'], 1)} |")
    clips = sorted({r["clip"] for r in results})
    if len(clips) < 2:
        return
    # Average row per method: plain means over the clips it ran on (clips
    # without GT add nothing but their time).
    for m in dict.fromkeys(r["method"] for r in results):
        rs = [r for r in results if r["method"] == m]

        def mean(k):
            v = [r[k] for r in rs if r[k] is not None and not (isinstance(r[k], float) and math.isnan(r[k]))]
            return sum(v) / len(v) if v else None
        print(f"| average ({len(rs)}) | {m} | {fmt(mean('box_P'))} | {fmt(mean('box_R'))} | "
              f"{fmt(mean('box_F'))} | {fmt(mean('block_F'))} | "
              f"{sum(r['starts_matched'] or 0 for r in rs)}/{sum(r['starts_gt'] or 0 for r in rs)} | "
              f"{sum(r['false_starts'] or 0 for r in rs)} | {fmt(mean('mean_delay_ms'), 0)} | "
              f"{fmt(mean('ms_per_frame'), 1)} |")


if __name__ == "__main__":
    sys.exit(main())
