#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what building, testing and the demo need on Debian 12 (as root,
# or through sudo). Does nothing for packages already present.
set -euo pipefail

packages=(
  build-essential pkg-config meson ninja-build
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-base-apps gstreamer1.0-libav
  libgtest-dev libomp-dev
  gobject-introspection libgirepository1.0-dev gir1.2-gst-plugins-base-1.0
  python3-gi python3-numpy
  libmosquitto-dev mosquitto
  librdkafka-dev libnats-dev nats-server
  libavcodec-dev libavutil-dev gstreamer1.0-plugins-bad
  libgstrtspserver-1.0-dev libxml2-dev libjson-glib-dev
  clang-format indent
)
# libavcodec-dev, libavutil-dev: the motioncodec plugin (h264mvdec,
# h264mvextract; meson option codec; GPL through Debian's libavcodec),
# whose test encodes its streams with the libx264 in Debian's libavcodec;
# gstreamer1.0-plugins-bad: h264parse, which that test puts upstream for
# stream-format=avc (the case skips without it).
# libgstrtspserver-1.0-dev: docs/examples/onvif-rtsp-server.c (video and
# its ONVIF metadata track from one RTSP URL) and the end-to-end case of
# elements_mvonvifmeta; libxml2-dev: that test validates every ONVIF
# document against ONVIF's schemas (tests/files/onvif); libjson-glib-dev:
# the motion elements' rules-file (zones and lines as JSON).
# clang-format (14), indent: tools/format.sh and its test `format` (the
# C++ and C layout is checked on every run of the suite).
# gstreamer1.0-libav: decodes the shared surveillance clip (vtest.avi,
# MS-MPEG4 v3) in elements_motionevents' end-to-end run.
# gstreamer1.0-plugins-base-apps: gst-play-1.0, which the demo suggests.
# gobject-introspection, libgirepository1.0-dev: g-ir-scanner and its
# pkg-config file, for the GstMotionVectors-1.0 typelib (-Dintrospection);
# gir1.2-gst-plugins-base-1.0 (with gir1.2-gstreamer-1.0), python3-gi and
# python3-numpy: docs/examples/mv_numpy.py and its test python_example.
# libmosquitto-dev: the mvmqttsink element (meson option mqtt); mosquitto:
# the broker elements_mvmqttsink starts on 127.0.0.1 (the test skips
# without it). Where systemd runs, Debian also starts a mosquitto service
# (localhost:1883 only); the test does not use it.
# librdkafka-dev, libnats-dev: the mvkafkasink and mvnatssink elements
# (meson options kafka, nats); elements_mvkafkasink runs librdkafka's own
# in-process mock cluster, so no Kafka broker is needed (Debian 12 has
# none); nats-server: the server elements_mvnatssink and bench_publish
# start on 127.0.0.1 with JetStream (the test skips without it).
# libgstreamer-plugins-bad1.0-dev: gstreamer-cuda-1.0, for CUDA memory
# (docs/cuda-memory.md), used only with the CUDA backend. It pulls in
# OpenCV's development packages (over 500 packages, minutes of install), so
# it is installed only where the CUDA backend can be built: where meson
# finds nvcc (on PATH or in /usr/local/cuda/bin). WITH_CUDA_MEMORY=1 or 0
# forces the choice.
if [ -z "${WITH_CUDA_MEMORY:-}" ]; then
  if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    WITH_CUDA_MEMORY=1
  else
    WITH_CUDA_MEMORY=0
  fi
fi
# On GStreamer >= 1.24 (Debian 13) the same package has the analytics
# library, for the regions' GstAnalytics entries (-Danalytics):
# WITH_ANALYTICS=1 installs it there whatever the CUDA choice
# (tools/check-trixie.sh does).
if [ "$WITH_CUDA_MEMORY" = 1 ] || [ "${WITH_ANALYTICS:-0}" = 1 ]; then
  packages+=(libgstreamer-plugins-bad1.0-dev)
fi
# FFmpeg is only needed by the benchmark's side-by-side comparison.
if [ "${WITH_FFMPEG:-0}" = 1 ]; then packages+=(ffmpeg); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
