/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The motion estimators' output: GstMotionVectorsMeta with pooled storage,
 * filled from the kernels' vectors, and the ways it can be drawn
 * (GstMvDrawMode, the `draw` and mvoverlay `mode` values).
 */
#ifndef __GST_MATCH_META_H__
#define __GST_MATCH_META_H__

#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

G_BEGIN_DECLS

typedef enum
{
  GST_MV_DRAW_NONE = 0,
  GST_MV_DRAW_ARROWS = 1,
  GST_MV_DRAW_COLOR = 2,
} GstMvDrawMode;

GType gst_mv_draw_mode_get_type (void);
#define GST_TYPE_MV_DRAW_MODE (gst_mv_draw_mode_get_type ())

/* Storage for the metas' vectors comes from a pool, so that nothing is
 * allocated per frame: (re)builds *pool when it is missing or sized for
 * another number of vectors. FALSE (with *pool NULL) when the pool cannot
 * be set up; the caller posts the element error. */
gboolean gst_match_vector_pool_ensure (GstBufferPool ** pool,
    guint * pool_vectors, guint n_vectors);

/* Adds a GstMotionVectorsMeta for a frame_width x frame_height frame in
 * block_width x block_height blocks to `buf` (writable, not mapped), its
 * storage taken from *pool (gst_match_vector_pool_ensure). NULL when the
 * storage or the meta cannot be had; the caller posts the element error. */
GstMotionVectorsMeta * gst_match_attach_meta (GstBuffer * buf,
    GstBufferPool ** pool, guint * pool_vectors, guint frame_width,
    guint frame_height, guint block_width, guint block_height,
    GstMotionVectorsDirection direction);

G_END_DECLS

#ifdef __cplusplus
#include "match/blockmatch.h"
#include "match/poc.h"

/* Copies kernel vectors into the meta's meta->n_vectors vectors. Without
 * `estimated` (or for vectors flagged kFlagNoEstimate) every vector becomes
 * NO_ESTIMATE: dx = dy = 0, cost 0, confidence -1. Kernel flags map to
 * SUPPRESSED / UNRELIABLE. */

/* Block matching: dx, dy from quarter pixels, cost = SAD, confidence -1. */
void gst_match_fill_meta (GstMotionVectorsMeta * meta,
    const match::BlockVector * vectors, gboolean estimated);

/* Phase-only correlation: dx, dy as computed (float pixels), cost 0 (POC
 * has no matching cost), confidence = POC peak height clamped to 0..1. */
void gst_match_fill_meta_poc (GstMotionVectorsMeta * meta,
    const match::PocVector * vectors, gboolean estimated);
#endif

#endif /* __GST_MATCH_META_H__ */
