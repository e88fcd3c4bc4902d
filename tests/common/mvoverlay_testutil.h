/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Helpers shared by the overlay suites (check/elements/mvoverlay.cpp,
 * gst_mv_overlay_draw() directly; check/elements/mvoverlay_element.cpp, the
 * mvoverlay element): the formats, where each sample of a frame lives,
 * test frames and fields, drawing a buffer's field, and checks on which
 * pixels changed. Include after gstcheck.h.
 */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <vector>

#include "testutil.h"
#include "common/mvoverlay.h"

/* The formats of GST_MATCH_VIDEO_FORMATS. */
static const GstVideoFormat kFormats[] = {
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,
    GST_VIDEO_FORMAT_NV12,  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_Y41B,
    GST_VIDEO_FORMAT_Y42B,  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR,   GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_xRGB,  GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
};

inline const char *fmt_name(GstVideoFormat f) { return gst_video_format_to_string(f); }

/* Where each component sample of a frame lives in its buffer. */
struct Layout {
  GstVideoInfo info;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  gsize size;

  const GstVideoFormatInfo *finfo() const { return info.finfo; }
  /* Components that may be drawn on: R,G,B / Y,U,V / Y. */
  int drawable() const { return GST_VIDEO_INFO_IS_GRAY(&info) ? 1 : 3; }
  int n_comps() const { return GST_VIDEO_INFO_N_COMPONENTS(&info); }
  int wsub(int c) const { return GST_VIDEO_FORMAT_INFO_W_SUB(finfo(), c); }
  int hsub(int c) const { return GST_VIDEO_FORMAT_INFO_H_SUB(finfo(), c); }
  int comp_w(int c) const {
    return GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(finfo(), c, GST_VIDEO_INFO_WIDTH(&info));
  }
  int comp_h(int c) const {
    return GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(finfo(), c, GST_VIDEO_INFO_HEIGHT(&info));
  }
  /* Byte of component c's sample (cx, cy). */
  gsize sample(int c, int cx, int cy) const {
    const int p = GST_VIDEO_FORMAT_INFO_PLANE(finfo(), c);
    return offset[p] + GST_VIDEO_FORMAT_INFO_POFFSET(finfo(), c) + (gsize)cy * stride[p] +
           (gsize)cx * GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo(), c);
  }
  /* Byte of component c covering pixel (x, y). */
  gsize at(int c, int x, int y) const { return sample(c, x >> wsub(c), y >> hsub(c)); }
};

/* The layout GstVideoInfo `info` describes (its offsets, strides, size). */
inline Layout layout_from_info(const GstVideoInfo &info) {
  Layout l;
  l.info = info;
  for (int p = 0; p < GST_VIDEO_MAX_PLANES; ++p) {
    l.offset[p] = GST_VIDEO_INFO_PLANE_OFFSET(&l.info, p);
    l.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE(&l.info, p);
  }
  l.size = GST_VIDEO_INFO_SIZE(&l.info);
  return l;
}

/* Bytes of `size` that are a sample of a drawable component (R,G,B /
 * Y,U,V / Y) in l: everything else (padding, guards, alpha, x) is false. */
inline std::vector<bool> drawable_mask(const Layout &l, gsize size) {
  std::vector<bool> drawable(size, false);
  for (int c = 0; c < l.drawable(); ++c)
    for (int cy = 0; cy < l.comp_h(c); ++cy)
      for (int cx = 0; cx < l.comp_w(c); ++cx) drawable[l.sample(c, cx, cy)] = true;
  return drawable;
}

inline std::vector<guint8> buffer_bytes(GstBuffer *buf) {
  std::vector<guint8> out(gst_buffer_get_size(buf));
  gst_buffer_extract(buf, 0, out.data(), out.size());
  return out;
}

/* A texture kept within [30, 220]: the pens (0/255 on GRAY8, saturated
 * colours elsewhere) always change such pixels. */
inline TestImage test_image(int w, int h, unsigned seed) {
  TestImage img = test_texture(w, h, seed);
  for (auto &p : img.pixels) p = (guint8)(30 + p * 190 / 255);
  return img;
}

/* A flat grey (128) image. */
inline TestImage grey_image(int w, int h) {
  TestImage grey;
  grey.width = w;
  grey.height = h;
  grey.pixels.assign((size_t)w * h, 128);
  return grey;
}

inline GstMotionVectorsMeta *add_field(GstBuffer *buf, int w, int h, int bs,
                                       GstMotionVectorsDirection dir) {
  GstMotionVectorsMeta *meta = gst_buffer_add_motion_vectors_meta(buf, w, h, bs, bs, dir);
  fail_unless(meta != NULL);
  return meta;
}

/* A deterministic field with a mix of NO_ESTIMATE, zero and sub-pixel
 * vectors. */
inline void fill_field(GstMotionVectorsMeta *meta) {
  for (guint i = 0; i < meta->n_vectors; ++i) {
    GstMotionVector *v = &meta->vectors[i];
    v->flags = (i % 5 == 0) ? GST_MOTION_VECTOR_FLAG_NO_ESTIMATE : 0;
    v->dx = (float)((int)(i * 37 % 23) - 11) * 0.5f;
    v->dy = (float)((int)(i * 53 % 17) - 8) * 0.75f;
  }
}

inline void set_vector(GstMotionVectorsMeta *meta, guint col, guint row, float dx,
                       float dy, guint32 flags = GST_MOTION_VECTOR_FLAG_NONE) {
  GstMotionVector *v = gst_motion_vectors_meta_get_vector(meta, col, row);
  fail_unless(v != NULL);
  v->dx = dx;
  v->dy = dy;
  v->flags = flags;
}

/* Maps buf as laid out by l (through its GstVideoMeta if any) and draws
 * its motion-vector meta: gst_mv_overlay_draw_full() with `params` when
 * given, else gst_mv_overlay_draw() with `max_mag`. */
inline void draw(GstBuffer *buf, const Layout &l, GstMvDrawMode mode, float max_mag,
                 const GstMvOverlayParams *params = NULL) {
  GstVideoFrame frame;
  GstMotionVectorsMeta *meta = gst_buffer_get_motion_vectors_meta(buf);
  fail_unless(meta != NULL);
  GstVideoInfo info = l.info;
  fail_unless(gst_video_frame_map(&frame, &info, buf, GST_MAP_READWRITE));
  if (params)
    gst_mv_overlay_draw_full(&frame, meta, mode, params);
  else
    gst_mv_overlay_draw(&frame, meta, mode, max_mag);
  gst_video_frame_unmap(&frame);
}

inline bool pixel_changed(const Layout &l, const std::vector<guint8> &a,
                          const std::vector<guint8> &b, int x, int y) {
  for (int c = 0; c < l.drawable(); ++c)
    if (a[l.at(c, x, y)] != b[l.at(c, x, y)]) return true;
  return false;
}

struct Rect {
  int x0, y0, x1, y1; /* inclusive */
  bool contains(int x, int y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

/* Every changed pixel lies in r. */
inline void check_changes_inside(const Layout &l, const std::vector<guint8> &a,
                                 const std::vector<guint8> &b, const Rect &r,
                                 const char *what) {
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT(&l.info); ++y)
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH(&l.info); ++x)
      if (pixel_changed(l, a, b, x, y) && !r.contains(x, y))
        fail("%s, %s: pixel (%d, %d) changed outside [%d..%d]x[%d..%d]",
             fmt_name(GST_VIDEO_INFO_FORMAT(&l.info)), what, x, y, r.x0, r.x1, r.y0,
             r.y1);
}

#define CHECK_CHANGED(l, a, b, x, y, want, what)                      \
  fail_unless(pixel_changed(l, a, b, x, y) == (want),                 \
              "%s, %s: pixel (%d, %d) should %s",                     \
              fmt_name(GST_VIDEO_INFO_FORMAT(&(l).info)), what, x, y, \
              (want) ? "change" : "stay")
