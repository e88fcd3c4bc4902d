#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# README's launch lines work as written: every indented `gst-launch-1.0`
# block (with its continuation lines and a `D=...` line just before it) runs
# from the source root to EOS, with autovideosink replaced by
# `fakesink sync=false` and /tmp/ by a scratch folder. A block is skipped
# (and said so) when a file it reads is missing (the shared data, a user's
# clip.mp4) or an element it names is not registered (nvh264dec without a
# GPU). Then the .flo example's output is checked: 8 or 9 files.
# Usage: readme.sh SOURCE_ROOT
set -uo pipefail
root="$1"
cd "$root" || exit 1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail=0

# One block per line, continuations joined, "D=..." prefixes kept.
blocks=$(awk '
  /^    D=/ { pre = substr($0, 5) "; "; next }
  /^    gst-launch-1.0/ || cont {
    line = substr($0, 5); cont = (line ~ /\\$/); sub(/\\$/, "", line)
    cmd = cmd line
    if (!cont) { print pre cmd; cmd = ""; pre = "" }
    next
  }
  { pre = "" }' README.md)

n=0
while IFS= read -r block; do
  n=$((n + 1))
  cmd=${block//autovideosink/fakesink sync=false}
  cmd=${cmd//\/tmp\//$scratch/}
  # Files it reads and elements it names (D=... expanded first).
  eval "$(echo "$cmd" | sed -n 's/^\(D=[^;]*\);.*/\1/p')"
  skip=""
  for f in $(echo "$cmd" | grep -o 'filesrc location=[^ ]*' | sed 's/filesrc location=//'); do
    f=$(eval echo "$f")
    if [ ! -e "$f" ]; then
      skip="missing $f"
    elif [[ "$cmd" == *decodebin* ]] && \
        ! timeout 60 gst-launch-1.0 -q filesrc location="$f" ! decodebin ! videoconvert ! \
          fakesink >/dev/null 2>&1; then
      skip="no decoder for $f"   # a GPU host's minimal GStreamer runtime
    fi
  done
  for el in $(echo "$cmd" | sed 's/^.*gst-launch-1.0//' | tr '!' '\n' | awk '{print $1}' | grep -E '^[a-z0-9]+$' | sort -u); do
    gst-inspect-1.0 "$el" >/dev/null 2>&1 || skip="${skip:+$skip, }no element $el"
  done
  if [ -n "$skip" ]; then
    echo "SKIP block $n ($skip): $block"
    continue
  fi
  [[ "$cmd" == *format=flo* ]] && flo_ran=1
  echo "RUN  block $n: $cmd"
  if ! out=$(eval "timeout 300 $cmd" 2>&1); then
    echo "$out" | tail -20
    echo "FAIL block $n"
    fail=1
  fi
done <<< "$blocks"

[ "$n" -ge 6 ] || { echo "FAIL: only $n blocks found in README.md"; fail=1; }
if [ -n "${flo_ran:-}" ]; then
  flo=$(ls "$scratch"/flow-*.flo 2>/dev/null | wc -l)
  # identity eos-after=10: the tenth frame may or may not pass before EOS.
  [ "$flo" -ge 8 ] && [ "$flo" -le 9 ] || { echo "FAIL: the .flo example wrote $flo files, README says at most 9"; fail=1; }
fi
[ "$fail" = 0 ] && echo OK
exit "$fail"
