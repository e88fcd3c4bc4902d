#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Checks the Debian packages that tools/build-debs.sh made on a fresh
# Debian 12 (bookworm) chroot, with no build tree and no environment
# variables (as root; needs debootstrap and network access to Debian's
# mirror):
#   1. debootstrap a minimal bookworm (kept as CHROOTS/bookworm-base and
#      copied afresh for each run), install the programs the checks use
#      (gstreamer1.0-tools, gstreamer1.0-plugins-base, python3-gi,
#      python3-numpy) and list its files;
#   2. `apt install ./*.deb` (all but the -dbgsym ones);
#   3. `gst-inspect-1.0 blockmatchme` (and mvmqttsink, h264mvdec) find the installed
#      plugins; README's first pipeline runs to EOS (autovideosink replaced
#      by fakesink: a chroot has no display) on data/vtest-pedestrians.ogv;
#      `python3 docs/examples/mv_numpy.py` runs on the installed typelib;
#   4. `apt remove` takes every file of the packages away and leaves no
#      package state: the packages are installed a second time on top of
#      their dependencies (already there from 2) and removed, and the
#      chroot's files (package state, caches and logs aside) and package
#      list must be as just before that install; `apt autoremove` then
#      removes the dependencies they pulled in (reported).
# Usage: tools/check-debs-chroot.sh [DEBDIR]   (default: debs/)
# CHROOTS (default /work/chroots, outside the repository) holds the chroots;
# MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
debdir=$(realpath "${1:-debs}")
chroots=${CHROOTS:-/work/chroots}
mirror=${MIRROR:-http://deb.debian.org/debian}
base=$chroots/bookworm-base
root=$chroots/bookworm-debs-check

[ "$(id -u)" = 0 ] || { echo "check-debs-chroot: run as root (debootstrap, chroot)"; exit 1; }
mapfile -t debs < <(find "$debdir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' | sort)
[ ${#debs[@]} -gt 0 ] || { echo "check-debs-chroot: no .deb in $debdir (tools/build-debs.sh)"; exit 1; }
# shellcheck source=tools/chroot-lib.sh
source "$(dirname "$0")/chroot-lib.sh"
fresh_chroot bookworm "$base" "$root" "$mirror"

# Runs a command in the chroot with a clean environment (no GST_*,
# GI_TYPELIB_PATH or LD_LIBRARY_PATH).
in_root() {
  env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"
}
# The files of the chroot, without package state, caches, logs and
# per-user caches (GStreamer's registry cache is written at first use).
snapshot() {
  in_root find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run \
    -o -path /tmp -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
    -o -path /var/log -o -path /root/.cache -o -path /etc/ld.so.cache \) -prune \
    -o -print | sort
}

fail=0
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends \
  gstreamer1.0-tools gstreamer1.0-plugins-base python3-gi python3-numpy >/dev/null
pkgs_start=$(in_root dpkg-query -W -f='${Package}\n' | sort)

mkdir -p "$root/tmp/debs" "$root/tmp/src/docs/examples" "$root/tmp/src/data"
cp "${debs[@]}" "$root/tmp/debs/"
cp "$src/docs/examples/mv_numpy.py" "$root/tmp/src/docs/examples/"
cp "$src/data/vtest-pedestrians.ogv" "$root/tmp/src/data/"
names=()
for d in "${debs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
echo "== apt install ./*.deb (${names[*]})"
in_root sh -c 'cd /tmp/debs && apt-get install -y -q --no-install-recommends ./*.deb' | tail -n 3
added=$(comm -13 <(echo "$pkgs_start") <(in_root dpkg-query -W -f='${Package}\n' | sort) | wc -l)
echo "($added packages installed, with the dependencies)"

echo "== gst-inspect-1.0 blockmatchme"
if out=$(in_root gst-inspect-1.0 blockmatchme 2>&1); then
  echo "$out" | grep -E '^  (Filename|Version|Long-name)' || true
  # /lib is /usr/lib on a merged-/usr system: dpkg -S names the owner.
  file=$(echo "$out" | sed -n 's/^ *Filename *//p')
  owner=$(in_root dpkg -S "/usr${file#/usr}" 2>/dev/null | cut -d: -f1)
  if [ "$owner" = gstreamer1.0-motion ]; then
    echo "ok: the plugin of package $owner"
  else
    echo "FAIL: $file is not gstreamer1.0-motion's (dpkg -S: '$owner')"
    fail=1
  fi
else
  echo "$out" | tail -n 5
  echo "FAIL: gst-inspect-1.0 blockmatchme"
  fail=1
fi
for pkg_element in gstreamer1.0-motion-mqtt:mvmqttsink gstreamer1.0-motion-kafka:mvkafkasink gstreamer1.0-motion-nats:mvnatssink gstreamer1.0-motion-codec:h264mvdec; do
  pkg=${pkg_element%%:*} element=${pkg_element#*:}
  [[ " ${names[*]} " == *" $pkg "* ]] || continue
  if in_root gst-inspect-1.0 "$element" >/dev/null 2>&1; then
    echo "ok: gst-inspect-1.0 $element"
  else
    echo "FAIL: gst-inspect-1.0 $element"
    fail=1
  fi
done

# README's first gst-launch-1.0 block, continuation lines joined.
pipeline=$(awk '/^    gst-launch-1.0/ || cont { line = substr($0, 5); cont = (line ~ /\\$/);
  sub(/\\$/, "", line); cmd = cmd line; if (!cont) { print cmd; exit } }' README.md)
pipeline=${pipeline//autovideosink/fakesink}
echo "== README's first pipeline: $pipeline"
start=$(date +%s)
if out=$(in_root sh -c "cd /tmp/src && timeout 300 $pipeline" 2>&1); then
  echo "$out" | grep -E 'EOS|Execution ended' | tail -n 2
  echo "ok: ran to EOS in $(($(date +%s) - start)) s"
else
  echo "$out" | tail -n 10
  echo "FAIL: README's first pipeline"
  fail=1
fi

echo "== python3 docs/examples/mv_numpy.py"
if out=$(in_root sh -c 'cd /tmp/src && python3 docs/examples/mv_numpy.py' 2>&1); then
  echo "$out" | head -n 3
  echo "$out" | tail -n 2
  echo "$out" | grep -q 'blocks moving' || { echo "FAIL: no frame line"; fail=1; }
else
  echo "$out" | tail -n 10
  echo "FAIL: mv_numpy.py"
  fail=1
fi

echo "== apt remove ${names[*]}"
in_root apt-get remove -y -q "${names[@]}" | tail -n 1
# Installed again on top of their dependencies, then removed: the
# packages alone must leave nothing.
snapshot >"$chroots/bookworm-before.txt"
pkgs_before=$(in_root dpkg-query -W -f='${Package}\n' | sort)
in_root sh -c 'cd /tmp/debs && apt-get install -y -q --no-install-recommends ./*.deb' | tail -n 1
owned=$(for n in "${names[@]}"; do in_root dpkg -L "$n"; done | sort -u)
in_root apt-get remove -y -q "${names[@]}" | tail -n 1
snapshot >"$chroots/bookworm-after.txt"
pkgs_after=$(in_root dpkg-query -W -f='${Package}\n' | sort)
left=$(diff "$chroots/bookworm-before.txt" "$chroots/bookworm-after.txt" || true)
if [ -n "$left" ]; then
  echo "FAIL: the file system differs after apt remove:"
  echo "$left" | head -n 40
  fail=1
else
  echo "ok: after apt remove the chroot's files are as before the install ($(wc -l <"$chroots/bookworm-before.txt") paths)"
fi
still=0
while IFS= read -r f; do
  if [ ! -d "$root$f" ] && { [ -e "$root$f" ] || [ -L "$root$f" ]; }; then
    echo "FAIL: left behind: $f"
    still=1
  fi
done <<<"$owned"
[ "$still" = 0 ] && echo "ok: none of the packages' $(echo "$owned" | wc -l) paths is left" || fail=1
if [ "$pkgs_before" != "$pkgs_after" ]; then
  echo "FAIL: packages differ after apt remove:"
  diff <(echo "$pkgs_before") <(echo "$pkgs_after") || true
  fail=1
fi
state=$(in_root dpkg -l "${names[@]}" 2>/dev/null | awk '/^[a-z][a-z] / && $1 != "un"' || true)
if [ -n "$state" ]; then
  echo "FAIL: dpkg still has state (e.g. conffiles):"
  echo "$state"
  fail=1
else
  echo "ok: dpkg keeps no state of the packages (no rc, no conffiles)"
fi
in_root apt-get autoremove -y -q | tail -n 1
kept=$(comm -13 <(echo "$pkgs_start") <(in_root dpkg-query -W -f='${Package}\n' | sort) | tr '\n' ' ')
echo "note: apt autoremove kept, of the dependencies: ${kept:-none} (apt keeps what an installed package depends on or recommends)"
rm -rf "$root/tmp/debs" "$root/tmp/src"
[ "$fail" = 0 ] && echo "check-debs-chroot: PASS" || echo "check-debs-chroot: FAIL"
exit "$fail"
