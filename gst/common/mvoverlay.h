/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Drawing of a GstMotionVectorsMeta onto a mapped, writable video frame of
 * any format in GST_MATCH_VIDEO_FORMATS. Shared by blockmatchme and pocme.
 */
#ifndef __GST_MV_OVERLAY_H__
#define __GST_MV_OVERLAY_H__

#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include "gstmatchcommon.h"

G_BEGIN_DECLS

/* GST_MV_DRAW_ARROWS: one arrow per block showing the motion on this frame
 * (from where the content was to where it is now, whatever the field's
 * direction), in a colour picked for contrast; no arrow for zero or
 * NO_ESTIMATE vectors.
 * GST_MV_DRAW_COLOR: each block tinted by the Middlebury flow colour wheel
 * (hue = direction, saturation = magnitude relative to `max_magnitude`, or
 * to the field's largest vector when <= 0), blended with the image.
 * GST_MV_DRAW_NONE: nothing. */
void gst_mv_overlay_draw (GstVideoFrame * frame,
    const GstMotionVectorsMeta * meta, GstMvDrawMode mode,
    gfloat max_magnitude);

G_END_DECLS

#endif /* __GST_MV_OVERLAY_H__ */
