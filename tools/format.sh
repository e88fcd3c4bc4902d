#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Formats the tracked sources, or checks them (--check: lists what is not
# formatted, exit status 1 then; 77 when the tools are missing):
#   C++ (.cpp .cc .h .cu .cuh): clang-format 14 (Debian 12's) with the
#     nearest .clang-format: Google style for kernels/, bench/, tools/ and
#     tests/, the GStreamer look for gst/ and tests/check/;
#   C (.c, and the public C headers of gst/motionvectors/): GStreamer's
#     gst-indent (GNU indent with its options, run twice as gst-indent
#     does, since one pass is not stable).
# tools/install-deps.sh installs both; the `format` test runs --check.
set -uo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1

if ! command -v clang-format >/dev/null || ! command -v indent >/dev/null; then
  echo "format: clang-format or indent missing (tools/install-deps.sh)"
  exit 77
fi
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "format: clang-format $major here; the tree is formatted by 14 (Debian 12)"
  exit 77
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "format: not a git checkout"
  exit 77
fi

c_headers='^gst/motionvectors/.*\.h$'
mapfile -t cxx < <(git ls-files '*.cpp' '*.cc' '*.h' '*.cu' '*.cuh' | grep -Ev "$c_headers")
mapfile -t c < <( (git ls-files '*.c'; git ls-files 'gst/motionvectors/*.h') | sort -u)

gst_indent() {
  indent --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
    --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
    --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
    --tab-size8 --indent-level2 --leave-preprocessor-space "$1" -o "$2" 2>/dev/null &&
    indent --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
      --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
      --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
      --tab-size8 --indent-level2 --leave-preprocessor-space "$2" -o "$2" 2>/dev/null
}

bad=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [ $check = 1 ]; then
  for f in "${cxx[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || { echo "not formatted: $f"; bad=1; }
  done
  for f in "${c[@]}"; do
    gst_indent "$f" "$tmp" && cmp -s "$f" "$tmp" || { echo "not formatted: $f"; bad=1; }
  done
  [ $bad = 0 ] && echo "format: ${#cxx[@]} C++ and ${#c[@]} C files formatted"
  exit $bad
fi
clang-format -i "${cxx[@]}"
for f in "${c[@]}"; do
  gst_indent "$f" "$tmp" && cp "$tmp" "$f"
done
