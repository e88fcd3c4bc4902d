#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compares h264mvdec's / h264mvextract's field (block-size=8, dumped by
tests/mvdump) with FFmpeg's own doc/examples/extract_mvs output on the same
file (docs/codec-vectors.md, "Identical to FFmpeg's").

  codec_identity.py EXTRACT_MVS.csv MVDUMP.txt

extract_mvs (FFmpeg 5.1) prints per vector "framenum,source,blockw,blockh,
srcx,srcy,dstx,dsty,flags", frames numbered from 1 in display order; only
frames with vectors print. src - dst is motion / motion_scale truncated
towards zero (integer division in FFmpeg's add_mb). mvdump prints, per
frame with a meta, "# pts=P columns=C rows=R moving=M" then "dx dy cost
confidence flags" per 8x8 block. Frames are put in display order (by pts:
h264mvextract's come in decode order).

Checked, for every frame and every 8x8 block:
- a block that a list-0 (source -1) partition of extract_mvs covers has an
  estimate, and trunc(dx), trunc(dy) equal that partition's src - dst;
- a block no list-0 partition covers is NO_ESTIMATE (flag 2);
- the frame counts agree.
Prints the counts and exits 1 on any difference.
"""
import math
import sys
from collections import defaultdict


def read_ref(path):
    frames = defaultdict(list)
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 9 or not parts[0].strip().isdigit():
                continue
            n, src, w, h, sx, sy, dx, dy = (int(p) for p in parts[:8])
            frames[n].append((src, w, h, sx, sy, dx, dy))
    return frames


def read_dump(path):
    frames = []
    cur = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                kv = dict(p.split("=") for p in line[1:].split())
                cur = {"pts": int(kv["pts"]), "cols": int(kv["columns"]),
                       "rows": int(kv["rows"]), "v": []}
                frames.append(cur)
            elif cur is not None and line.strip():
                dx, dy, _c, _conf, fl = line.split()
                cur["v"].append((float(dx), float(dy), int(fl)))
    frames.sort(key=lambda fr: fr["pts"])
    return frames


def main():
    ref = read_ref(sys.argv[1])
    dump = read_dump(sys.argv[2])
    blocks = vectors = mismatched = frames_with = 0
    for i, fr in enumerate(dump):
        cols, rows = fr["cols"], fr["rows"]
        want = [None] * (cols * rows)
        for (src, w, h, sx, sy, dx, dy) in ref.get(i + 1, []):
            if src >= 0:
                continue
            vectors += 1
            for y in range(max(dy - h // 2, 0), dy - h // 2 + h, 8):
                for x in range(max(dx - w // 2, 0), dx - w // 2 + w, 8):
                    if x // 8 < cols and y // 8 < rows:
                        want[(y // 8) * cols + x // 8] = (sx - dx, sy - dy)
        if any(w is not None for w in want):
            frames_with += 1
        for k, (vdx, vdy, fl) in enumerate(fr["v"]):
            blocks += 1
            w = want[k]
            if w is None:
                ok = fl & 2
            else:
                ok = not (fl & 2) and (math.trunc(vdx), math.trunc(vdy)) == w
            if not ok:
                mismatched += 1
                if mismatched <= 5:
                    print("frame %d block %d: ours %s flags %d, FFmpeg %s"
                          % (i + 1, k, (vdx, vdy), fl, w))
    extra = [n for n in ref if n > len(dump)]
    print("frames %d (%d with vectors; FFmpeg frames beyond ours: %d), "
          "list-0 vectors %d, blocks %d, mismatched %d"
          % (len(dump), frames_with, len(extra), vectors, blocks, mismatched))
    return 1 if mismatched or extra else 0


if __name__ == "__main__":
    sys.exit(main())
