#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# element_reference.sh SOURCE_ROOT BUILDDIR: the element reference
# (docs/elements.json, docs/elements.md) equals what this build's plugins
# and its GstMotionVectors-1.0.gir give (tools/element-reference.py
# --check); prints a unified diff when not. Exit 77 (skip) only without
# PyGObject.
set -euo pipefail

src=$1
builddir=$2

# $PYTHON when set, else the first python3 that has PyGObject (a python3
# of pyenv or a venv on PATH may lack Debian's python3-gi).
py=""
candidates=(python3 /usr/bin/python3)
if [ -n "${PYTHON:-}" ]; then candidates=("$PYTHON"); fi
for cand in "${candidates[@]}"; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with PyGObject and Gst 1.0 (python3-gi, gir1.2-gstreamer-1.0)"
  exit 77
fi
exec "$py" "$src/tools/element-reference.py" --check \
  --json "$src/docs/elements.json" --md "$src/docs/elements.md" "$builddir"
