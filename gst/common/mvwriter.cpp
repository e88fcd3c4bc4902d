/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* Notes.
 *
 * .flo: the pixels of one block row share their vectors, so a row of
 * (u, v) pairs is built once per block row and written block_height times
 * (one fwrite per pixel row). The format is little-endian; on a big-endian
 * host the row is byte-swapped once after it is built.
 *
 * JSON: every number is formatted by hand or with g_ascii_formatd(), never
 * with printf's %f/%g, so a comma-decimal LC_NUMERIC cannot corrupt the
 * output. Vectors on a quarter-pel grid (all blockmatchme output) take an
 * exact integer path: q = 4 v is an integer and v prints as q / 4 with the
 * fraction .25, .5 or .75. Anything else prints with %.9g, which is enough
 * for any float to parse back to the same float.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvwriter.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

static_assert (sizeof (float) == 4 && std::numeric_limits<float>::is_iec559,
    ".flo needs IEEE-754 binary32 floats");

gboolean
gst_mv_meta_has_estimate (const GstMotionVectorsMeta * meta)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  for (guint i = 0; i < meta->n_vectors; i++)
    if (!(meta->vectors[i].flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE))
      return TRUE;
  return FALSE;
}

/* ---------------------------------------------------------------- .flo */

static inline guint32
to_le32 (guint32 v)
{
  return GUINT32_TO_LE (v);
}

static inline guint32
float_bits (gfloat f)
{
  guint32 b;
  memcpy (&b, &f, sizeof b);
  return b;
}

gboolean
gst_mv_write_flo_with_scratch (FILE * out, const GstMotionVectorsMeta * meta,
    gfloat ** row, gsize * row_floats)
{
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (row != NULL && row_floats != NULL, FALSE);
  if (!gst_motion_vectors_meta_is_valid (meta))
    return FALSE;

  const guint w = meta->frame_width;
  const guint h = meta->frame_height;
  const gsize need = (gsize) w * 2;
  if (!*row || *row_floats < need) {
    *row = (gfloat *) g_realloc (*row, need * sizeof (gfloat));
    *row_floats = need;
  }
  gfloat * buf = *row;

  /* Header: the magic 202021.25f reads "PIEH" in little-endian bytes. */
  const guint32 header[3] = { to_le32 (float_bits (202021.25f)), to_le32 (w),
    to_le32 (h) };
  if (fwrite (header, sizeof header, 1, out) != 1)
    return FALSE;

  for (guint r = 0; r < meta->rows; r++) {
    const GstMotionVector * vr = meta->vectors + (gsize) r * meta->columns;
    for (guint c = 0; c < meta->columns; c++) {
      const GstMotionVector * v = vr + c;
      const gboolean unknown =
          (v->flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE) != 0;
      const gfloat u = unknown ? GST_MV_FLO_UNKNOWN : v->dx;
      const gfloat vv = unknown ? GST_MV_FLO_UNKNOWN : v->dy;
      const guint x0 = c * meta->block_width;
      const guint x1 = MIN (x0 + meta->block_width, w);
      for (guint x = x0; x < x1; x++) {
        buf[2 * x] = u;
        buf[2 * x + 1] = vv;
      }
    }
#if G_BYTE_ORDER != G_LITTLE_ENDIAN
    for (gsize i = 0; i < need; i++) {
      const guint32 b = GUINT32_SWAP_LE_BE (float_bits (buf[i]));
      memcpy (&buf[i], &b, sizeof b);
    }
#endif
    const guint y0 = r * meta->block_height;
    const guint y1 = MIN (y0 + meta->block_height, h);
    for (guint y = y0; y < y1; y++)
      if (fwrite (buf, sizeof (gfloat), need, out) != need)
        return FALSE;
  }
  return TRUE;
}

gboolean
gst_mv_write_flo (FILE * out, const GstMotionVectorsMeta * meta)
{
  gfloat * row = NULL;
  gsize row_floats = 0;
  const gboolean ok =
      gst_mv_write_flo_with_scratch (out, meta, &row, &row_floats);
  g_free (row);
  return ok;
}

/* ---------------------------------------------------------------- JSON */

void
gst_mv_json_append_uint (GString * out, guint64 v)
{
  char tmp[24];
  char * p = tmp + sizeof tmp;
  do {
    *--p = (char) ('0' + v % 10);
    v /= 10;
  } while (v);
  g_string_append_len (out, p, tmp + sizeof tmp - p);
}

void
gst_mv_json_append_time (GString * out, GstClockTime t)
{
  if (GST_CLOCK_TIME_IS_VALID (t))
    gst_mv_json_append_uint (out, t);
  else
    g_string_append_len (out, "null", 4);
}

void
gst_mv_json_append_float (GString * out, gfloat f)
{
  const double d = f;

  if (!std::isfinite (d)) {
    g_string_append_len (out, "null", 4); /* JSON has no NaN / Inf */
    return;
  }
  const double q = d * 4.0; /* exact: a power-of-two scale */
  if (q == std::floor (q) && std::fabs (q) < 1e15) {
    guint64 a = (guint64) std::fabs (q);
    if (q < 0)
      g_string_append_c (out, '-');
    gst_mv_json_append_uint (out, a / 4);
    static const char * const frac[4] = { "", ".25", ".5", ".75" };
    g_string_append (out, frac[a % 4]);
    return;
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", d));
}

void
gst_mv_json_append_double (GString * out, gdouble d)
{
  if (!std::isfinite (d)) {
    g_string_append_len (out, "null", 4);
    return;
  }
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", d));
}

void
gst_mv_json_append_int (GString * out, gint64 v)
{
  if (v < 0) {
    g_string_append_c (out, '-');
    gst_mv_json_append_uint (out, (guint64) 0 - (guint64) v);
  } else {
    gst_mv_json_append_uint (out, (guint64) v);
  }
}

void
gst_mv_json_append_string (GString * out, const gchar * s)
{
  if (!s) {
    g_string_append_len (out, "null", 4);
    return;
  }
  g_string_append_c (out, '"');
  for (const guchar * p = (const guchar *) s; *p; p++) {
    switch (*p) {
      case '"':
        g_string_append_len (out, "\\\"", 2);
        break;
      case '\\':
        g_string_append_len (out, "\\\\", 2);
        break;
      default:
        if (*p < 0x20)
          g_string_append_printf (out, "\\u%04x", (guint) *p);
        else
          g_string_append_c (out, (gchar) *p);
        break;
    }
  }
  g_string_append_c (out, '"');
}

static void
append_key_uint (GString * out, const char * key, guint64 v)
{
  g_string_append (out, key);
  gst_mv_json_append_uint (out, v);
}

void
gst_mv_json_append_geometry (GString * out, const GstMotionVectorsMeta * meta)
{
  append_key_uint (out, "\"width\":", meta->frame_width);
  append_key_uint (out, ",\"height\":", meta->frame_height);
  append_key_uint (out, ",\"block_width\":", meta->block_width);
  append_key_uint (out, ",\"block_height\":", meta->block_height);
  append_key_uint (out, ",\"columns\":", meta->columns);
  append_key_uint (out, ",\"rows\":", meta->rows);
  g_string_append (out, ",\"direction\":");
  switch (meta->direction) {
    case GST_MOTION_VECTORS_DIRECTION_FORWARD:
      g_string_append (out, "\"forward\"");
      break;
    case GST_MOTION_VECTORS_DIRECTION_BACKWARD:
      g_string_append (out, "\"backward\"");
      break;
    default:
      g_string_append (out, "null");
      break;
  }
  g_string_append (out, ",\"precision\":");
  gst_mv_json_append_float (out, meta->precision);
  g_string_append (out, ",\"method\":");
  gst_mv_json_append_string (out, meta->method);
}

gboolean
gst_mv_meta_append_json (GString * out, const GstMotionVectorsMeta * meta,
    guint64 frame_number, GstClockTime pts)
{
  g_return_val_if_fail (out != NULL, FALSE);
  if (!gst_motion_vectors_meta_is_valid (meta))
    return FALSE;

  append_key_uint (out, "{\"frame\":", frame_number);
  g_string_append (out, ",\"pts\":");
  gst_mv_json_append_time (out, pts);
  g_string_append (out, ",\"ref_pts\":");
  gst_mv_json_append_time (out, meta->reference_timestamp);
  g_string_append_c (out, ',');
  gst_mv_json_append_geometry (out, meta);

  gboolean any_confidence = FALSE;
  g_string_append (out, ",\"vectors\":[");
  for (guint i = 0; i < meta->n_vectors; i++) {
    const GstMotionVector * v = &meta->vectors[i];
    g_string_append_len (out, i ? ",[" : "[", i ? 2 : 1);
    gst_mv_json_append_float (out, v->dx);
    g_string_append_c (out, ',');
    gst_mv_json_append_float (out, v->dy);
    g_string_append_c (out, ',');
    gst_mv_json_append_uint (out, v->cost);
    g_string_append_c (out, ',');
    gst_mv_json_append_uint (out, v->flags);
    g_string_append_c (out, ']');
    any_confidence |= v->confidence >= 0.0f;
  }
  g_string_append_c (out, ']');

  if (any_confidence) {
    g_string_append (out, ",\"confidence\":[");
    for (guint i = 0; i < meta->n_vectors; i++) {
      const gfloat c = meta->vectors[i].confidence;
      if (i)
        g_string_append_c (out, ',');
      if (c >= 0.0f)
        gst_mv_json_append_float (out, c);
      else
        g_string_append_len (out, "null", 4);
    }
    g_string_append_c (out, ']');
  }
  g_string_append_c (out, '}');
  return TRUE;
}

gchar *
gst_mv_meta_to_json (const GstMotionVectorsMeta * meta, guint64 frame_number,
    GstClockTime pts)
{
  if (!gst_motion_vectors_meta_is_valid (meta))
    return NULL;
  /* About 20 bytes per vector. */
  GString * s = g_string_sized_new (256 + (gsize) meta->n_vectors * 20);
  gst_mv_meta_append_json (s, meta, frame_number, pts);
  return g_string_free (s, FALSE);
}
