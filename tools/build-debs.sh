#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Builds the Debian packages (debian/) from a clean clone of this checkout's
# HEAD: installs the build dependencies with apt-get build-dep (as root, or
# through sudo), runs `dpkg-buildpackage -us -uc -b`, then lintian, and
# copies the .deb files (the -dbgsym ones to OUTDIR/dbgsym), the
# .buildinfo/.changes and the logs to OUTDIR (default: debs/ in this
# checkout), so that `apt install ./debs/*.deb` installs them. Usage:
#   tools/build-debs.sh [OUTDIR]
# Environment (passed on to debian/rules):
#   DEB_BUILD_OPTIONS=nocheck             skip the test suite in the build;
#   DEB_BUILD_PROFILES=pkg.gst-motion.nocuda  no CUDA backend even where
#                                         nvcc is found;
#   GST_MOTION_CUDA_ARCH=sm_90            CUDA for those GPUs only;
#   REF=<commit>                          build that commit, not HEAD.
# Also checks that the packages' files are exactly what `meson install`
# installs from the same build tree (besides /usr/share/doc).
# The CUDA backend is built when the CUDA Toolkit's nvcc is found (PATH or
# /usr/local/cuda/bin); the packages load without it either way.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=$(realpath -m "${1:-debs}")
ref=${REF:-HEAD}

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
need=()
for p in dpkg-dev debhelper lintian git; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

work=$(mktemp -d /tmp/gst-motion-debs.XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q --no-local "$src" "$work/gst-motion"
git -C "$work/gst-motion" checkout -q "$ref"
echo "build-debs: $(git -C "$work/gst-motion" log -1 --format='%h %s' | cut -c1-72)"

cd "$work/gst-motion"
profiles=()
if [ -n "${DEB_BUILD_PROFILES:-}" ]; then profiles=(-P "${DEB_BUILD_PROFILES// /,}"); fi
$SUDO apt-get build-dep -y -qq "${profiles[@]}" ./ >"$work/build-dep.log" 2>&1 ||
  { cat "$work/build-dep.log"; exit 1; }

mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
rc=0
dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1 || rc=$?
tail -n 25 "$out/build.log"
[ "$rc" = 0 ] || { echo "build-debs: dpkg-buildpackage failed (exit $rc), log in $out/build.log"; exit "$rc"; }

# The packages hold exactly what `meson install` installs (DESTDIR, the
# same build tree), plus each package's /usr/share/doc.
meson install -C obj-* --no-rebuild --destdir "$work/destdir" --quiet
(cd "$work/destdir" && find . ! -type d | sed 's|^\.||' | sort) >"$out/meson-install.txt"
cd "$work"
for deb in ./*.deb; do
  case $deb in *-dbgsym_*) continue ;; esac
  dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\.||' | grep -v '/$' |
    grep -v '^/usr/share/doc/' || true
done | sort >"$out/debs-files.txt"
if diff -u "$out/meson-install.txt" "$out/debs-files.txt"; then
  echo "build-debs: the packages hold the $(wc -l <"$out/meson-install.txt") files meson installs, and no other (besides /usr/share/doc)"
else
  echo "build-debs: FAIL: the packages and meson install differ (above: - meson only, + packages only)"
  exit 1
fi
mkdir -p "$out/dbgsym"
rm -f "$out"/dbgsym/*.deb
for deb in ./*.deb; do
  case $deb in
    *-dbgsym_*) cp "$deb" "$out/dbgsym/" ;;
    *) cp "$deb" "$out/" ;;
  esac
done
cp ./*.changes ./*.buildinfo "$out"/

# Compiler warnings in the build (gcc/g++ and nvcc "warning:" lines).
warnings=$(grep -c -E '(^|[ :])warning:' "$out/build.log" || true)
echo "build-debs: $warnings compiler warning lines in build.log"

lintian --display-info "$work"/*.changes >"$out/lintian.log" 2>&1 || true
cat "$out/lintian.log"
errors=$(grep -c '^E:' "$out/lintian.log" || true)
warns=$(grep -c '^W:' "$out/lintian.log" || true)
echo "build-debs: lintian: $errors errors, $warns warnings"
for deb in "$out"/*.deb; do
  printf '%s %s\n' "$(stat -c %s "$deb")" "$(basename "$deb")"
done
[ "$errors" = 0 ]
