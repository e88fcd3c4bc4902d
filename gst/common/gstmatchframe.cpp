/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchframe.h"

#include "match/common.h"

static_assert (GST_MATCH_MAX_FRAME_SIZE == match::kMaxFrameSize,
    "the pad templates' frame size is the kernels'");

static gboolean
format_has_luma_plane (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_YUV (info) || GST_VIDEO_INFO_IS_GRAY (info);
}

gsize
gst_match_luma_scratch_size (const GstVideoInfo * info)
{
  if (format_has_luma_plane (info))
    return 0;
  return (gsize) GST_VIDEO_INFO_WIDTH (info) * GST_VIDEO_INFO_HEIGHT (info);
}

gboolean
gst_match_frame_chroma (const GstVideoFrame * frame, MvChromaView * out)
{
  const GstVideoInfo * info = &frame->info;
  if (!GST_VIDEO_INFO_IS_YUV (info) || GST_VIDEO_INFO_N_COMPONENTS (info) < 3)
    return FALSE;
  const GstVideoFormatInfo * f = info->finfo;
  MvChromaView c;
  c.u = static_cast<const uint8_t *> (
      GST_VIDEO_FRAME_COMP_DATA (frame, GST_VIDEO_COMP_U));
  c.v = static_cast<const uint8_t *> (
      GST_VIDEO_FRAME_COMP_DATA (frame, GST_VIDEO_COMP_V));
  c.width = GST_VIDEO_FRAME_COMP_WIDTH (frame, GST_VIDEO_COMP_U);
  c.height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, GST_VIDEO_COMP_U);
  c.u_stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, GST_VIDEO_COMP_U);
  c.v_stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, GST_VIDEO_COMP_V);
  c.pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_U);
  c.sub_x = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (f, GST_VIDEO_COMP_U);
  c.sub_y = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (f, GST_VIDEO_COMP_U);
  c.frame_width = GST_VIDEO_INFO_WIDTH (info);
  c.frame_height = GST_VIDEO_INFO_HEIGHT (info);
  /* The accepted YUV formats are 8-bit, one byte a sample. */
  if (GST_VIDEO_FORMAT_INFO_DEPTH (f, GST_VIDEO_COMP_U) != 8 || !c.u || !c.v)
    return FALSE;
  *out = c;
  return TRUE;
}

match::ImageView
gst_match_frame_luma (const GstVideoFrame * frame,
    std::vector<uint8_t> & scratch)
{
  const GstVideoInfo * info = &frame->info;
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);

  if (format_has_luma_plane (info)) {
    /* Component 0 is Y for every YUV/GRAY format we accept, in plane 0 with
     * pixel stride 1. */
    return match::ImageView{ static_cast<const uint8_t *> (
                                 GST_VIDEO_FRAME_COMP_DATA (frame, 0)),
      w, h, GST_VIDEO_FRAME_COMP_STRIDE (frame, 0) };
  }

  /* Packed RGB: R, G, B components share plane 0. */
  const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  const uint8_t * base =
      static_cast<const uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (frame, 0));
  const int ro = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_R);
  const int go = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_G);
  const int bo = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_B);
  uint8_t * dst = scratch.data ();

  for (int y = 0; y < h; ++y) {
    const uint8_t * row = base + (gsize) y * stride;
    uint8_t * out = dst + (gsize) y * w;
    for (int x = 0; x < w; ++x) {
      const uint8_t * p = row + x * ps;
      out[x] = (uint8_t) ((77 * p[ro] + 150 * p[go] + 29 * p[bo] + 128) >> 8);
    }
  }
  return match::ImageView{ dst, w, h, w };
}

GstCaps *
gst_match_meta_reader_caps (GstPadDirection direction,
    GstStaticPadTemplate * out, GstCaps * filter)
{
  GstCaps * other = direction == GST_PAD_SINK
      ? gst_static_pad_template_get_caps (out)
      : gst_caps_new_any ();

  if (filter) {
    GstCaps * tmp =
        gst_caps_intersect_full (filter, other, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (other);
    other = tmp;
  }
  return other;
}
