#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# The scoring of bench/surveillance.py (bench/survscore.py) on a tiny
# CDnet-format clip made by tests/survscore_test.py, against hand-counted
# answers. Needs only numpy: no GStreamer run, no OpenCV, no shared data.
# Skips (77) without a python3 that has numpy. With a second argument, runs
# that test script of tests/ instead (it may skip itself).
# Usage: survscore.sh SOURCE_ROOT [TEST]
set -uo pipefail
src="$1"
skip() { echo "SKIP: $*"; exit 77; }

py=""
for cand in "${MATCH_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$cand" ] || continue
  if "$cand" -c 'import numpy' >/dev/null 2>&1; then py="$cand"; break; fi
done
[ -n "$py" ] || skip "no python3 with numpy"
exec "$py" "$src/tests/${2:-survscore_test.py}" "$src"
