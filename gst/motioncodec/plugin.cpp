/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The codec-vector elements are a plugin of their own (libgstmotioncodec):
 * they link libavcodec, which Debian builds under the GPL (version 2 or
 * later), so this plugin as built is GPL-2+, while the main plugin and the
 * metadata library stay LGPL (docs/codec-vectors.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "motioncodec/gsth264mvdec.h"
#include "motioncodec/gsth264mvextract.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (h264mvdec, plugin);
  ret |= GST_ELEMENT_REGISTER (h264mvextract, plugin);
  return ret;
}

/* "GPL": the licence of the plugin as linked with Debian's libavcodec. */
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, motioncodec,
    "H.264 codec motion vectors (libavcodec) as GstMotionVectorsMeta, with "
    "moving regions and motion events",
    plugin_init, VERSION, "GPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
