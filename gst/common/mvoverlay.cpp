/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* Drawing of a motion-vector field on a video frame.
 *
 * The frame is described once per call as up to three 8-bit component
 * planes (R, G, B or Y, U, V; alpha and padding bytes are never touched),
 * each with its own data pointer, row stride, pixel stride and subsampling
 * taken from GstVideoFormatInfo, so planar, semi-planar and packed layouts
 * share one code path and nothing about a layout is assumed.
 *
 * Colours are given in RGB and converted once per call (arrows) or once per
 * block (colour wheel) to the frame's components: RGB as is, YUV with the
 * frame's colour matrix and range (BT.601 when the matrix is unknown).
 *
 * Every write goes through a bounds check against the component plane, so
 * vectors pointing anywhere (even non-finite ones, which are skipped) can
 * never write outside the frame. Nothing is allocated.
 *
 * A field estimated on a frame of another size (before a scaler) is mapped
 * to this frame by a Mapping: block edges by rounding e * s (so that the
 * mapped blocks still tile the frame), points such as block centres by
 * the pixel-centre rule (c + 0.5) * s - 0.5, vectors by s. When the sizes
 * agree every mapping is the identity, exactly, so the matchers' `draw`
 * output does not depend on this code. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvoverlay.h"

#include <cmath>

namespace {

constexpr int kMaxComps = 3;

struct CompPlane
{
  guint8 * data;
  gint stride;
  gint pstride;
  gint wsub;
  gint hsub;
  gint width;
  gint height;
};

struct Canvas
{
  CompPlane comp[kMaxComps];
  gint n_comps;
  gint width;
  gint height;
  gboolean is_rgb;
  gboolean is_gray;
  /* RGB -> YUV */
  gdouble kr, kb;
  gboolean full_range;
};

gboolean
canvas_init (Canvas * cv, GstVideoFrame * frame)
{
  const GstVideoFormatInfo * finfo = frame->info.finfo;

  if (!finfo || GST_VIDEO_FORMAT_INFO_IS_COMPLEX (finfo)
      || GST_VIDEO_FORMAT_INFO_IS_TILED (finfo))
    return FALSE;
  if (!GST_VIDEO_FORMAT_INFO_IS_RGB (finfo)
      && !GST_VIDEO_FORMAT_INFO_IS_YUV (finfo)
      && !GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo))
    return FALSE;

  cv->is_rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo);
  cv->is_gray = GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo);
  cv->width = GST_VIDEO_FRAME_WIDTH (frame);
  cv->height = GST_VIDEO_FRAME_HEIGHT (frame);
  cv->n_comps = cv->is_gray ? 1 : kMaxComps;
  if ((gint) GST_VIDEO_FRAME_N_COMPONENTS (frame) < cv->n_comps)
    return FALSE;

  for (gint c = 0; c < cv->n_comps; ++c) {
    CompPlane & p = cv->comp[c];

    if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) != 8
        || GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) != 0)
      return FALSE;
    p.data = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, c);
    p.stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
    p.pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
    p.wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    p.hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    p.width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    p.height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
    if (!p.data || p.pstride <= 0)
      return FALSE;
  }

  if (!gst_video_color_matrix_get_Kr_Kb (frame->info.colorimetry.matrix,
          &cv->kr, &cv->kb)) {
    cv->kr = 0.299;
    cv->kb = 0.114;
  }
  /* GRAY8 is full range by default; YUV is limited unless it says not. */
  cv->full_range = cv->is_gray
      || frame->info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  return TRUE;
}

/* canvas_init (), with the warning of a format it cannot draw on. */
static gboolean
canvas_for (Canvas * cv, GstVideoFrame * frame)
{
  if (canvas_init (cv, frame))
    return TRUE;
  GST_WARNING ("cannot draw on format %s",
      gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (frame)));
  return FALSE;
}

inline guint8
clamp_u8 (gdouble v)
{
  return (guint8) (v < 0.0 ? 0 : v > 255.0 ? 255 : lrint (v));
}

/* The frame's component values for the colour (r, g, b) in 0..255. */
void
canvas_colour (const Canvas * cv, gdouble r, gdouble g, gdouble b,
    guint8 out[kMaxComps])
{
  if (cv->is_rgb) {
    out[0] = clamp_u8 (r);
    out[1] = clamp_u8 (g);
    out[2] = clamp_u8 (b);
    return;
  }
  const gdouble y = cv->kr * r + (1.0 - cv->kr - cv->kb) * g + cv->kb * b;
  gdouble u = (b - y) / (2.0 * (1.0 - cv->kb));
  gdouble v = (r - y) / (2.0 * (1.0 - cv->kr));
  gdouble yy = y;
  if (!cv->full_range) {
    yy = 16.0 + y * (219.0 / 255.0);
    u *= 224.0 / 255.0;
    v *= 224.0 / 255.0;
  }
  out[0] = clamp_u8 (yy);
  out[1] = clamp_u8 (128.0 + u);
  out[2] = clamp_u8 (128.0 + v);
}

/* ---- arrows ---------------------------------------------------------- */

struct Pen
{
  const Canvas * cv;
  guint8 value[kMaxComps];
};

inline void
pen_plot (const Pen * pen, gint x, gint y)
{
  const Canvas * cv = pen->cv;

  if (x < 0 || y < 0 || x >= cv->width || y >= cv->height)
    return;
  for (gint c = 0; c < cv->n_comps; ++c) {
    const CompPlane & p = cv->comp[c];
    const gint cx = x >> p.wsub, cy = y >> p.hsub;
    if (cx >= p.width || cy >= p.height)
      continue;
    p.data[(gsize) cy * p.stride + (gsize) cx * p.pstride] = pen->value[c];
  }
}

/* Liang-Barsky clip of the segment to [lo_x, hi_x] x [lo_y, hi_y].
 * Returns FALSE when nothing is left. */
gboolean
clip_segment (gdouble * x0, gdouble * y0, gdouble * x1, gdouble * y1,
    gdouble lo_x, gdouble lo_y, gdouble hi_x, gdouble hi_y)
{
  const gdouble dx = *x1 - *x0, dy = *y1 - *y0;
  const gdouble p[4] = { -dx, dx, -dy, dy };
  const gdouble q[4] = { *x0 - lo_x, hi_x - *x0, *y0 - lo_y, hi_y - *y0 };
  gdouble t0 = 0.0, t1 = 1.0;

  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0.0) {
      if (q[i] < 0.0)
        return FALSE;
      continue;
    }
    const gdouble t = q[i] / p[i];
    if (p[i] < 0.0) {
      if (t > t1)
        return FALSE;
      if (t > t0)
        t0 = t;
    } else {
      if (t < t0)
        return FALSE;
      if (t < t1)
        t1 = t;
    }
  }
  const gdouble ox = *x0, oy = *y0;
  *x0 = ox + t0 * dx;
  *y0 = oy + t0 * dy;
  *x1 = ox + t1 * dx;
  *y1 = oy + t1 * dy;
  return TRUE;
}

/* A 1-pixel Bresenham line. The segment is first clipped to the frame (plus
 * a pixel of margin) so that the loop is bounded whatever the vector;
 * pen_plot still checks every pixel. */
void
draw_line (const Pen * pen, gdouble x0, gdouble y0, gdouble x1, gdouble y1)
{
  const Canvas * cv = pen->cv;

  if (!clip_segment (&x0, &y0, &x1, &y1, -1.0, -1.0, cv->width, cv->height))
    return;
  gint ax = (gint) lrint (x0), ay = (gint) lrint (y0);
  const gint bx = (gint) lrint (x1), by = (gint) lrint (y1);
  const gint dx = ABS (bx - ax), sx = ax < bx ? 1 : -1;
  const gint dy = -ABS (by - ay), sy = ay < by ? 1 : -1;
  gint err = dx + dy;

  for (;;) {
    pen_plot (pen, ax, ay);
    if (ax == bx && ay == by)
      break;
    const gint e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      ax += sx;
    }
    if (e2 <= dx) {
      err += dx;
      ay += sy;
    }
  }
}

/* Shaft from (tx, ty) to the head at (hx, hy), with two barbs. */
void
draw_arrow (Pen * pen, gdouble tx, gdouble ty, gdouble hx, gdouble hy)
{
  const gdouble vx = hx - tx, vy = hy - ty;
  const gdouble len = std::sqrt (vx * vx + vy * vy);

  if (pen->cv->is_gray) {
    /* One channel, no hue to stand out with: white on dark content, black
     * on bright, judged at the head so that one arrow has one colour. */
    const CompPlane & p = pen->cv->comp[0];
    const gint x = (gint) lrint (CLAMP (hx, 0.0, pen->cv->width - 1.0));
    const gint y = (gint) lrint (CLAMP (hy, 0.0, pen->cv->height - 1.0));
    pen->value[0] =
        p.data[(gsize) y * p.stride + (gsize) x * p.pstride] < 128 ? 255 : 0;
  }
  if (len < 1.0) {
    /* Shorter than a pixel: a dot where the content is now. */
    pen_plot (pen, (gint) lrint (hx), (gint) lrint (hy));
    return;
  }
  draw_line (pen, tx, ty, hx, hy);

  /* Barbs at +-30 degrees, a third of the shaft, between 2 and 6 px. */
  const gdouble barb = CLAMP (len / 3.0, 2.0, 6.0);
  const gdouble ux = vx / len, uy = vy / len;
  const gdouble c = 0.8660254037844386, s = 0.5;
  const gdouble l1x = -(ux * c - uy * s), l1y = -(ux * s + uy * c);
  const gdouble l2x = -(ux * c + uy * s), l2y = -(-ux * s + uy * c);
  draw_line (pen, hx, hy, hx + barb * l1x, hy + barb * l1y);
  draw_line (pen, hx, hy, hx + barb * l2x, hy + barb * l2y);
}

/* Field (meta) coordinates -> frame coordinates, per axis. */
struct Mapping
{
  guint field_w, field_h; /* meta->frame_width, frame_height */
  gint frame_w, frame_h;
  gdouble sx, sy; /* frame / field */

  /* A block edge (pixel boundary) e: round (e * s), exact in integers, so
   * that adjacent blocks share their mapped edge. */
  gint edge_x (guint e) const
  {
    return (
        gint) ((2 * (guint64) e * frame_w + field_w) / (2 * (guint64) field_w));
  }
  gint edge_y (guint e) const
  {
    return (
        gint) ((2 * (guint64) e * frame_h + field_h) / (2 * (guint64) field_h));
  }
  /* A point in pixel coordinates (pixel centres at integers). */
  gdouble point_x (gdouble c) const
  {
    return (c + 0.5) * sx - 0.5;
  }
  gdouble point_y (gdouble c) const
  {
    return (c + 0.5) * sy - 0.5;
  }
};

void
mapping_init (Mapping * m, const Canvas * cv, const GstMotionVectorsMeta * meta)
{
  m->field_w = meta->frame_width;
  m->field_h = meta->frame_height;
  m->frame_w = cv->width;
  m->frame_h = cv->height;
  m->sx = (gdouble) cv->width / meta->frame_width;
  m->sy = (gdouble) cv->height / meta->frame_height;
}

/* Below min_magnitude (in the field's pixels); never for min <= 0. */
inline gboolean
below_min (const GstMotionVector * v, gdouble min_magnitude)
{
  return min_magnitude > 0.0
      && (gdouble) v->dx * v->dx + (gdouble) v->dy * v->dy
      < min_magnitude * min_magnitude;
}

inline gboolean
has_arrow (const GstMotionVector * v, gdouble min_magnitude)
{
  return !(v->flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
      && (v->dx != 0.0f || v->dy != 0.0f) && std::isfinite (v->dx)
      && std::isfinite (v->dy) && !below_min (v, min_magnitude);
}

void
draw_arrows (const Canvas * cv, const GstMotionVectorsMeta * meta,
    const Mapping * map, const GstMvOverlayParams * params)
{
  Pen pen;

  pen.cv = cv;
  /* Bright green: far from the usual skin/sky/grey content (GRAY8: see
   * draw_arrow). */
  canvas_colour (cv, 0.0, 255.0, 0.0, pen.value);

  const gboolean backward =
      meta->direction == GST_MOTION_VECTORS_DIRECTION_BACKWARD;
  const gdouble kx = map->sx * params->arrow_scale;
  const gdouble ky = map->sy * params->arrow_scale;
  for (guint r = 0; r < meta->rows; ++r) {
    const guint y0 = r * meta->block_height;
    const guint bh = MIN (meta->block_height, meta->frame_height - y0);
    const gdouble cy = map->point_y (y0 + bh / 2);
    for (guint col = 0; col < meta->columns; ++col) {
      const GstMotionVector * v = &meta->vectors[r * meta->columns + col];
      if (!has_arrow (v, params->min_magnitude))
        continue;
      const guint x0 = col * meta->block_width;
      const guint bw = MIN (meta->block_width, meta->frame_width - x0);
      const gdouble cx = map->point_x (x0 + bw / 2);
      const gdouble vx = v->dx * kx, vy = v->dy * ky;
      if (!std::isfinite (vx) || !std::isfinite (vy))
        continue;
      if (backward) /* came from centre + v, is now at centre */
        draw_arrow (&pen, cx + vx, cy + vy, cx, cy);
      else /* was at centre, went to centre + v */
        draw_arrow (&pen, cx, cy, cx + vx, cy + vy);
    }
  }
}

/* ---- colour wheel ---------------------------------------------------- */

/* Baker et al., "A Database and Evaluation Methodology for Optical Flow"
 * (IJCV 2011), colour coding of flowToColor / makecolorwheel: 55 hues in
 * six ramps red -> yellow -> green -> cyan -> blue -> magenta -> red. */
constexpr int kRY = 15, kYG = 6, kGC = 4, kCB = 11, kBM = 13, kMR = 6;
constexpr int kNCols = kRY + kYG + kGC + kCB + kBM + kMR;

void
wheel_entry (int k, gdouble rgb[3])
{
  if (k < kRY) {
    rgb[0] = 255;
    rgb[1] = 255.0 * k / kRY;
    rgb[2] = 0;
    return;
  }
  k -= kRY;
  if (k < kYG) {
    rgb[0] = 255 - 255.0 * k / kYG;
    rgb[1] = 255;
    rgb[2] = 0;
    return;
  }
  k -= kYG;
  if (k < kGC) {
    rgb[0] = 0;
    rgb[1] = 255;
    rgb[2] = 255.0 * k / kGC;
    return;
  }
  k -= kGC;
  if (k < kCB) {
    rgb[0] = 0;
    rgb[1] = 255 - 255.0 * k / kCB;
    rgb[2] = 255;
    return;
  }
  k -= kCB;
  if (k < kBM) {
    rgb[0] = 255.0 * k / kBM;
    rgb[1] = 0;
    rgb[2] = 255;
    return;
  }
  k -= kBM;
  rgb[0] = 255;
  rgb[1] = 0;
  rgb[2] = 255 - 255.0 * k / kMR;
}

/* Middlebury computeColor() for the normalised motion (fx, fy). */
void
flow_colour (gdouble fx, gdouble fy, gdouble rgb[3])
{
  const gdouble rad = std::sqrt (fx * fx + fy * fy);
  const gdouble a = std::atan2 (-fy, -fx) / G_PI;
  const gdouble fk = (a + 1.0) / 2.0 * (kNCols - 1);
  const int k0 = CLAMP ((int) fk, 0, kNCols - 1);
  const int k1 = (k0 + 1) % kNCols;
  const gdouble f = fk - k0;
  gdouble c0[3], c1[3];

  wheel_entry (k0, c0);
  wheel_entry (k1, c1);
  for (int i = 0; i < 3; ++i) {
    gdouble col = ((1.0 - f) * c0[i] + f * c1[i]) / 255.0;
    if (rad <= 1.0)
      col = 1.0 - rad * (1.0 - col); /* less saturated when slower */
    else
      col *= 0.75; /* beyond the scale: darker */
    rgb[i] = 255.0 * col;
  }
}

/* Samples [lo, hi) of a component plane whose top-left pixel lies in the
 * pixel range [p0, p1): each sample belongs to exactly one block. */
inline void
sample_range (gint p0, gint p1, gint sub, gint n, gint * lo, gint * hi)
{
  *lo = (p0 + (1 << sub) - 1) >> sub;
  *hi = MIN ((p1 + (1 << sub) - 1) >> sub, n);
}

void
draw_colour (const Canvas * cv, const GstMotionVectorsMeta * meta,
    const Mapping * map, const GstMvOverlayParams * params)
{
  const gfloat max_magnitude = params->max_magnitude;
  /* Motion as seen on this frame: where the content went. */
  const gdouble sign =
      meta->direction == GST_MOTION_VECTORS_DIRECTION_BACKWARD ? -1.0 : 1.0;
  gdouble max_mag = max_magnitude;

  if (!(max_mag > 0.0) || !std::isfinite (max_mag)) {
    max_mag = 0.0;
    for (guint i = 0; i < meta->n_vectors; ++i) {
      const GstMotionVector * v = &meta->vectors[i];
      if (v->flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
        continue;
      const gdouble m =
          std::sqrt ((gdouble) v->dx * v->dx + (gdouble) v->dy * v->dy);
      if (std::isfinite (m) && m > max_mag)
        max_mag = m;
    }
  }
  const gdouble scale = max_mag > 0.0 ? 1.0 / max_mag : 0.0;

  for (guint r = 0; r < meta->rows; ++r) {
    const guint fy0 = r * meta->block_height;
    const gint y0 = map->edge_y (fy0);
    const gint y1 =
        map->edge_y (MIN (fy0 + meta->block_height, meta->frame_height));
    if (y0 >= cv->height)
      break;
    for (guint col = 0; col < meta->columns; ++col) {
      const GstMotionVector * v = &meta->vectors[r * meta->columns + col];
      if ((v->flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
          || below_min (v, params->min_magnitude))
        continue;
      const guint fx0 = col * meta->block_width;
      const gint x0 = map->edge_x (fx0);
      const gint x1 =
          map->edge_x (MIN (fx0 + meta->block_width, meta->frame_width));
      if (x0 >= cv->width)
        break;

      gdouble fx = sign * v->dx * scale, fy = sign * v->dy * scale;
      if (!std::isfinite (fx) || !std::isfinite (fy))
        fx = fy = 0.0;
      gdouble rgb[3];
      guint8 value[kMaxComps];
      flow_colour (fx, fy, rgb);
      canvas_colour (cv, rgb[0], rgb[1], rgb[2], value);

      for (gint c = 0; c < cv->n_comps; ++c) {
        const CompPlane & p = cv->comp[c];
        /* YUV chroma takes the wheel's chroma; luma and RGB are mixed
         * half and half with the image. */
        const gboolean replace = !cv->is_rgb && c > 0;
        const gint val = value[c];
        gint sx0, sx1, sy0, sy1;
        sample_range (x0, x1, p.wsub, p.width, &sx0, &sx1);
        sample_range (y0, y1, p.hsub, p.height, &sy0, &sy1);
        for (gint sy = sy0; sy < sy1; ++sy) {
          guint8 * d = p.data + (gsize) sy * p.stride + (gsize) sx0 * p.pstride;
          if (replace) {
            for (gint sx = sx0; sx < sx1; ++sx, d += p.pstride)
              *d = (guint8) val;
          } else {
            for (gint sx = sx0; sx < sx1; ++sx, d += p.pstride)
              *d = (guint8) ((*d + val + 1) >> 1);
          }
        }
      }
    }
  }
}

/* ---- rectangles ------------------------------------------------------ */

/* Calls fn (x, y) for every pixel of the outline of [x0, x1) x [y0, y1)
 * (thickness t, inside the rectangle) that lies in the frame, once each.
 * Bounds are 64-bit so that any guint ROI is safe. */
template <typename Fn>
void
for_outline (const Canvas * cv, gint64 x0, gint64 y0, gint64 x1, gint64 y1,
    gint64 t, Fn fn)
{
  const gint64 cx0 = MAX (x0, (gint64) 0), cx1 = MIN (x1, (gint64) cv->width);
  const gint64 cy0 = MAX (y0, (gint64) 0), cy1 = MIN (y1, (gint64) cv->height);
  /* The interior left alone; empty when the rectangle is thin. */
  const gint64 ix0 = x0 + t, ix1 = x1 - t, iy0 = y0 + t, iy1 = y1 - t;
  const gboolean hollow = ix0 < ix1 && iy0 < iy1;

  for (gint64 py = cy0; py < cy1; ++py) {
    if (!hollow || py < iy0 || py >= iy1) {
      for (gint64 px = cx0; px < cx1; ++px)
        fn ((gint) px, (gint) py);
      continue;
    }
    const gint64 left_end = MIN (ix0, cx1);
    for (gint64 px = cx0; px < left_end; ++px)
      fn ((gint) px, (gint) py);
    for (gint64 px = MAX (ix1, cx0); px < cx1; ++px)
      fn ((gint) px, (gint) py);
  }
}

/* ---- track labels ---------------------------------------------------- */

/* Digits 0-9 of a 3x5 pixel font: five rows of three bits, the leftmost
 * pixel in bit 2. */
constexpr guint8 kDigits[10][5] = {
  { 7, 5, 5, 5, 7 }, /* 0 */
  { 2, 6, 2, 2, 7 }, /* 1 */
  { 7, 1, 7, 4, 7 }, /* 2 */
  { 7, 1, 7, 1, 7 }, /* 3 */
  { 5, 5, 7, 1, 1 }, /* 4 */
  { 7, 4, 7, 1, 7 }, /* 5 */
  { 7, 4, 7, 5, 7 }, /* 6 */
  { 7, 1, 1, 1, 1 }, /* 7 */
  { 7, 5, 7, 5, 7 }, /* 8 */
  { 7, 5, 7, 1, 7 }, /* 9 */
};

/* Fills [x0, x1) x [y0, y1), clipped to the frame. */
void
fill_rect (const Pen * pen, gint64 x0, gint64 y0, gint64 x1, gint64 y1)
{
  const Canvas * cv = pen->cv;

  x0 = MAX (x0, (gint64) 0);
  y0 = MAX (y0, (gint64) 0);
  x1 = MIN (x1, (gint64) cv->width);
  y1 = MIN (y1, (gint64) cv->height);
  for (gint64 y = y0; y < y1; ++y)
    for (gint64 x = x0; x < x1; ++x)
      pen_plot (pen, (gint) x, (gint) y);
}

} /* namespace */

guint
gst_mv_overlay_track_font_scale (gint frame_height)
{
  return (guint) MAX (2, frame_height / 240);
}

void
gst_mv_overlay_draw_track (GstVideoFrame * frame, gint x, gint y, gint width,
    gint height, guint track_id, gdouble vx, gdouble vy, guint32 tag_rgb,
    guint32 arrow_rgb)
{
  Canvas cv;
  Pen tag, text, arrow;

  g_return_if_fail (frame != NULL);

  if (width <= 0 || height <= 0)
    return;
  if (!canvas_for (&cv, frame))
    return;
  tag.cv = text.cv = arrow.cv = &cv;
  if (cv.is_gray) {
    /* No hue: a black tag with white digits; the arrow is judged against
     * the content at its head, as the field's arrows are. */
    tag.value[0] = 0;
    text.value[0] = 255;
  } else {
    canvas_colour (&cv, (tag_rgb >> 16) & 0xff, (tag_rgb >> 8) & 0xff,
        tag_rgb & 0xff, tag.value);
    canvas_colour (&cv, 255, 255, 255, text.value);
    canvas_colour (&cv, (arrow_rgb >> 16) & 0xff, (arrow_rgb >> 8) & 0xff,
        arrow_rgb & 0xff, arrow.value);
  }

  /* The tag: the id's digits, s x s frame pixels per font pixel, a font
   * pixel of margin around and between them; above the box when it fits,
   * else inside its top-left corner. */
  const gint64 s = gst_mv_overlay_track_font_scale (cv.height);
  gchar digits[16];
  const gint n = g_snprintf (digits, sizeof digits, "%u", track_id);
  const gint64 tag_w = (4 * n + 1) * s, tag_h = 7 * s;
  const gint64 tx = x;
  const gint64 ty = (gint64) y - tag_h >= 0 ? (gint64) y - tag_h : y;
  fill_rect (&tag, tx, ty, tx + tag_w, ty + tag_h);
  for (gint i = 0; i < n; ++i) {
    const guint8 * glyph = kDigits[digits[i] - '0'];
    const gint64 gx = tx + (1 + 4 * i) * s, gy = ty + s;
    for (gint r = 0; r < 5; ++r)
      for (gint c = 0; c < 3; ++c)
        if (glyph[r] & (4 >> c))
          fill_rect (&text, gx + c * s, gy + r * s, gx + (c + 1) * s,
              gy + (r + 1) * s);
  }

  /* The direction: an arrow from the box's centre along the velocity,
   * half the box's smaller side long (at least 6 font pixels), drawn twice
   * a pixel apart from scale 2 on so that it reads as a 2-pixel line. */
  const gdouble speed = std::sqrt (vx * vx + vy * vy);
  if (!(speed >= GST_MV_OVERLAY_TRACK_MIN_SPEED) || !std::isfinite (speed))
    return;
  const gdouble len = MAX (MIN (width, height) / 2.0, 6.0 * s);
  const gdouble cx = x + width / 2.0, cy = y + height / 2.0;
  const gdouble hx = cx + len * vx / speed, hy = cy + len * vy / speed;
  draw_arrow (&arrow, cx, cy, hx, hy);
  if (s >= 2) {
    /* Across the shaft: x for a mostly vertical arrow, y otherwise. */
    const gdouble ox = std::fabs (vy) > std::fabs (vx) ? 1.0 : 0.0;
    draw_arrow (&arrow, cx + ox, cy + 1.0 - ox, hx + ox, hy + 1.0 - ox);
  }
}

void
gst_mv_overlay_params_init (GstMvOverlayParams * params)
{
  g_return_if_fail (params != NULL);

  params->max_magnitude = 0.0f;
  params->min_magnitude = 0.0f;
  params->arrow_scale = 1.0f;
}

void
gst_mv_overlay_draw_full (GstVideoFrame * frame,
    const GstMotionVectorsMeta * meta, GstMvDrawMode mode,
    const GstMvOverlayParams * params)
{
  Canvas cv;
  Mapping map;
  GstMvOverlayParams p;

  g_return_if_fail (frame != NULL);
  g_return_if_fail (meta != NULL);

  if (mode == GST_MV_DRAW_NONE)
    return;
  if (params)
    p = *params;
  else
    gst_mv_overlay_params_init (&p);
  if (!(p.arrow_scale > 0.0f) || !std::isfinite (p.arrow_scale))
    p.arrow_scale = 1.0f;
  if (!gst_motion_vectors_meta_is_valid (meta)) {
    GST_WARNING ("inconsistent motion-vector meta, not drawing");
    return;
  }
  if (!canvas_for (&cv, frame))
    return;
  mapping_init (&map, &cv, meta);

  switch (mode) {
    case GST_MV_DRAW_ARROWS:
      draw_arrows (&cv, meta, &map, &p);
      break;
    case GST_MV_DRAW_COLOR:
      draw_colour (&cv, meta, &map, &p);
      break;
    default:
      break;
  }
}

void
gst_mv_overlay_draw (GstVideoFrame * frame, const GstMotionVectorsMeta * meta,
    GstMvDrawMode mode, gfloat max_magnitude)
{
  GstMvOverlayParams p;

  gst_mv_overlay_params_init (&p);
  p.max_magnitude = max_magnitude;
  gst_mv_overlay_draw_full (frame, meta, mode, &p);
}

void
gst_mv_overlay_draw_rect (GstVideoFrame * frame, gint x, gint y, gint width,
    gint height, guint32 rgb, guint thickness)
{
  Canvas cv;
  Pen pen;

  g_return_if_fail (frame != NULL);

  if (width <= 0 || height <= 0)
    return;
  if (!canvas_for (&cv, frame))
    return;

  const gint64 x0 = x, y0 = y, x1 = x0 + width, y1 = y0 + height;
  const gint64 t = MAX (thickness, 1u);

  pen.cv = &cv;
  if (cv.is_gray) {
    /* As for arrows, one value per shape that stands out from what it
     * covers: white over dark content, black over bright. */
    const CompPlane & p = cv.comp[0];
    guint64 sum = 0, n = 0;
    for_outline (&cv, x0, y0, x1, y1, t, [&] (gint px, gint py) {
      sum += p.data[(gsize) py * p.stride + (gsize) px * p.pstride];
      ++n;
    });
    if (n == 0)
      return;
    pen.value[0] = sum < 128 * n ? 255 : 0;
  } else {
    canvas_colour (&cv, (rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff,
        pen.value);
  }
  for_outline (&cv, x0, y0, x1, y1, t,
      [&] (gint px, gint py) { pen_plot (&pen, px, py); });
}

void
gst_mv_overlay_draw_polyline (GstVideoFrame * frame, const gdouble * x,
    const gdouble * y, guint n, gboolean closed, guint32 rgb)
{
  Canvas cv;
  Pen pen;

  g_return_if_fail (frame != NULL);

  if (n < 2 || !x || !y || !canvas_for (&cv, frame))
    return;
  pen.cv = &cv;
  if (cv.is_gray)
    pen.value[0] = 255; /* no hue: white, drawn twice with a black edge */
  else
    canvas_colour (&cv, (rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff,
        pen.value);
  Pen dark = pen;
  if (cv.is_gray)
    dark.value[0] = 0;
  for (guint i = 0; i + 1 < n || (closed && i < n); ++i) {
    const guint j = (i + 1) % n;
    if (!std::isfinite (x[i] + y[i] + x[j] + y[j]))
      continue;
    /* Two pixels wide: the segment and its copy a pixel down (on GRAY8 in
     * black, so that the line shows on bright and dark content alike). */
    draw_line (&pen, x[i], y[i], x[j], y[j]);
    draw_line (&dark, x[i], y[i] + 1.0, x[j], y[j] + 1.0);
  }
}
