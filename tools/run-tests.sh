#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds, and runs the whole test suite.
# Ends with a line "N passed, N failed[, N skipped]". Exit status 0 only
# when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/install-deps.sh || exit 1
bash tools/build.sh || exit 1

meson test -C build --print-errorlogs --num-processes 2 "$@" | tee build/test-summary.txt
rc=${PIPESTATUS[0]}

ok=$(grep -E '^Ok:' build/test-summary.txt | awk '{print $2}')
xfail=$(grep -E '^Expected Fail:' build/test-summary.txt | awk '{print $3}')
fail=$(grep -E '^Fail:' build/test-summary.txt | awk '{print $2}')
xpass=$(grep -E '^Unexpected Pass:' build/test-summary.txt | awk '{print $3}')
timeout=$(grep -E '^Timeout:' build/test-summary.txt | awk '{print $2}')
skipped=$(grep -E '^Skipped:' build/test-summary.txt | awk '{print $2}')
passed=$(( ${ok:-0} + ${xfail:-0} ))
failed=$(( ${fail:-0} + ${xpass:-0} + ${timeout:-0} ))
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "${passed} passed, ${failed} failed, ${skipped:-0} skipped"
[ "$failed" = 0 ]
