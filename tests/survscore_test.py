# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""bench/survscore.py (the scoring of bench/surveillance.py) on a tiny
CDnet-format clip made here, with answers counted by hand below.

OpenCV is blocked on purpose so that the numpy-only path (PNG reader
included) is the one tested. Usage: survscore_test.py SOURCE_ROOT
"""

import math
import os
import subprocess
import sys
import tempfile

sys.modules["cv2"] = None  # import cv2 -> ImportError: test the fallback
try:
    import numpy as np
except ImportError:
    print("SKIP: no numpy")
    sys.exit(77)

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "bench"))
import survscore as S  # noqa: E402

failures = []


def check(name, got, want):
    ok = (math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)
          if isinstance(want, float) else got == want)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {got!r} (want {want!r})")
    if not ok:
        failures.append(name)


W, H, FPS, HOLD = 32, 24, 10.0, 0.25
FIRST = 100  # frames in100..in109 = clip indices 0..9


def gt_frame(i):
    g = np.zeros((H, W), np.uint8)
    g[23, :] = 50        # hard shadow: negative
    g[:, 31] = 85        # outside ROI: ignored
    if i in (0, 9):      # outside temporalROI: would change every count
        g[:, :31] = 255
    if i in (1, 2):
        g[0:8, 0:8] = 255                    # block (0,0), 64 px
    if i == 3:
        g[16, 8:15] = 255                    # 7 px: 7/64 >= 10 % of block (1,2)
        g[17, 0:6] = 255                     # 6 px: 6/64 < 10 % of block (0,2)
    if i in (6, 7, 8):
        g[8:16, 16:24] = 255                 # block (2,1)
        g[8:16, 24:31] = 170                 # block (3,1): all ignored
    return g


with tempfile.TemporaryDirectory() as tmp:
    clip = os.path.join(tmp, "tiny")
    os.makedirs(os.path.join(clip, "input"))
    os.makedirs(os.path.join(clip, "groundtruth"))
    for i in range(10):
        S.write_png_grey(os.path.join(clip, "input", "in%06d.png" % (FIRST + i)),
                         np.full((H, W), 128, np.uint8))
        if i != 5:  # frame 105 has no GT: not scored
            S.write_png_grey(os.path.join(clip, "groundtruth", "gt%06d.png" % (FIRST + i)),
                             gt_frame(i))
    with open(os.path.join(clip, "temporalROI.txt"), "w") as f:
        f.write("101 108\n")

    # Reading back: frame list, ROI, GT through the numpy PNG reader.
    inputs = S.list_inputs(clip)
    check("inputs", [n for n, _ in inputs], list(range(100, 110)))
    check("temporalROI", S.read_temporal_roi(clip), (101, 108))
    roi = S.read_temporal_roi(clip)
    gts = [S.read_grey(S.gt_file(clip, n)) if roi[0] <= n <= roi[1] and S.gt_file(clip, n)
           else None for n, _ in inputs]
    check("GT read back", all(np.array_equal(g, gt_frame(i)) for i, g in enumerate(gts)
                              if g is not None), True)
    scored = [i for i, g in enumerate(gts) if g is not None]
    check("scored frames", scored, [1, 2, 3, 4, 6, 7, 8])

    # A stream as mvmetastream writes it, v1 and v2 lines, extra keys and
    # object types the scorer must ignore.
    def frame(i, regions, blocks, v=1):
        import json
        # The track: v1 flat keys, v2 one object.
        track = ({"track": 7, "age": 3, "vx": 0.5} if v == 1 else
                 {"track": {"id": 7, "age": 3, "frames": 2, "velocity": [0.5, 0], "speed": 0.5,
                            "direction": 0}})
        regs = [dict({"id": k, "x": x, "y": y, "w": w, "h": h, "mean_dx": 1.0, "mean_dy": 0.0,
                      "area": 1, "pixels": w * h}, **track)
                for k, (x, y, w, h) in enumerate(regions)]
        return json.dumps({"v": v, "type": "frame", "seq": i, "camera_id": None, "frame": i,
                           "pts": int(i * 1e9 / FPS), "grid": {"width": W, "height": H,
                           "block_width": 8, "block_height": 8, "columns": 4, "rows": 3},
                           "moving_vectors": [[c, r, 1, 0] for c, r in blocks],
                           "regions": regs, "future_key": {"a": 1},
                           **({"decision": True, "global_motion": [0, 0]} if v == 2 else {})})

    def start(t, v=1):
        track = '"track":1' if v == 1 else '"track_id":1'
        return ('{"v":%d,"type":"event","seq":0,"camera_id":null,"event":"motion-start",'
                '"pts":%d,"running_time":%d,"regions":1,%s}' % (v, t * 1e9, t * 1e9, track))
    lines = [
        frame(0, [(0, 0, 32, 24)], [(0, 0)]),
        start(0.1), frame(1, [(0, 0, 8, 8)], [(0, 0)]),
        frame(2, [(0, 0, 16, 8)], [(0, 0), (1, 0)], v=2),
        frame(3, [], []),
        '{"v":2,"type":"stats","seq":9}', "",
        frame(4, [(24, 16, 8, 8)], [(3, 2)]),
        frame(5, [(0, 0, 32, 24)], [(0, 0), (1, 1)]),
        frame(6, [(16, 8, 4, 8)], [(2, 1)]),
        start(0.7, v=2), frame(7, [], []),
        frame(8, [(16, 8, 16, 8)], [(2, 1), (3, 1)]),
        start(0.95), frame(9, [(0, 0, 32, 24)], [(0, 0)]),
        start(2.0),  # outside the scored window: not judged
        '{"v":1,"type":"event","seq":0,"camera_id":null,"event":"motion-stop","pts":3000000000,'
        '"running_time":3000000000,"duration":1,"reason":"eos"}',
    ]
    frames, starts, grid = S.parse_stream(lines, FPS)
    check("parsed frames", sorted(frames), list(range(10)))
    check("parsed starts", starts, [0.1, 0.7, 0.95, 2.0])
    check("grid", (grid["block_width"], grid["block_height"]), (8, 8))

    px, bl = S.Counts(), S.Counts()
    for i in scored:
        boxes = [r[:4] for r in frames[i]["regions"]]
        px.add(*S.pixel_counts(S.boxes_mask((H, W), boxes), gts[i]))
        bl.add(*S.block_counts(S.list_blocks(frames[i]["blocks"], 4, 3), gts[i], 8, 8))
    # Pixels (by hand): f1 TP64; f2 TP64 FP64; f3 FN7+6; f4 FP 7x8 (column
    # 31 ignored, row 23 shadow negative); f6 TP32 FN32; f7 FN64; f8 TP64
    # (170 and 85 under the box ignored).
    check("pixel TP/FP/FN", (px.tp, px.fp, px.fn), (224, 120, 109))
    p, r, f = px.prf()
    check("box P", p, 224 / 344)
    check("box R", r, 224 / 333)
    check("box F", f, 448 / 677)
    # Blocks: f1 TP; f2 TP FP; f3 FN (7 px block) only; f4 FP; f6 TP; f7
    # FN; f8 TP, (3,1) all ignored so not scored.
    check("block TP/FP/FN", (bl.tp, bl.fp, bl.fn), (4, 2, 2))
    check("block F", bl.prf()[2], 8 / 12)

    # An anchor's pixel mask on the grid: the same 10 % rule over non-ignored pixels.
    m = np.zeros((H, W), bool)
    m[0, 0:7] = True     # 7/64 of block (0,0)
    m[8, 8:14] = True    # 6/64 of block (1,1)
    m[9:16, 24:31] = True  # block (3,1): all ignored in f6
    mb = S.mask_blocks(m, gts[6], 8, 8)
    check("mask_blocks", [tuple(x) for x in np.argwhere(mb)], [(0, 0)])

    # Events. GT motion frames (>= 20 px): 1, 2, 6, 7, 8 (f3 has 13 px).
    flags = [None if g is None else int(np.count_nonzero(g == 255)) >= 20 for g in gts]
    gst, dc = S.gt_starts(flags, FPS, HOLD)
    # f1 is under way when scoring begins after frame 0: don't-care.
    check("GT starts", gst, [6])
    check("don't-care starts", dc, [1])
    ev = S.match_starts([g / FPS for g in gst], starts, 0.5, [d / FPS for d in dc],
                        (scored[0] / FPS, scored[-1] / FPS))
    # 0.1 near the don't-care (and farther from 0.6 than 0.7), 0.7 matches
    # 0.6 (+100 ms), 0.95 is a second
    # start within tolerance but the GT start is taken: false; 2.0 not judged.
    check("matched", ev["matched"], 1)
    check("missed", ev["missed"], 0)
    check("false", ev["false"], 1)
    check("delay", ev["delays"][0], 0.7 - 0.6)
    check("anchor starts", S.starts_from_flags([0, 1, 1, 0, 0, 0, 1, 0, 1], FPS, HOLD), [1, 6])
    check("clip-start GT start", S.gt_starts([True, True, False, True], FPS, HOLD), ([0], []))
    check("default min GT pixels", S.default_min_gt_pixels((240, 320)), 77)

    # Bad input: clear errors, no traceback.
    try:
        S.list_inputs(os.path.join(tmp, "missing"))
        check("missing folder raises", False, True)
    except S.DataError:
        check("missing folder raises", True, True)
    try:
        S.parse_stream(['{"v":3,"type":"frame","frame":0}'], FPS)
        check("unknown version refused", False, True)
    except S.DataError:
        check("unknown version refused", True, True)
    try:
        S.parse_stream(['{"v":1,"type":"frame","frame":0,"regions":[{"x":1}]}'], FPS)
        check("malformed region refused", False, True)
    except S.DataError:
        check("malformed region refused", True, True)
    p = subprocess.run([sys.executable, os.path.join(src, "bench", "surveillance.py"),
                        os.path.join(tmp, "missing"), "--methods", "framediff"],
                       capture_output=True, text=True)
    check("CLI on a missing folder: exit 2", p.returncode, 2)
    check("CLI on a missing folder: no traceback", "Traceback" in p.stderr, False)

print("FAILED: " + ", ".join(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
