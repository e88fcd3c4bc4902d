/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

/* Each element is built unless its meson option disables it. */
#ifdef HAVE_ELEMENT_BLOCKMATCHME
#include "blockmatchme/gstblockmatchme.h"
#endif
#ifdef HAVE_ELEMENT_MVEXPORT
#include "mvexport/gstmvexport.h"
#endif
#ifdef HAVE_ELEMENT_MVMETASTREAM
#include "mvmetastream/gstmvmetastream.h"
#endif
#ifdef HAVE_ELEMENT_MVONVIFMETA
#include "mvonvifmeta/gstmvonvifmeta.h"
#include "mvonvifmeta/gstrtponvifmeta.h"
#endif
#ifdef HAVE_ELEMENT_MVOVERLAY
#include "mvoverlay/gstmvoverlay.h"
#endif
#ifdef HAVE_ELEMENT_POCME
#include "pocme/gstpocme.h"
#endif
#ifdef HAVE_ELEMENT_STEREODISPARITY
#include "stereodisparity/gststereodisparity.h"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

#ifdef HAVE_ELEMENT_BLOCKMATCHME
  ret |= GST_ELEMENT_REGISTER (blockmatchme, plugin);
#endif
#ifdef HAVE_ELEMENT_MVEXPORT
  ret |= GST_ELEMENT_REGISTER (mvexport, plugin);
#endif
#ifdef HAVE_ELEMENT_MVMETASTREAM
  ret |= GST_ELEMENT_REGISTER (mvmetastream, plugin);
#endif
#ifdef HAVE_ELEMENT_MVONVIFMETA
  ret |= GST_ELEMENT_REGISTER (mvonvifmeta, plugin);
  ret |= GST_ELEMENT_REGISTER (rtponvifmetapay, plugin);
  ret |= GST_ELEMENT_REGISTER (rtponvifmetadepay, plugin);
#endif
#ifdef HAVE_ELEMENT_MVOVERLAY
  ret |= GST_ELEMENT_REGISTER (mvoverlay, plugin);
#endif
#ifdef HAVE_ELEMENT_POCME
  ret |= GST_ELEMENT_REGISTER (pocme, plugin);
#endif
#ifdef HAVE_ELEMENT_STEREODISPARITY
  ret |= GST_ELEMENT_REGISTER (stereodisparity, plugin);
#endif
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, motion,
    "Motion estimation (block matching, phase correlation) and stereo "
    "disparity on CUDA and OpenMP",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
