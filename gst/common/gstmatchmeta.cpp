/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchmeta.h"

GType
gst_mv_draw_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_MV_DRAW_NONE, "Draw nothing (video passes unchanged)", "none" },
    { GST_MV_DRAW_ARROWS, "One arrow per block", "arrows" },
    { GST_MV_DRAW_COLOR, "Blocks tinted by the flow colour wheel", "color" },
    { 0, NULL, NULL }
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMvDrawMode", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* The parts of a meta fill shared by every kernel vector type: entries
 * without an estimate (no reference frame, or flagged by the kernel) become
 * NO_ESTIMATE with dx = dy = 0, cost 0, confidence -1; the others take the
 * kernel flags mapped to the meta's and their values from `set_values`
 * (dx, dy, cost, confidence). */
/* *INDENT-OFF* */
template <typename KernelVector, typename SetValues>
static void
fill_meta (GstMotionVectorsMeta * meta, const KernelVector * vectors,
    gboolean estimated, SetValues set_values)
{
  for (guint i = 0; i < meta->n_vectors; ++i) {
    GstMotionVector * mv = &meta->vectors[i];
    const KernelVector & v = vectors[i];
    guint32 flags = 0;

    if (!estimated || (v.flags & match::kFlagNoEstimate)) {
      mv->dx = mv->dy = 0.0f;
      mv->cost = 0;
      mv->confidence = -1.0f;
      mv->flags = GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
      continue;
    }
    if (v.flags & match::kFlagSuppressed)
      flags |= GST_MOTION_VECTOR_FLAG_SUPPRESSED;
    if (v.flags & match::kFlagUnreliable)
      flags |= GST_MOTION_VECTOR_FLAG_UNRELIABLE;
    set_values (mv, v);
    mv->flags = flags;
  }
}
/* *INDENT-ON* */

void
gst_match_fill_meta (GstMotionVectorsMeta * meta,
    const match::BlockVector * vectors, gboolean estimated)
{
  fill_meta (meta, vectors, estimated,
      [] (GstMotionVector * mv, const match::BlockVector & v) {
        const float scale = 1.0f / match::kSubpelScale;
        mv->dx = v.dx * scale;
        mv->dy = v.dy * scale;
        mv->cost = v.cost;
        mv->confidence = -1.0f;
      });
}

void
gst_match_fill_meta_poc (GstMotionVectorsMeta * meta,
    const match::PocVector * vectors, gboolean estimated)
{
  fill_meta (meta, vectors, estimated,
      [] (GstMotionVector * mv, const match::PocVector & v) {
        mv->dx = v.dx;
        mv->dy = v.dy;
        mv->cost = 0; /* POC has no matching cost */
        /* The fitted peak height may leave 0..1 by the fit error; the meta
         * promises 0..1 (and -1 only for "none"). */
        mv->confidence = CLAMP (v.confidence, 0.0f, 1.0f);
      });
}

gboolean
gst_match_vector_pool_ensure (GstBufferPool ** pool, guint * pool_vectors,
    guint n_vectors)
{
  if (*pool && *pool_vectors == n_vectors)
    return TRUE;
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_object_unref (*pool);
  }
  *pool = gst_buffer_pool_new ();
  GstStructure * config = gst_buffer_pool_get_config (*pool);
  gst_buffer_pool_config_set_params (config, NULL,
      n_vectors * sizeof (GstMotionVector), 2, 0);
  if (!gst_buffer_pool_set_config (*pool, config)
      || !gst_buffer_pool_set_active (*pool, TRUE)) {
    GST_WARNING ("could not set up the vector storage pool");
    gst_object_unref (*pool);
    *pool = NULL;
    *pool_vectors = 0;
    return FALSE;
  }
  *pool_vectors = n_vectors;
  return TRUE;
}

GstMotionVectorsMeta *
gst_match_attach_meta (GstBuffer * buf, GstBufferPool ** pool,
    guint * pool_vectors, guint frame_width, guint frame_height,
    guint block_width, guint block_height, GstMotionVectorsDirection direction)
{
  const guint n = ((frame_width + block_width - 1) / block_width)
      * ((frame_height + block_height - 1) / block_height);
  GstBuffer * storage = NULL;

  if (!gst_match_vector_pool_ensure (pool, pool_vectors, n)
      || gst_buffer_pool_acquire_buffer (*pool, &storage, NULL) != GST_FLOW_OK)
    return NULL;
  return gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
      frame_width, frame_height, block_width, block_height, direction);
}
