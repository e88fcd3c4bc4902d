/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Serialisation of a GstMotionVectorsMeta: Middlebury .flo (dense) and one
 * JSON object per frame. Used by mvexport; docs/export.md describes both
 * formats for users.
 */
#ifndef __GST_MV_WRITER_H__
#define __GST_MV_WRITER_H__

#include <stdio.h>
#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

G_BEGIN_DECLS

/* Value written for both u and v of pixels whose block has no estimate;
 * Middlebury's tools treat |u| > 1e9 or |v| > 1e9 as unknown flow. */
#define GST_MV_FLO_UNKNOWN 1e10f

/* The writers refuse metas that fail gst_motion_vectors_meta_is_valid(). */

/* TRUE when at least one vector is not flagged NO_ESTIMATE (FALSE for the
 * first frame after start, a flush or a caps change). */
gboolean gst_mv_meta_has_estimate (const GstMotionVectorsMeta * meta);

/* Writes the field as a dense Middlebury .flo of frame_width x frame_height:
 * float32 202021.25 ("PIEH"), int32 width, int32 height, then (u, v) float32
 * pairs row by row, all little-endian whatever the host. Every pixel takes
 * the vector of the block containing it (gst_motion_vectors_meta_lookup()
 * semantics, partial edge blocks included); NO_ESTIMATE blocks are written
 * as unknown flow (GST_MV_FLO_UNKNOWN for u and v). Forward fields map
 * straight onto .flo's convention (I_ref(x,y) ~ I_cur(x+u,y+v)); backward
 * fields are written as they are, on the current frame's grid.
 * One fwrite per pixel row. Allocates a row buffer per call; see
 * gst_mv_write_flo_with_scratch() to avoid that.
 * Returns FALSE on an invalid meta or a write error (errno is then set by
 * stdio). */
gboolean gst_mv_write_flo (FILE * out, const GstMotionVectorsMeta * meta);

/* Same as gst_mv_write_flo(), with a caller-owned row buffer: *row holds
 * *row_floats floats and is grown with g_realloc() when too small (both may
 * start as NULL / 0); the caller g_free()s *row when done. */
gboolean gst_mv_write_flo_with_scratch (FILE * out,
    const GstMotionVectorsMeta * meta, gfloat ** row, gsize * row_floats);

/* One line of JSON (no trailing newline), newly allocated:
 *   {"frame":12,"pts":400000000,"ref_pts":366666666,"width":640,
 *    "height":480,"block_width":16,"block_height":16,"columns":40,
 *    "rows":30,"direction":"backward","precision":0.5,"method":"full",
 *    "vectors":[[dx,dy,cost,flags],...]}
 * pts / ref_pts are nanoseconds or null when unknown. dx, dy and precision
 * are decimal numbers that parse back to the same float (quarter-pel values
 * print exactly: -1.25, 0.75); cost and flags are integers. When at least
 * one vector has a confidence >= 0 a "confidence" array follows "vectors",
 * one entry per vector, null where the confidence is < 0; otherwise the
 * key is absent. Vectors are row-major like the meta. The output does not
 * depend on the locale. NULL on an invalid meta. */
gchar * gst_mv_meta_to_json (const GstMotionVectorsMeta * meta,
    guint64 frame_number, GstClockTime pts);

/* Same as gst_mv_meta_to_json(), appended to `out` (which is not cleared),
 * so that a caller can reuse one GString for every frame. FALSE (and `out`
 * unchanged) on an invalid meta. */
gboolean gst_mv_meta_append_json (GString * out,
    const GstMotionVectorsMeta * meta, guint64 frame_number, GstClockTime pts);

/* JSON building blocks shared by the writers (locale independent, no
 * printf %f/%g): an unsigned / signed integer; a time in nanoseconds or
 * null when GST_CLOCK_TIME_NONE; a float that parses back to the same
 * float (quarter-pel values exactly: -1.25); a double with 6 significant
 * digits; a string with JSON escapes, or null for NULL. Non-finite numbers
 * are written as null. */
void gst_mv_json_append_uint (GString * out, guint64 v);
void gst_mv_json_append_int (GString * out, gint64 v);
void gst_mv_json_append_time (GString * out, GstClockTime t);
void gst_mv_json_append_float (GString * out, gfloat f);
void gst_mv_json_append_double (GString * out, gdouble d);
void gst_mv_json_append_string (GString * out, const gchar * s);
/* The meta's geometry as JSON members, without braces or a leading comma:
 * "width", "height", "block_width", "block_height", "columns", "rows",
 * "direction" ("forward", "backward" or null), "precision" and "method". */
void gst_mv_json_append_geometry (GString * out,
    const GstMotionVectorsMeta * meta);

G_END_DECLS

#endif /* __GST_MV_WRITER_H__ */
