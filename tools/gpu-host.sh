# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Sourced (from the source root) by tools/gpu-validate.sh and
# tools/gpu-profile-poc.sh:  gpu_host_prepare BUILDDIR
#
# Makes BUILDDIR (an absolute path) usable on this host. When
# .gpu/payload.tar.xz (tools/gpu-pack.sh) was packed from BUILDDIR it is
# unpacked, once per payload. When the host has no gst-inspect-1.0 and
# .gpu/ holds a runtime bundle (gpu-env.sh and its packages in rt/), the
# bundle is sourced: `source .gpu/gpu-env.sh .gpu/rt BUILDDIR` must put
# GStreamer, its plugins and meson on the paths (docs/cuda.md, "Validating
# on a GPU host"). Returns 1 when BUILDDIR is not a meson build folder.

gpu_host_prepare() {
  local build=$1 want have
  if [ -f .gpu/payload.tar.xz ] && [ -f .gpu/payload.build ] &&
     [ "$(realpath -m "$(cat .gpu/payload.build)")" = "$build" ]; then
    if [ ! -e "$build/.gpu-payload" ] || [ .gpu/payload.tar.xz -nt "$build/.gpu-payload" ]; then
      tar -xJf .gpu/payload.tar.xz && touch "$build/.gpu-payload" || return 1
    fi
    mkdir -p "$build/meson-logs"
  fi
  if [ ! -d "$build/meson-info" ]; then
    echo "${0##*/}: $build is not a meson build folder" >&2
    return 1
  fi
  # The gst-inspect-1.0 that an earlier call on this host linked (below) is
  # the bundle's, not the host's: the bundle is sourced again (without it,
  # meson test ran the host's own meson, which rejects the build folder).
  if { ! command -v gst-inspect-1.0 > /dev/null || [ -e "$build/.gpu-inspect-link" ]; } &&
     [ -f .gpu/gpu-env.sh ] && [ -d .gpu/rt ]; then
    # shellcheck disable=SC1091
    source .gpu/gpu-env.sh .gpu/rt "$build"
    # meson test runs the gst-inspect-1.0 that was found at configure time.
    want=$(grep -o '"/[^"]*/gst-inspect-1.0"' "$build/meson-info/intro-tests.json" 2> /dev/null |
      head -1 | tr -d '"')
    have=$(command -v gst-inspect-1.0)
    if [ -n "$want" ] && [ ! -e "$want" ] && [ -n "$have" ]; then
      ln -s "$have" "$want" 2> /dev/null && touch "$build/.gpu-inspect-link"
    fi
  fi
  return 0
}
