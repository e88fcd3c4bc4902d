/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "blockmatchme/gstblockmatchme.h"
#include "mvexport/gstmvexport.h"
#include "mvoverlay/gstmvoverlay.h"
#include "pocme/gstpocme.h"
#include "stereodisparity/gststereodisparity.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (blockmatchme, plugin);
  ret |= GST_ELEMENT_REGISTER (mvexport, plugin);
  ret |= GST_ELEMENT_REGISTER (mvoverlay, plugin);
  ret |= GST_ELEMENT_REGISTER (pocme, plugin);
  ret |= GST_ELEMENT_REGISTER (stereodisparity, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, motion,
    "Motion estimation (block matching, phase correlation) and stereo "
    "disparity on CUDA and OpenMP",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
