#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# install.sh MESON BUILDDIR [EXAMPLE]: `meson install --no-rebuild` into a
# temporary DESTDIR (nothing is built), then checks what a user gets: the
# plugin in
# the plugin directory and loadable from there, the metadata library, its
# headers and .pc file (a program compiles and runs against them alone),
# the .gir and .typelib (importable from Python where PyGObject is, and
# EXAMPLE, docs/examples/mv_numpy.py, runs on them where numpy is), and
# that the default layout puts the plugin where Debian's GStreamer looks
# when the prefix is /usr. Paths come from tests/meson.build: PREFIX,
# LIBDIR, INCLUDEDIR, DATADIR, PLUGINDIR (absolute), PLUGINDIR_OPTION (the
# -Dplugindir value), HAVE_GIR (1/0).
set -euo pipefail

meson=$1
builddir=$2
example=${3:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
fail=0
check() { # check DESCRIPTION PATH
  if [ -e "$2" ]; then
    echo "ok: $1: ${2#"$dest"}"
  else
    echo "FAIL: $1 missing: ${2#"$dest"}"
    fail=1
  fi
}

abs() { # abs DIR: an option value made absolute under PREFIX
  case $1 in /*) echo "$1" ;; *) echo "$PREFIX/$1" ;; esac
}
libdir=$(abs "$LIBDIR")
incdir=$(abs "$INCLUDEDIR")
datadir=$(abs "$DATADIR")

# A copy of the build tree on a machine without meson (the GPU host runs
# the suite from a packed build) cannot install: skip there.
command -v "$meson" > /dev/null || { echo "SKIP: no $meson here"; exit 77; }
"$meson" install -C "$builddir" --no-rebuild --destdir "$dest" --quiet

check plugin "$dest$PLUGINDIR/libgstmotion.so"
check library "$dest$libdir/libgstmotionvectors-1.0.so.0"
check "library link" "$dest$libdir/libgstmotionvectors-1.0.so"
check header "$dest$incdir/gstreamer-1.0/gst/motionvectors/motionvectors.h"
check header "$dest$incdir/gstreamer-1.0/gst/motionvectors/motionvectors-prelude.h"
pc=$dest$libdir/pkgconfig/gstreamer-motionvectors-1.0.pc
check pkg-config "$pc"
if [ "$HAVE_GIR" = 1 ]; then
  check typelib "$dest$libdir/girepository-1.0/GstMotionVectors-1.0.typelib"
  check gir "$dest$datadir/gir-1.0/GstMotionVectors-1.0.gir"
fi
[ "$fail" = 0 ] || exit 1

export LD_LIBRARY_PATH=$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# A program built against the installed headers and .pc file only.
cat >"$tmp/prog.c" <<'EOF'
#include <gst/motionvectors/motionvectors.h>
int
main (int argc, char **argv)
{
  GstBuffer *buf;
  GstMotionVectorsMeta *meta;
  GBytes *bytes;
  int ok;

  gst_init (&argc, &argv);
  buf = gst_buffer_new ();
  gst_buffer_add_motion_vectors_meta (buf, 64, 48, 16, 16,
      GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  meta = gst_buffer_get_motion_vectors_meta (buf);
  bytes = gst_motion_vectors_meta_get_vectors_bytes (meta);
  ok = meta && meta->n_vectors == 12
      && g_bytes_get_size (bytes) == 12 * GST_MOTION_VECTOR_PACKED_SIZE;
  g_bytes_unref (bytes);
  gst_buffer_unref (buf);
  return ok ? 0 : 1;
}
EOF
# The .pc file as installed, its prefix moved into DESTDIR (its other
# paths derive from ${prefix}; the system's .pc files stay as they are).
if ! grep -qx "prefix=$PREFIX" "$pc"; then
  echo "FAIL: $pc does not say prefix=$PREFIX"
  fail=1
fi
mkdir "$tmp/pc"
sed "s|^prefix=.*|prefix=$dest$PREFIX|" "$pc" >"$tmp/pc/gstreamer-motionvectors-1.0.pc"
flags=$(PKG_CONFIG_PATH=$tmp/pc pkg-config --cflags --libs gstreamer-motionvectors-1.0)
# shellcheck disable=SC2086
if ${CC:-cc} -o "$tmp/prog" "$tmp/prog.c" $flags 2>&1 && "$tmp/prog"; then
  echo "ok: a program builds with pkg-config gstreamer-motionvectors-1.0 and runs"
else
  echo "FAIL: a program against the installed headers and .pc file"
  fail=1
fi

# The installed plugin loads from the installed tree.
export GST_REGISTRY_1_0=$tmp/registry.bin GST_REGISTRY=$tmp/registry.bin
export GST_PLUGIN_PATH_1_0=$dest$PLUGINDIR GST_PLUGIN_PATH=$dest$PLUGINDIR
file=$(gst-inspect-1.0 blockmatchme 2>/dev/null | sed -n 's/^ *Filename *//p')
if [ "$file" = "$dest$PLUGINDIR/libgstmotion.so" ]; then
  echo "ok: gst-inspect-1.0 blockmatchme loads the installed plugin"
else
  echo "FAIL: gst-inspect-1.0 blockmatchme gave '${file}'"
  fail=1
fi

# The typelib, from Python, against the installed library.
if [ "$HAVE_GIR" = 1 ]; then
  py=""
  for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import gi' 2>/dev/null; then
      py=$cand
      break
    fi
  done
  if [ -n "$py" ]; then
    if GI_TYPELIB_PATH=$dest$libdir/girepository-1.0 "$py" -c '
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import Gst, GstMotionVectors as MV
Gst.init(None)
buf = Gst.Buffer.new()
MV.buffer_add_motion_vectors_meta(buf, 64, 48, 16, 16,
                                  MV.MotionVectorsDirection.BACKWARD)
meta = MV.buffer_get_motion_vectors_meta(buf)
assert meta.get_geometry()[4:] == (4, 3), meta.get_geometry()
assert meta.get_vectors_bytes().get_size() == 12 * MV.MOTION_VECTOR_PACKED_SIZE
'; then
      echo "ok: python imports the installed GstMotionVectors-1.0 typelib"
    else
      echo "FAIL: the installed typelib from Python"
      fail=1
    fi
    # The example on the installed plugin, library and typelib alone.
    if [ -n "$example" ] && "$py" -c 'import numpy' 2>/dev/null; then
      if GI_TYPELIB_PATH=$dest$libdir/girepository-1.0 \
        "$py" "$example" --frames 3 >"$tmp/example.out" 2>&1 &&
        grep -q '^frame 3 .* blocks moving' "$tmp/example.out"; then
        echo "ok: $(basename "$example") runs on the installed tree"
      else
        echo "FAIL: $(basename "$example") on the installed tree:"
        cat "$tmp/example.out"
        fail=1
      fi
    fi
  else
    echo "note: no PyGObject, the typelib was not loaded"
  fi
fi

# With --prefix=/usr the default plugin directory is Debian GStreamer's
# (pkg-config's pluginsdir); a relative libdir is the default layout.
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
if [ -z "$PLUGINDIR_OPTION" ] && [ "${LIBDIR#/}" = "$LIBDIR" ]; then
  if [ "/usr/$LIBDIR/gstreamer-1.0" = "$pluginsdir" ]; then
    echo "ok: with --prefix=/usr the plugin goes to $pluginsdir"
  else
    echo "FAIL: with --prefix=/usr the plugin would go to /usr/$LIBDIR/gstreamer-1.0, GStreamer looks in $pluginsdir"
    fail=1
  fi
fi
exit $fail
