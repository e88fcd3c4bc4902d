/* SPDX-License-Identifier: LGPL-2.1-or-later
 * TEMPORARY placeholder, being replaced. */
#include "mvoverlay.h"
void gst_mv_overlay_draw (GstVideoFrame *, const GstMotionVectorsMeta *, GstMvDrawMode, gfloat) {}
