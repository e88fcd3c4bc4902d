#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# python_meta_fields.sh SCRIPT: runs tests/python_meta_fields.py with the
# first python3 that has PyGObject ($PYTHON when set; a python3 of pyenv or
# a venv on PATH may lack Debian's python3-gi). Exit 77 (skip) without one.
set -euo pipefail

script=$1
candidates=(python3 /usr/bin/python3)
if [ -n "${PYTHON:-}" ]; then candidates=("$PYTHON"); fi
for cand in "${candidates[@]}"; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c 'import gi' 2>/dev/null; then
    exec "$cand" "$script"
  fi
done
echo "SKIP: no python3 with PyGObject (python3-gi)"
exit 77
