#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/stereo_accuracy.py on a small subset (Middlebury tsukuba and KITTI
# 2012 000004, CPU backend), with bounds on the figures it writes to --json:
# our configurations must stay within their measured bad-pixel rates and
# densities (plus a small margin), and OpenCV's StereoSGBM MODE_HH within
# its own, which checks the data loading and the metrics themselves.
# A bound on a configuration the element does not take (an unknown property
# or value: "n/a" in the JSON), or whose map is bit-identical to another
# configuration's (a property accepted but not acted on, as method=sgm on an
# element whose backend only has block SAD), is a SKIP of that bound, never
# a pass; MATCH_STEREO_STRICT=1 makes such a skip fail.
# Skips (77) without the shared data or without numpy/python3-opencv.
# Usage: stereo_accuracy.sh SOURCE_ROOT BUILD_ROOT
set -uo pipefail
src="$1"
build="$2"
data="${MATCH_TEST_DATA:-$src/../shared/data}"
skip() { echo "SKIP: $*"; exit 77; }

for d in stereo/middlebury2001/tsukuba stereo/kitti2012/000004; do
  [ -d "$data/$d" ] || skip "no $data/$d"
done
py=""
for cand in "${MATCH_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$cand" ] || continue
  if "$cand" -c 'import cv2, numpy' >/dev/null 2>&1; then py="$cand"; break; fi
done
[ -n "$py" ] || skip "no python3 with numpy and cv2 (python3-opencv)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
"$py" "$src/bench/stereo_accuracy.py" --build "$build" --data "$data" \
  --scenes tsukuba,kitti-000004 --backend cpu \
  --configs block-sad,sgm-census-8-pixel,sgm-census-8-basic,sgm-census-4,sgm-census-8,sgm-census-ad-8,sgm-census-8-refined \
  --opencv hh \
  --json "$tmp/acc.json" 2> >(grep -v 'libpng warning' >&2)
rc=$?
echo "stereo_accuracy.py: exit $rc after $(( $(date +%s) - start )) s"
[ "$rc" = 0 ] || { echo "FAIL: stereo_accuracy.py exit $rc"; exit 1; }

MATCH_STEREO_JSON="$tmp/acc.json" "$py" - <<'EOF'
import json, os, sys

doc = json.load(open(os.environ["MATCH_STEREO_JSON"]))
strict = os.environ.get("MATCH_STEREO_STRICT") == "1"

# (configuration or OpenCV column, scene, metric, "<=" or ">=", bound).
# A bound is a number, or another column's name (the same scene and metric
# of that column: e.g. "cv-HH" for "at least as good as SGBM-HH").
# Measured 2026-11-25 on 2 cores, CPU backend, OpenCV 4.6:
#   block-sad tsukuba B1 nonocc 18.07, dens nonocc 89.60;
#             kitti-000004 D1 38.06, dens 71.35
#   cv-HH     tsukuba B1 nonocc 4.61, dens 98.90; kitti-000004 D1 13.74, dens 88.04
BOUNDS = [
    ("block-sad", "tsukuba", "B1 nonocc", "<=", 18.6),
    ("block-sad", "tsukuba", "B2 nonocc", "<=", 15.6),
    ("block-sad", "tsukuba", "dens nonocc", ">=", 89.0),
    ("block-sad", "kitti-000004", "D1", "<=", 38.6),
    ("block-sad", "kitti-000004", "dens", ">=", 70.8),
    # OpenCV, looser (another OpenCV version may move it a little): a
    # broken GT decode, mask or metric moves it far more.
    ("cv-HH", "tsukuba", "B1 nonocc", "<=", 6.0),
    ("cv-HH", "tsukuba", "dens nonocc", ">=", 97.0),
    ("cv-HH", "kitti-000004", "D1", "<=", 16.0),
    ("cv-HH", "kitti-000004", "dens", ">=", 85.0),
    # SGM with the element's defaults (sgm-census-8: cost window 3,
    # edge-aware P2 32, LR 1, 3x3 median, row fill, 7x7 joint median) and
    # with 4 paths, measured 2026-11-27 (CPU backend; CUDA gives the same
    # maps): tsukuba B1 nonocc 4.02, kitti-000004 D1 3.71, both at 100 %
    # density; 4 paths 4.03 / 3.77. At or below SGBM-HH on both.
    ("sgm-census-8", "tsukuba", "B1 nonocc", "<=", 4.3),
    ("sgm-census-8", "tsukuba", "B1 nonocc", "<=", "cv-HH"),
    ("sgm-census-8", "tsukuba", "dens nonocc", ">=", "cv-HH"),
    ("sgm-census-8", "kitti-000004", "D1", "<=", 4.0),
    ("sgm-census-8", "kitti-000004", "D1", "<=", "cv-HH"),
    ("sgm-census-8", "kitti-000004", "dens", ">=", "cv-HH"),
    ("sgm-census-4", "tsukuba", "B1 nonocc", "<=", 4.3),
    ("sgm-census-4", "kitti-000004", "D1", "<=", 4.1),
    # The earlier defaults (sgm-census-8-basic: no edge-aware P2,
    # LR 2, no fill or joint median): tsukuba 5.87 (dens 98.99),
    # kitti-000004 5.82 (dens 97.00); the refinements must keep beating
    # them. And the cost window against the per-pixel costs
    # (sgm-census-8-pixel, the defaults before that: tsukuba 5.98 (98.80),
    # kitti-000004 6.78 (95.92)): fewer bad pixels and more density on both.
    ("sgm-census-8-basic", "tsukuba", "B1 nonocc", "<=", 6.3),
    ("sgm-census-8-basic", "kitti-000004", "D1", "<=", 6.3),
    ("sgm-census-8", "tsukuba", "B1 nonocc", "<=", "sgm-census-8-basic"),
    ("sgm-census-8", "kitti-000004", "D1", "<=", "sgm-census-8-basic"),
    ("sgm-census-8-pixel", "tsukuba", "B1 nonocc", "<=", 6.5),
    ("sgm-census-8-pixel", "kitti-000004", "D1", "<=", 7.3),
    ("sgm-census-8-basic", "tsukuba", "B1 nonocc", "<=", "sgm-census-8-pixel"),
    ("sgm-census-8-basic", "tsukuba", "dens nonocc", ">=", "sgm-census-8-pixel"),
    ("sgm-census-8-basic", "kitti-000004", "D1", "<=", "sgm-census-8-pixel"),
    ("sgm-census-8-basic", "kitti-000004", "dens", ">=", "sgm-census-8-pixel"),
    # cost=census-ad with the defaults, measured 2026-11-27: tsukuba 3.62,
    # kitti-000004 D1 3.75 (both at 100 % density); below the census cost
    # on Tsukuba.
    ("sgm-census-ad-8", "tsukuba", "B1 nonocc", "<=", 3.9),
    ("sgm-census-ad-8", "tsukuba", "B1 nonocc", "<=", "sgm-census-8"),
    ("sgm-census-ad-8", "tsukuba", "dens nonocc", ">=", "cv-HH"),
    ("sgm-census-ad-8", "kitti-000004", "D1", "<=", 4.1),
    ("sgm-census-ad-8", "kitti-000004", "dens", ">=", "cv-HH"),
    # The defaults + speckle 100/2 (bench/README.md, Provenance),
    # measured 2026-11-27: tsukuba 4.14 (dens 100), kitti-000004 D1 3.34
    # (dens 100): below SGBM-HH on both.
    ("sgm-census-8-refined", "tsukuba", "B1 nonocc", "<=", 4.4),
    ("sgm-census-8-refined", "tsukuba", "B1 nonocc", "<=", "cv-HH"),
    ("sgm-census-8-refined", "tsukuba", "dens nonocc", ">=", "cv-HH"),
    ("sgm-census-8-refined", "kitti-000004", "D1", "<=", 3.7),
    ("sgm-census-8-refined", "kitti-000004", "D1", "<=", "cv-HH"),
    ("sgm-census-8-refined", "kitti-000004", "dens", ">=", "cv-HH"),
]

fails = skips = passes = 0
for col, scene, key, op, bound in BOUNDS:
    label = "%s %s %s %s %s" % (col, scene, key, op, bound)
    r = doc["scenes"].get(scene, {}).get(col)
    if r is None:
        print("FAIL %s: no such column or scene in the JSON" % label)
        fails += 1
        continue
    if r["status"] != "ok":
        print("SKIP %s: configuration n/a: %s" % (label, r.get("error", "")[:200]))
        skips += 1
        continue
    if r.get("same_output_as"):
        print("SKIP %s: the very same map as %s (the element ignored its settings?)"
              % (label, r["same_output_as"]))
        skips += 1
        continue
    if bound is None:
        print("TODO %s: no bound yet (measured %.2f)" % (label, r["metrics"][key]))
        continue
    if isinstance(bound, str):
        ref = doc["scenes"][scene].get(bound)
        if ref is None or ref["status"] != "ok":
            print("SKIP %s: reference column n/a" % label)
            skips += 1
            continue
        bound = ref["metrics"][key]
    v = r["metrics"][key]
    ok = v <= bound if op == "<=" else v >= bound
    print("%s %s: %.2f" % ("ok  " if ok else "FAIL", label, v))
    passes += ok
    fails += not ok
print("%d bounds passed, %d failed, %d skipped" % (passes, fails, skips))
sys.exit(1 if fails or (strict and skips) else 0)
EOF
rc=$?
echo "total $(( $(date +%s) - start )) s"
exit $rc
