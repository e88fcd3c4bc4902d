# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""bench/surveillance.py's Frigate anchor (run_frigate) without Frigate: a
stand-in checkout whose frigate/motion/improved_motion.py imports what
Frigate's does and whose detector records its calls. Checks the warm-up on
the first frame, the detect rate and the boxes held between evaluations,
Frigate's (x1, y1, x2, y2) boxes as (x, y, w, h), no boxes while it
calibrates, and that the stand-in modules do not outlive the load.
Skips (77) without numpy or OpenCV. Usage: surveillance_frigate_test.py
SOURCE_ROOT
"""

import os
import sys
import tempfile

try:
    import cv2
    import numpy as np
except ImportError:
    print("SKIP: no numpy or OpenCV")
    sys.exit(77)

sys.path.insert(0, os.path.join(sys.argv[1], "bench"))
import surveillance as SV  # noqa: E402

DETECTOR = '''
import os

from frigate.camera import PTZMetrics
from frigate.config.config import RuntimeMotionConfig
from frigate.motion import MotionDetector
from frigate.util.image import grab_cv2_contours

class ImprovedMotionDetector(MotionDetector):
    def __init__(self, frame_shape, config: RuntimeMotionConfig, fps,
                 ptz_metrics: PTZMetrics | None = None):
        self.shape, self.config, self.fps = frame_shape, config, fps

    def detect(self, frame):
        # The frame's first pixel says which clip frame it is (200 + i);
        # frames 200 and 212 "calibrate". Each call is logged.
        v = int(frame[0, 0])
        with open(os.environ["FRIGATE_STANDIN_LOG"], "a") as log:
            log.write(f"{v}\\n")
        self.calibrating = v in (200, 212)
        return [(v - 200, 2, v - 190, 7)]

    def is_calibrating(self):
        return self.calibrating
'''

failures = []


def check(name, got, want):
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {got!r} (want {want!r})")
    if not ok:
        failures.append(name)


with tempfile.TemporaryDirectory() as tmp:
    motion = os.path.join(tmp, "frigate-src", "frigate", "motion")
    os.makedirs(motion)
    with open(os.path.join(motion, "improved_motion.py"), "w") as f:
        f.write(DETECTOR)
    clip_dir = os.path.join(tmp, "clip")
    for sub in ("input", "groundtruth"):
        os.makedirs(os.path.join(clip_dir, sub))
    n = 20
    for i in range(n):
        img = np.zeros((24, 32, 3), np.uint8)
        img[0, 0] = 200 + i
        cv2.imwrite(os.path.join(clip_dir, "input", f"in{i + 1:06d}.png"), img)
        cv2.imwrite(os.path.join(clip_dir, "groundtruth", f"gt{i + 1:06d}.png"),
                    np.zeros((24, 32), np.uint8))
    with open(os.path.join(clip_dir, "temporalROI.txt"), "w") as f:
        f.write(f"1 {n}\n")

    log = os.path.join(tmp, "calls.txt")
    os.environ["FRIGATE_STANDIN_LOG"] = log
    clip = SV.Clip(clip_dir, 0)
    masks, boxes, secs, period = SV.run_frigate(clip, 30.0, os.path.join(tmp, "frigate-src"), 5.0)
    with open(log) as f:
        calls = [int(v) for v in f.read().split()]
    check("stand-in modules gone", [m for m in sys.modules if m.startswith("frigate")], [])
    check("period (30 fps, detect at 5)", period, 6)
    check("warm-up: the first frame 600 times", calls[:600] == [200] * 600, True)
    check("then every 6th frame", calls[600:], [200 + i for i in range(0, n, 6)])
    check("frames with boxes", [i for i, b in enumerate(boxes) if b],
          [i for i in range(n) if i // 6 * 6 not in (0, 12)])
    check("frame 7's box (evaluated at 6, held)", boxes[7], [(6, 2, 10, 5)])
    check("frame 19's box", boxes[19], [(18, 2, 10, 5)])
    check("frame 7's mask pixels", int(masks[7].sum()), 50)
    check("frames", len(boxes), n)

if failures:
    print(f"{len(failures)} check(s) failed: {', '.join(failures)}")
    sys.exit(1)
print("all checks passed")
