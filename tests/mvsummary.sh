#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# README's `build/tools/mvsummary 'PIPELINE'`: the description as one
# argument works as well as its words (gst-launch-1.0's form), and a bad
# description exits with 2.
# Usage: mvsummary.sh MVSUMMARY
set -uo pipefail
mvsummary="$1"
fail() { echo "FAIL: $*"; exit 1; }
pipeline='videotestsrc num-buffers=4 pattern=ball ! video/x-raw,width=64,height=48 ! blockmatchme backend=cpu ! identity name=probe ! fakesink'

out=$("$mvsummary" "$pipeline" 2>&1) || fail "one argument: exit $?: $out"
echo "$out"
echo "$out" | grep -q "frames" || fail "one argument: no summary"

# shellcheck disable=SC2086  # the words, on purpose
out=$("$mvsummary" $pipeline 2>&1) || fail "separate words: exit $?: $out"
echo "$out" | grep -q "frames" || fail "separate words: no summary"

"$mvsummary" 'videotestsrc ! ! fakesink' >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || fail "a bad description exits with $rc, not 2"
echo "OK"
