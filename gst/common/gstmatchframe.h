/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The frames the matching elements take: the video formats whose luma they
 * read, the largest frame the kernels take (in the pad templates, so that
 * a larger frame fails at negotiation, not after it), and a frame's luma
 * as a kernel ImageView.
 */
#ifndef __GST_MATCH_FRAME_H__
#define __GST_MATCH_FRAME_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* Every format whose luma the elements can read: planar/semi-planar YUV
 * (the Y plane is used in place) and packed RGB (luma computed). */
#define GST_MATCH_VIDEO_FORMATS                                                \
  "{ GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444, "                        \
  "RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR }"

/* The largest frame width and height of every matcher
 * (match::kMaxFrameSize; checked at compile time in gstmatchframe.cpp). */
#define GST_MATCH_MAX_FRAME_SIZE 16384
#define GST_MATCH_FRAME_SIZE_RANGE                                             \
  "(int) [ 1, " G_STRINGIFY (GST_MATCH_MAX_FRAME_SIZE) " ]"

/* GST_VIDEO_CAPS_MAKE(_WITH_FEATURES) within the matchers' frame size. */
#define GST_MATCH_VIDEO_CAPS_MAKE(format)                                      \
  "video/x-raw, format = (string) " format ", "                                \
  "width = " GST_MATCH_FRAME_SIZE_RANGE ", "                                   \
  "height = " GST_MATCH_FRAME_SIZE_RANGE ", "                                  \
  "framerate = " GST_VIDEO_FPS_RANGE
#define GST_MATCH_VIDEO_CAPS_MAKE_WITH_FEATURES(features, format)              \
  "video/x-raw(" features "), format = (string) " format ", "                  \
  "width = " GST_MATCH_FRAME_SIZE_RANGE ", "                                   \
  "height = " GST_MATCH_FRAME_SIZE_RANGE ", "                                  \
  "framerate = " GST_VIDEO_FPS_RANGE

/* transform_caps of the elements that read the frames' metas and write
 * another format (mvmetastream, mvonvifmeta): any caps on the sink side,
 * `out`'s on the source side, intersected with `filter` (may be NULL). */
GstCaps * gst_match_meta_reader_caps (GstPadDirection direction,
    GstStaticPadTemplate * out, GstCaps * filter);

G_END_DECLS

#ifdef __cplusplus
#include <cstdint>
#include <vector>

#include "match/image.h"
#include "mvcolour.h"

/* The frame's chroma (U and V) for the decision's colour (mvcolour.h):
 * FALSE for formats without chroma planes (GRAY8, packed RGB). */
gboolean gst_match_frame_chroma (const GstVideoFrame * frame,
    MvChromaView * out);

/* The frame's luma as a kernel view: the Y plane itself for YUV/GRAY
 * formats, else computed into `scratch` (full-range BT.601 weights,
 * Y = (77 R + 150 G + 29 B + 128) >> 8). `scratch` is sized by the caller
 * (gst_match_luma_scratch_size) so nothing is allocated per frame. */
match::ImageView gst_match_frame_luma (const GstVideoFrame * frame,
    std::vector<uint8_t> & scratch);
gsize gst_match_luma_scratch_size (const GstVideoInfo * info);
#endif

#endif /* __GST_MATCH_FRAME_H__ */
