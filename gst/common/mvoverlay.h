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

/* gst_mv_overlay_draw:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @meta: the field to draw, in the frame's pixel coordinates (blocks that
 *   fall outside the frame are clipped; nothing is rescaled)
 * @mode: what to draw
 * @max_magnitude: GST_MV_DRAW_COLOR only: the motion, in pixels, shown at
 *   full saturation; <= 0 uses the largest vector of the field
 *
 * GST_MV_DRAW_ARROWS: one 1-pixel arrow per block showing the motion as seen
 * on this frame, from where the content was to where it is now, whatever
 * the field's direction: BACKWARD fields draw from (centre + v) to the
 * block centre, head at the centre; FORWARD fields draw from the centre to
 * (centre + v), head there. Vectors shorter than a pixel are a single dot.
 * Zero (including SUPPRESSED) and NO_ESTIMATE vectors draw nothing. The
 * colour is bright green (R, G, B = 0, 255, 0, converted to the frame's
 * YUV matrix and range; for subsampled chroma the chroma sample covering
 * each drawn pixel is written, so the tint bleeds by up to the subsampling
 * factor); on GRAY8 an arrow is white over dark content and black over
 * bright, judged at its head.
 *
 * GST_MV_DRAW_COLOR: each block with an estimate is tinted with the
 * Middlebury flow colour coding (Baker et al., IJCV 2011, flowToColor) of
 * its motion on this frame (v for FORWARD fields, -v for BACKWARD ones):
 * the hue gives the direction, with x right and y down: right = red,
 * down = orange/yellow, down-left = green, left = cyan, up = blue,
 * up-right = magenta; the saturation grows from white (no motion) to the
 * full hue at @max_magnitude; motion beyond it keeps the hue at 75%
 * brightness. RGB frames are mixed 50% with the colour; YUV frames keep
 * half of their luma contrast (Y mixed 50%) and take the colour's chroma;
 * GRAY8 mixes the colour's luma 50%, so only the brightness of the hue
 * shows. NO_ESTIMATE blocks are left untouched.
 *
 * GST_MV_DRAW_NONE: nothing.
 *
 * Alpha and padding bytes are never written and nothing is written outside
 * the frame's planes. Nothing is allocated. */
void gst_mv_overlay_draw (GstVideoFrame * frame,
    const GstMotionVectorsMeta * meta, GstMvDrawMode mode,
    gfloat max_magnitude);

G_END_DECLS

#endif /* __GST_MV_OVERLAY_H__ */
