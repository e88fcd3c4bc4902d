#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Builds this checkout's HEAD and runs its test suite on Debian 13 (trixie,
# GStreamer 1.26, GCC 14) in a chroot (as root; needs debootstrap and
# network access to Debian's mirror):
#   1. debootstrap a minimal trixie (kept as CHROOTS/trixie-base; each run
#      starts from a fresh copy of it, CHROOTS/trixie-check);
#   2. a clean clone of HEAD in the chroot's /src, then, inside the chroot,
#      tools/install-deps.sh (Debian's packages only: no CUDA toolkit, so
#      the build is the CPU one, as on CI; with gst-plugins-bad's headers,
#      so that the GstAnalytics entries are built and tested);
#   3. `meson setup build -Dcuda=disabled -Danalytics=enabled` and
#      `ninja -C build` with the whole log kept, and the number of compiler
#      warnings in it;
#   4. the suite as CI runs it (tools/run-tests.sh): its summary line.
# Logs go to OUTDIR (default: trixie-out/ in this checkout, git-ignored):
# setup.log, build.log, test.log and summary.txt.
# Usage: tools/check-trixie.sh [OUTDIR]
# CHROOTS (default /work/chroots), MIRROR (default
# http://deb.debian.org/debian), JOBS (ninja -j, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=$(realpath -m "${1:-trixie-out}")
chroots=${CHROOTS:-/work/chroots}
mirror=${MIRROR:-http://deb.debian.org/debian}
jobs=${JOBS:-2}
base=$chroots/trixie-base
root=$chroots/trixie-check

[ "$(id -u)" = 0 ] || { echo "check-trixie: run as root (debootstrap, chroot)"; exit 1; }
mkdir -p "$out"
# shellcheck source=tools/chroot-lib.sh
source "$(dirname "$0")/chroot-lib.sh"
fresh_chroot trixie "$base" "$root" "$mirror"
git clone -q --no-local "$src" "$root/src"
echo "check-trixie: $(git -C "$root/src" log -1 --format='%h %s' | cut -c1-72)"

in_root() {
  env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"
}
echo "== tools/install-deps.sh"
in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends git ca-certificates' \
  >"$out/setup.log" 2>&1
in_root sh -c 'cd /src && WITH_CUDA_MEMORY=0 WITH_ANALYTICS=1 bash tools/install-deps.sh' >>"$out/setup.log" 2>&1 ||
  { tail -n 20 "$out/setup.log"; exit 1; }
in_root dpkg-query -W -f='${Package} ${Version}\n' libgstreamer1.0-dev gcc g++ meson | tee -a "$out/setup.log"

echo "== meson setup build -Dcuda=disabled -Danalytics=enabled; ninja -C build -j$jobs"
rc=0
in_root sh -c "cd /src && meson setup build -Dcuda=disabled -Danalytics=enabled && ninja -C build -j$jobs" \
  >"$out/build.log" 2>&1 || rc=$?
warnings=$(grep -c -E '(^|[ :])warning:|WARNING:' "$out/build.log" || true)
grep -E '(^|[ :])warning:|WARNING:' "$out/build.log" | head -n 20 || true
echo "check-trixie: build exit $rc, $warnings warning lines in build.log"
[ "$rc" = 0 ] || { tail -n 30 "$out/build.log"; exit 1; }

echo "== tools/run-tests.sh"
rc=0
in_root sh -c 'cd /src && bash tools/run-tests.sh' >"$out/test.log" 2>&1 || rc=$?
grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|SKIP)' "$out/test.log" || true
summary=$(tail -n 1 "$out/test.log")
{
  echo "trixie: $(in_root dpkg-query -W -f='GStreamer ${Version}' libgstreamer1.0-0)"
  echo "build warnings: $warnings"
  echo "suite: $summary"
} | tee "$out/summary.txt"
exit "$rc"
