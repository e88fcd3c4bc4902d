#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# python_example.sh MVDUMP EXAMPLE [CLIP]: runs docs/examples/mv_numpy.py
# against the build tree (GI_TYPELIB_PATH, LD_LIBRARY_PATH and
# GST_PLUGIN_PATH_1_0 set by tests/meson.build) on videotestsrc and, where a
# Theora decoder is present, on CLIP, and checks that the field it read
# into numpy through the GstMotionVectors typelib equals what tests/mvdump.c
# reads through the C API from the same pipeline: every vector of every
# frame, and the per-frame moving-block counts the example printed. Also
# checks that the example saw moving blocks, "motion" regions and a
# motion-start event, and that it reports a missing clip with GStreamer's
# error and rejects --frames 0. Exit 77 (skip) only without PyGObject or
# numpy.
set -euo pipefail

mvdump=$1
example=$2
clip=${3:-}

# $PYTHON when set, else the first python3 that has both (a python3 of
# pyenv or a venv on PATH may lack Debian's python3-gi).
py=""
candidates=(python3 /usr/bin/python3)
if [ -n "${PYTHON:-}" ]; then candidates=("$PYTHON"); fi
for cand in "${candidates[@]}"; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c 'import gi, numpy' 2>/dev/null; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with PyGObject (python3-gi) and numpy (python3-numpy)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run_case LABEL FRAMES [CLIP]
run_case() {
  local label=$1 frames=$2
  shift 2
  local out=$tmp/$label.out pydump=$tmp/$label.py.txt cdump=$tmp/$label.c.txt
  echo "== $label: $py $example --frames $frames $*"
  if ! "$py" "$example" --frames "$frames" --dump "$pydump" "$@" >"$out"; then
    echo "FAIL $label: the example failed"
    cat "$out"
    fail=1
    return
  fi
  head -n 4 "$out"
  local desc
  desc=$(sed -n 's/^pipeline: //p' "$out")
  "$mvdump" "$desc" "$frames" "$cdump"

  local n
  n=$(grep -c '^# pts=' "$cdump" || true)
  if [ "$n" != "$frames" ]; then
    echo "FAIL $label: mvdump saw $n frames, expected $frames"
    fail=1
  fi
  # The whole field, vector by vector: numpy (typelib) vs C.
  if ! cmp -s "$pydump" "$cdump"; then
    echo "FAIL $label: the numpy field differs from the C API's"
    diff "$pydump" "$cdump" | head -n 20 || true
    fail=1
  fi
  # The counts the example printed (numpy) vs those mvdump counted (C).
  sed -n 's/^frame [0-9]* [^ ]*: \([0-9]*\) of .*/\1/p' "$out" >"$tmp/$label.py.moving"
  sed -n 's/^# pts=.* moving=\([0-9]*\)$/\1/p' "$cdump" >"$tmp/$label.c.moving"
  if ! cmp -s "$tmp/$label.py.moving" "$tmp/$label.c.moving"; then
    echo "FAIL $label: printed moving-block counts differ from the C API's"
    paste "$tmp/$label.py.moving" "$tmp/$label.c.moving" | head -n 20
    fail=1
  fi
  if grep -q MISMATCH "$out"; then
    echo "FAIL $label: get_vector_values disagrees with the array"
    grep MISMATCH "$out" | head -n 5
    fail=1
  fi
  # Not a vacuous comparison: something moved, was grouped and signalled.
  if ! grep -qv '^0$' "$tmp/$label.c.moving"; then
    echo "FAIL $label: no frame with moving blocks"
    fail=1
  fi
  if ! grep -q 'motion regions, largest' "$out"; then
    echo "FAIL $label: no \"motion\" region read from the buffers"
    fail=1
  fi
  if ! grep -q '^event motion-start' "$out"; then
    echo "FAIL $label: no motion-start event read from the bus"
    fail=1
  fi
  echo "$label: $n frames, $(wc -l <"$pydump") lines, numpy == C"
}

# Errors (issue 33): a missing clip prints GStreamer's error (filesrc's,
# which names the file) and exits non-zero; --frames below 1 is a usage
# error (argparse: exit 2), not a run of 0 frames or of all of them.
missing=$tmp/no-such-clip.ogv
rc=0
timeout 60 "$py" "$example" "$missing" >"$tmp/missing.out" \
  2>"$tmp/missing.err" || rc=$?
if [ "$rc" = 0 ] || ! grep -q '^error: ' "$tmp/missing.err" ||
  ! grep -q 'no-such-clip\.ogv' "$tmp/missing.err"; then
  echo "FAIL missing clip: exit $rc, expected non-zero and GStreamer's error"
  cat "$tmp/missing.err"
  fail=1
else
  echo "missing clip: exit $rc, $(head -n 1 "$tmp/missing.err")"
fi
for n in 0 -1; do
  rc=0
  timeout 60 "$py" "$example" --frames "$n" >"$tmp/frames.out" \
    2>"$tmp/frames.err" || rc=$?
  if [ "$rc" != 2 ] || ! grep -q 'argument --frames' "$tmp/frames.err"; then
    echo "FAIL --frames $n: exit $rc, expected a usage error (exit 2)"
    tail -n 3 "$tmp/frames.out" "$tmp/frames.err"
    fail=1
  else
    echo "--frames $n: $(tail -n 1 "$tmp/frames.err")"
  fi
done

run_case videotestsrc 30

if [ -n "$clip" ]; then
  if gst-inspect-1.0 oggdemux >/dev/null 2>&1 &&
    { gst-inspect-1.0 theoradec >/dev/null 2>&1 ||
      gst-inspect-1.0 avdec_theora >/dev/null 2>&1; }; then
    run_case clip 20 "$clip"
  else
    echo "clip: no Ogg/Theora decoder here, only videotestsrc checked"
  fi
fi

exit $fail
