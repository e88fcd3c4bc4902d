/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Serialisation of a GstMotionVectorsMeta: Middlebury .flo (dense) and one
 * JSON object per frame. Used by mvexport.
 */
#ifndef __GST_MV_WRITER_H__
#define __GST_MV_WRITER_H__

#include <stdio.h>
#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

G_BEGIN_DECLS

/* Writes the field as a dense Middlebury .flo of frame_width x frame_height
 * (every pixel takes the vector of its block; NO_ESTIMATE blocks are written
 * as unknown flow, 1e10). Forward fields map straight onto .flo's
 * convention (I_ref(x,y) ~ I_cur(x+u,y+v)); backward fields are written as
 * they are (pixel = block of the current frame) and flagged in the JSON. */
gboolean gst_mv_write_flo (FILE * out, const GstMotionVectorsMeta * meta);

/* One line of JSON (no trailing newline), newly allocated. */
gchar *gst_mv_meta_to_json (const GstMotionVectorsMeta * meta,
    guint64 frame_number, GstClockTime pts);

G_END_DECLS

#endif /* __GST_MV_WRITER_H__ */
