# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Scoring core of bench/surveillance.py (issue 32), numpy only.

Kept apart from the runner so that the meson test (tests/survscore_test.py)
can check the definitions without GStreamer, OpenCV or the shared data.

Definitions (CDnet 2014 labels, read as grey):
  0 static, 50 hard shadow (static), 85 outside the ROI and 170 unknown
  (both ignored), 255 moving.

* box pixel P/R/F: TP/FP/FN summed over every evaluated frame; positive =
  255, negative = 0 and 50, 85 and 170 ignored. The prediction of a frame
  is the union of its boxes.
* block F: a block is ground-truth moving when >= 10 % of its non-ignored
  pixels are 255; a block made only of ignored pixels is not scored. A
  pixel mask (an anchor's) is put on the same grid with the same rule.
* events: a frame has GT motion when it has >= min_gt_pixels pixels of
  255; motion frames closer than the hold-off merge into one episode; each
  episode start must be matched by a predicted start within +-tol seconds.
"""

import json
import os
import re
import struct
import zlib

import numpy as np

MOVING = 255
IGNORED = (85, 170)
NEGATIVE = (0, 50)


# ---------------------------------------------------------------- CDnet I/O

class DataError(Exception):
    """A clip folder that cannot be scored (message for the user)."""


def _frame_number(name, prefix):
    m = re.fullmatch(prefix + r"(\d+)\.(jpg|jpeg|png)", name, re.IGNORECASE)
    return (int(m.group(1)), m.group(2).lower()) if m else None


def list_inputs(folder):
    """[(number, path)] of folder/input/inNNNNNN.{jpg,png}, sorted."""
    d = os.path.join(folder, "input")
    if not os.path.isdir(d):
        raise DataError(f"{folder}: no input/ folder (not a CDnet-format clip)")
    out = []
    for name in os.listdir(d):
        n = _frame_number(name, "in")
        if n is not None:
            out.append((n[0], os.path.join(d, name)))
    out.sort()
    if not out:
        raise DataError(f"{d}: no inNNNNNN.jpg/png frames")
    return out


def gt_file(folder, number):
    """Path of the ground truth of frame `number`, or None."""
    p = os.path.join(folder, "groundtruth", "gt%06d.png" % number)
    return p if os.path.isfile(p) else None


def read_temporal_roi(folder):
    """(first, last) evaluated frame numbers; all frames when the file is missing."""
    p = os.path.join(folder, "temporalROI.txt")
    if not os.path.isfile(p):
        return None
    try:
        a, b = open(p).read().split()[:2]
        return int(a), int(b)
    except (ValueError, OSError) as e:
        raise DataError(f"{p}: unreadable ({e})")


def write_png_grey(path, img):
    """Minimal 8-bit grey PNG writer (no OpenCV needed; filter 0)."""
    img = np.ascontiguousarray(img, dtype=np.uint8)
    h, w = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw)))
        f.write(chunk(b"IEND", b""))


def _read_png_py(path):
    """Minimal PNG reader (8-bit grey/grey+alpha/RGB/RGBA, not interlaced,
    no palette) for when OpenCV is absent; slow but only used by tests."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise DataError(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        ln, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if tag == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = hdr
    chans = {0: 1, 4: 2, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or chans is None or interlace:
        raise DataError(f"{path}: PNG type not supported without OpenCV")
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * chans)
    out = np.zeros((h, w * chans), np.int32)
    prev = np.zeros(w * chans, np.int32)
    for y in range(h):
        ft, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        cur = np.zeros_like(line)
        if ft in (0, 2):
            cur = (line + (prev if ft == 2 else 0)) & 255
        else:
            for x in range(len(line)):
                a = cur[x - chans] if x >= chans else 0
                b = prev[x]
                c = prev[x - chans] if x >= chans else 0
                if ft == 1:
                    pr = a
                elif ft == 3:
                    pr = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pr) & 255
        out[y] = cur
        prev = cur
    img = out.reshape(h, w, chans).astype(np.uint8)
    # CDnet GT has three equal channels: the first is the label.
    return img[:, :, 0]


def read_grey(path):
    """A label/grey image as uint8 HxW (OpenCV when present)."""
    try:
        import cv2  # noqa: PLC0415 (optional)
    except ImportError:
        cv2 = None
    if cv2 is not None:
        img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise DataError(f"{path}: unreadable image")
        return img
    return _read_png_py(path)


# ------------------------------------------------------- metadata stream

def parse_stream(lines, fps):
    """Parse mvmetastream JSON lines (schema v1 or v2; unknown keys ignored).

    Returns (frames, starts, grid): frames = {frame index: {"regions":
    [(x, y, w, h, region dict)], "blocks": [(col, row)]}}, starts = the
    motion-start times in seconds, grid = the last frame's grid dict.
    Frame indices come from the `frame` key (0 = first frame in), or from
    the PTS when that key is missing.
    """
    frames, starts, grid = {}, [], None
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(f"stream line {n}: not JSON ({e})")
        if not isinstance(obj, dict):
            continue
        if obj.get("v") not in (1, 2):
            raise DataError(f"stream line {n}: schema version {obj.get('v')!r} not 1 or 2")
        kind = obj.get("type")
        if kind == "event":
            if obj.get("event") == "motion-start":
                t = obj.get("running_time")
                if t is None:
                    t = obj.get("pts")
                if t is not None:
                    starts.append(t / 1e9)
        elif kind == "frame":
            idx = obj.get("frame")
            if idx is None and obj.get("pts") is not None:
                idx = int(round(obj["pts"] * fps / 1e9))
            if idx is None:
                continue
            try:
                regs = [(int(r["x"]), int(r["y"]), int(r["w"]), int(r["h"]), r)
                        for r in obj.get("regions") or []]
                blocks = [(int(v[0]), int(v[1])) for v in obj.get("moving_vectors") or []]
            except (KeyError, TypeError, ValueError, IndexError) as e:
                raise DataError(f"stream line {n}: malformed region or moving vector ({e!r})")
            frames[int(idx)] = {"regions": regs, "blocks": blocks}
            if obj.get("grid"):
                grid = obj["grid"]
    return frames, sorted(starts), grid


# --------------------------------------------------------------- scoring

class Counts:
    """TP/FP/FN summed over frames."""

    def __init__(self):
        self.tp = self.fp = self.fn = 0

    def add(self, tp, fp, fn):
        self.tp += int(tp)
        self.fp += int(fp)
        self.fn += int(fn)

    def prf(self):
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else float("nan")
        f = 2 * p * r / (p + r) if p + r > 0 else (0.0 if self.tp + self.fp + self.fn else float("nan"))
        return p, r, f


def boxes_mask(shape, boxes):
    """Union of (x, y, w, h) boxes, clipped to the frame."""
    m = np.zeros(shape, bool)
    for x, y, w, h in boxes:
        m[max(0, y):max(0, y + h), max(0, x):max(0, x + w)] = True
    return m


def pixel_counts(pred, gt):
    """(TP, FP, FN) of a bool mask against a CDnet label image."""
    pos = gt == MOVING
    neg = (gt == NEGATIVE[0]) | (gt == NEGATIVE[1])
    return (np.count_nonzero(pred & pos), np.count_nonzero(pred & neg),
            np.count_nonzero(~pred & pos))


def _block_sums(a, bw, bh, cols, rows):
    """Sum of a HxW array over each bw x bh block (partial last blocks)."""
    h, w = a.shape
    pad = np.zeros((rows * bh, cols * bw), np.int64)
    pad[:min(h, rows * bh), :min(w, cols * bw)] = a[:rows * bh, :cols * bw]
    return pad.reshape(rows, bh, cols, bw).sum(axis=(1, 3))


def grid_shape(shape, bw, bh):
    h, w = shape
    return (w + bw - 1) // bw, (h + bh - 1) // bh


def block_truth(gt, bw, bh, frac=0.10):
    """(moving, scored) bool arrays [rows, cols] of the GT on the block grid."""
    cols, rows = grid_shape(gt.shape, bw, bh)
    valid = ~((gt == IGNORED[0]) | (gt == IGNORED[1]))
    nvalid = _block_sums(valid, bw, bh, cols, rows)
    npos = _block_sums(gt == MOVING, bw, bh, cols, rows)
    return npos >= frac * nvalid - 1e-9, nvalid > 0, nvalid


def mask_blocks(mask, gt, bw, bh, frac=0.10):
    """A pixel mask on the block grid: >= frac of the non-ignored pixels set."""
    cols, rows = grid_shape(gt.shape, bw, bh)
    valid = ~((gt == IGNORED[0]) | (gt == IGNORED[1]))
    nvalid = _block_sums(valid, bw, bh, cols, rows)
    nset = _block_sums(mask & valid, bw, bh, cols, rows)
    return (nset >= frac * nvalid - 1e-9) & (nvalid > 0)


def list_blocks(blocks, cols, rows):
    """[(col, row)] to a bool [rows, cols] array (out-of-grid ignored)."""
    a = np.zeros((rows, cols), bool)
    for c, r in blocks:
        if 0 <= c < cols and 0 <= r < rows:
            a[r, c] = True
    return a


def block_counts(pred, gt, bw, bh, frac=0.10):
    """(TP, FP, FN) of a bool block array against the GT's block truth."""
    truth, scored, _ = block_truth(gt, bw, bh, frac)
    truth &= scored
    pred = pred & scored
    return (np.count_nonzero(pred & truth), np.count_nonzero(pred & ~truth),
            np.count_nonzero(~pred & truth))


# ---------------------------------------------------------------- events

def default_min_gt_pixels(shape):
    return max(20, int(round(0.001 * shape[0] * shape[1])))


def starts_from_flags(flags, fps, hold_off):
    """Frames that start an episode: flagged after >= hold_off seconds
    without a flag; the clip start counts as quiet."""
    out, last = [], None
    for i, f in enumerate(flags):
        if f:
            if last is None or (i - last) / fps >= hold_off - 1e-9:
                out.append(i)
            last = i
    return out


def gt_starts(gt_flags, fps, hold_off):
    """GT episode starts from per-frame flags (True/False, None = not scored).

    Returns (starts, dont_care) in frame indices. An episode that is already
    under way when scoring begins after frame 0 (motion within hold-off of
    the first scored frame) is a don't-care: motion may have begun earlier.
    """
    scored = [i for i, f in enumerate(gt_flags) if f is not None]
    if not scored:
        return [], []
    first = scored[0]
    starts, dont_care, last = [], [], None
    for i in scored:
        if not gt_flags[i]:
            continue
        if last is None:
            if first == 0 or (i - first) / fps >= hold_off - 1e-9:
                starts.append(i)
            else:
                dont_care.append(i)
        elif (i - last) / fps >= hold_off - 1e-9:
            starts.append(i)
        last = i
    return starts, dont_care


def match_starts(gt_s, pred_s, tol=0.5, dont_care_s=(), window=None):
    """Greedy one-to-one matching in time order, each GT start to the
    nearest free predicted start within +-tol s.

    window = (t0, t1): predicted starts outside [t0 - tol, t1 + tol] are not
    judged (no GT there). Predicted starts within tol of a don't-care start
    are neither matched nor false. Returns dict(matched, gt, missed,
    false, delays [s]).
    """
    pred = sorted(pred_s)
    if window is not None:
        pred = [p for p in pred if window[0] - tol - 1e-9 <= p <= window[1] + tol + 1e-9]
    used = [False] * len(pred)
    delays = []
    for g in sorted(gt_s):
        # The nearest free one: an early start that belongs to something
        # else must not steal a better match.
        best = None
        for k, p in enumerate(pred):
            if not used[k] and abs(p - g) <= tol + 1e-9 and (best is None or abs(p - g) < abs(pred[best] - g)):
                best = k
        if best is not None:
            used[best] = True
            delays.append(pred[best] - g)
    false = 0
    for k, p in enumerate(pred):
        if used[k]:
            continue
        if any(abs(p - d) <= tol + 1e-9 for d in dont_care_s):
            continue
        false += 1
    return {"matched": len(delays), "gt": len(gt_s), "missed": len(gt_s) - len(delays),
            "false": false, "delays": delays}
