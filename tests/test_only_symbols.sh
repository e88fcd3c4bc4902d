#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The plugin holds no test-only code: the host emulations of the CUDA
# kernels and the other helpers of kernels/testing are built into the
# match_testing library, which only the tests link (tests/kernels/
# meson.build). Fails if the plugin's shared object defines any of their
# symbols (nm reads the full symbol table, hidden and local symbols
# included, so a test-only function that is merely unexported still
# shows).
# Usage: test_only_symbols.sh PLUGIN.so
set -euo pipefail
plugin="$1"
command -v nm > /dev/null || { echo "SKIP: no nm"; exit 77; }

syms=$(nm -C --defined-only "$plugin")
if [ -z "$syms" ]; then
  echo "FAIL: no symbols in $plugin (stripped?): nothing to check"
  exit 1
fi
# emulate_*: every host emulation (POC, stereo, disparity output);
# host_stereo_inputs / HostStereoInputs: the stereo emulation's inputs;
# EmuExec, device_poc_finish, poc_integral, poc_table_window_sum: the POC
# emulation's executor and its device/host test entry points.
pattern='emulate_|host_stereo_inputs|HostStereoInputs|EmuExec|device_poc_finish|poc_integral\(|poc_table_window_sum'
found=$(echo "$syms" | grep -E "$pattern" || true)
if [ -n "$found" ]; then
  echo "FAIL: test-only symbols in $plugin:"
  echo "$found"
  exit 1
fi
echo "OK: no test-only symbol among $(echo "$syms" | wc -l) symbols of $plugin"
