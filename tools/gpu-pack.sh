#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Packs what a GPU host without GStreamer or a compiler needs from a
# finished build (BUILDDIR, default build, inside this checkout; configure
# it with -Dcuda-arch=sm_90 for an H100/H200) into .gpu/: payload.tar.xz
# (the test programs, benchmarks, plugin and meson's test data, about
# 10 MB), payload.build (the build folder's name) and frames/ (the first 4
# frames of each bench clip). On the GPU host, with .gpu/ and the tree at
# the same absolute path:
#
#   bash tools/gpu-pack.sh build          # here
#   bash tools/gpu-validate.sh build      # there (unpacks the payload)
#
# .gpu/ is git-ignored. Besides, it must hold a GStreamer runtime for the
# host: .gpu/rt/ (Debian packages of GStreamer 1.22 and its plugins, meson,
# and libmosquitto1 for the MQTT sink's tests) and .gpu/gpu-env.sh, which
# `source .gpu/gpu-env.sh .gpu/rt BUILDDIR` makes put them on the paths
# (docs/cuda.md, "Validating on a GPU host").
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || { echo "gpu-pack.sh: $build is not a meson build folder" >&2; exit 1; }
[ -f .gpu/gpu-env.sh ] && [ -d .gpu/rt ] || \
  echo "gpu-pack.sh: warning: .gpu/gpu-env.sh or .gpu/rt missing (see the header)" >&2
ninja -C "$build" > /dev/null
mkdir -p .gpu
# Test programs, benchmarks, the plugin and meson's test/introspection data;
# registries and static libraries stay behind.
tar --exclude='*.registry' --exclude='*.p' -cf - \
    "$build/meson-info" "$build/meson-private" "$build/tests" "$build/bench" \
    "$build/gst" "$build/tools" \
  | xz -T0 -6 > .gpu/payload.tar.xz
echo "$build" > .gpu/payload.build
# The benchmarks' real frames (bench/prepare-frames.sh here; the GPU host has
# neither the video nor a decoder): the first 4 frames of each clip.
frames=${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}
[ -f "$frames/vtest_1280x720.gray" ] || bash bench/prepare-frames.sh "$frames" > /dev/null || true
mkdir -p .gpu/frames
for f in "$frames"/vtest_*x*.gray; do
  [ -f "$f" ] || continue
  wh=${f##*/vtest_}; wh=${wh%.gray}
  head -c $(( ${wh%x*} * ${wh#*x} * 4 )) "$f" > ".gpu/frames/${f##*/}"
done
du -sh .gpu
ls -la .gpu/payload.tar.xz
