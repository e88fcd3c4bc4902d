#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The plugin must load, and blockmatchme must work, on a machine without a
# GPU, NVIDIA driver or CUDA libraries; where a GPU is usable, backend=auto
# must pick it for blockmatchme, pocme and stereodisparity, and without one
# backend=cuda must fail at start.
# Usage: loading.sh PLUGIN.so
set -euo pipefail
plugin="$1"
fail() { echo "FAIL: $*"; exit 1; }

# 1. No CUDA library is a load-time dependency: the CUDA runtime is linked
#    statically and opens the driver (libcuda.so.1) only when first used.
deps=$(ldd "$plugin")
echo "$deps"
if echo "$deps" | grep -Eq 'libcudart|libcufft|libcuda\.so|libnvrtc'; then
  fail "the plugin links a CUDA library dynamically"
fi
if readelf -d "$plugin" | grep NEEDED | grep -v 'libgstcuda-1\.0' | grep -Eiq 'cuda|cufft'; then
  fail "a CUDA library is NEEDED"
fi
# Builds with CUDA memory (docs/cuda-memory.md) link GStreamer's CUDA
# library, which opens libcuda at run time as well (gstcudaloader).
if readelf -d "$plugin" | grep NEEDED | grep -q 'libgstcuda-1\.0'; then
  gstcuda=$(echo "$deps" | awk '/libgstcuda-1\.0/ {print $3}')
  if readelf -d "$gstcuda" | grep NEEDED | grep -Eiq 'libcuda|libcudart'; then
    fail "libgstcuda-1.0 links the CUDA driver"
  fi
  echo "links $gstcuda (opens libcuda at run time)"
fi

# 2. It registers and documents its elements.
gst-inspect-1.0 blockmatchme > /dev/null || fail "gst-inspect blockmatchme"

# 3. backend=auto runs, on CUDA when a device opens, else on the CPU; the
#    choice is logged by the match library's debug category.
log=$(GST_DEBUG=match:4,blockmatchme:4 gst-launch-1.0 -q \
  videotestsrc num-buffers=6 pattern=ball ! video/x-raw,width=160,height=120 ! \
  blockmatchme backend=auto ! fakesink 2>&1) || { echo "$log"; fail "pipeline with backend=auto"; }
if echo "$log" | grep -q 'CUDA block matcher'; then
  echo "backend=auto picked CUDA:"
  echo "$log" | grep 'CUDA block matcher' | head -1
  gpu=1
else
  echo "$log" | grep -E 'CPU block matcher|no CUDA device' | head -2
  echo "$log" | grep -q 'CPU block matcher' || { echo "$log" | tail -20; fail "no matcher was created"; }
  gpu=0
fi

# 4. Where nvidia-smi sees a GPU, CUDA must have been picked.
if command -v nvidia-smi > /dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  [ "$gpu" = 1 ] || fail "a GPU is present but backend=auto did not use it"
else
  # No GPU: backend=cuda must fail at start with a clear error.
  if out=$(gst-launch-1.0 -q videotestsrc num-buffers=2 ! blockmatchme backend=cuda ! \
           fakesink 2>&1); then
    fail "backend=cuda succeeded without a GPU"
  fi
  echo "$out" | grep -qi 'cuda' || { echo "$out"; fail "backend=cuda error does not mention CUDA"; }
  echo "backend=cuda without a GPU fails as it should:"
  echo "$out" | grep -i cuda | head -2
fi
# Elements built (meson options; all by default): MATCH_ELEMENTS.
built() { [[ " ${MATCH_ELEMENTS:-pocme stereodisparity} " == *" $1 "* ]]; }

# 5. pocme: CUDA needs a GPU and cuFFT, which is opened at run time (never
#    NEEDED, step 1). With a GPU, backend=auto must load it and run on it;
#    without one, backend=cuda must fail at start with a CUDA message.
if ! built pocme; then
  echo "pocme not built (-Dpocme=disabled)"
elif [ "$gpu" = 1 ]; then
  log=$(GST_DEBUG=match:4 gst-launch-1.0 -q videotestsrc num-buffers=4 pattern=ball ! \
        video/x-raw,width=160,height=120 ! pocme backend=auto ! fakesink 2>&1) \
    || { echo "$log" | tail -20; fail "pocme backend=auto with a GPU"; }
  echo "$log" | grep -q 'CUDA POC matcher' || { echo "$log" | tail -20; fail "pocme did not run on CUDA"; }
  echo "$log" | grep -E 'cuFFT .* loaded' | head -1
else
  if out=$(gst-launch-1.0 -q videotestsrc num-buffers=2 ! pocme backend=cuda ! \
           fakesink 2>&1); then
    fail "pocme backend=cuda succeeded without a GPU"
  fi
  echo "$out" | grep -qi 'cuda' || { echo "$out"; fail "pocme backend=cuda error does not mention CUDA"; }
fi
# 6. stereodisparity: the same (two views of one source).
sd() {
  local backend=${1:-cuda}
  gst-launch-1.0 -q videotestsrc num-buffers=3 pattern=ball ! \
    video/x-raw,width=160,height=120,format=GRAY8 ! tee name=t \
    t. ! queue ! s.sink_left t. ! queue ! s.sink_right \
    stereodisparity name=s backend=$backend num-disparities=16 ! fakesink
}
if ! built stereodisparity; then
  echo "stereodisparity not built (-Dstereodisparity=disabled)"
elif ! gst-inspect-1.0 stereodisparity > /dev/null; then
  fail "gst-inspect stereodisparity"
elif [ "$gpu" = 1 ]; then
  log=$(GST_DEBUG=match:4 sd auto 2>&1) || { echo "$log" | tail -20; fail "stereodisparity backend=auto with a GPU"; }
  echo "$log" | grep -q 'CUDA stereo matcher' || { echo "$log" | tail -20; fail "stereodisparity did not run on CUDA"; }
else
  if out=$(sd 2>&1); then
    fail "stereodisparity backend=cuda succeeded without a GPU"
  fi
  echo "$out" | grep -qi 'cuda' || { echo "$out"; fail "stereodisparity backend=cuda error does not mention CUDA"; }
fi
echo "PASS"
