#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Builds bench/libsgm_bench.cu against a libSGM given by path (libSGM is
# Apache-2.0 and not part of this repository) and runs it: libSGM's
# execute() timings on the cases of docs/stereodisparity.md's speed table, one
# fixed-format line per case (see bench/README.md).
#
# Usage: bench/libsgm-compare.sh LIBSGM_DIR [libsgm_bench options]
#   LIBSGM_DIR is either
#   - an install: LIBSGM_DIR/include/libsgm.h and LIBSGM_DIR/lib/libsgm.a
#     (cmake --install of libSGM built with -DCMAKE_CUDA_ARCHITECTURES=90);
#   - or a libSGM source tree (LIBSGM_DIR/src/*.cu): its sources are then
#     compiled into the driver directly (no cmake, no OpenCV; about a
#     minute on 16 cores), e.g. when the prebuilt library came from another
#     CUDA version than this host's nvcc.
# Environment: NVCC (default /usr/local/cuda/bin/nvcc, else nvcc on PATH),
# LIBSGM_ARCH (default sm_90), LIBSGM_BENCH_OUT (the binary, default
# ${TMPDIR:-/tmp}/libsgm_bench), LIBSGM_COMPILE_ONLY=1 (build, do not run).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '4,19p' "$0"; exit 2; }
dir="$1"
shift
here="$(cd "$(dirname "$0")" && pwd)"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
[ -x "$nvcc" ] || nvcc="$(command -v nvcc || true)"
[ -n "$nvcc" ] || { echo "libsgm-compare.sh: no nvcc (set NVCC)" >&2; exit 1; }
arch="${LIBSGM_ARCH:-sm_90}"
out="${LIBSGM_BENCH_OUT:-${TMPDIR:-/tmp}/libsgm_bench}"
flags=(-O3 -std=c++17 -arch="$arch")

if [ -f "$dir/include/libsgm.h" ] && [ -f "$dir/lib/libsgm.a" ]; then
  echo "# building $out against $dir/lib/libsgm.a ($("$nvcc" --version | tail -1))"
  "$nvcc" "${flags[@]}" -I"$dir/include" "$here/libsgm_bench.cu" "$dir/lib/libsgm.a" -o "$out"
elif compgen -G "$dir/src/*.cu" >/dev/null && [ -f "$dir/include/libsgm.h" ]; then
  inc="$(mktemp -d)"
  trap 'rm -rf "$inc"' EXIT
  if [ ! -f "$dir/include/libsgm_config.h" ]; then
    # What libSGM's CMake writes from include/libsgm_config.h.in for a
    # static library without the OpenCV wrapper.
    ver=$(sed -n 's/^project(libSGM VERSION \([0-9.]*\)).*/\1/p' "$dir/CMakeLists.txt")
    ver="${ver:-0.0.0}"
    IFS=. read -r ma mi pa <<<"$ver"
    printf '#ifndef __LIBSGM_CONFIG_H__\n#define __LIBSGM_CONFIG_H__\n#define LIBSGM_VERSION %s\n#define LIBSGM_VERSION_MAJOR %s\n#define LIBSGM_VERSION_MINOR %s\n#define LIBSGM_VERSION_PATCH %s\n#endif\n' \
      "$ver" "$ma" "$mi" "$pa" >"$inc/libsgm_config.h"
  fi
  echo "# building $out with libSGM's sources from $dir ($("$nvcc" --version | tail -1))"
  "$nvcc" "${flags[@]}" -I"$inc" -I"$dir/include" -I"$dir/src" -Xcompiler -pthread \
    "$here/libsgm_bench.cu" "$dir"/src/*.cu "$dir"/src/*.cpp -o "$out"
else
  echo "libsgm-compare.sh: $dir has neither include/libsgm.h + lib/libsgm.a nor src/*.cu" >&2
  exit 1
fi
[ "${LIBSGM_COMPILE_ONLY:-0}" = 1 ] && { echo "# built $out"; exit 0; }
exec "$out" "$@"
